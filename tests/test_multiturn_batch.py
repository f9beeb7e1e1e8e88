"""The decode batch and the prefill of a multi-turn run (issue 42): a sequence holds its context
only while its turn decodes, so the KV room a live sequence takes is its context averaged over
the turns, C0 + Δ(T−1)/2 + the reply, not the whole trajectory for the whole episode. A single
turn is unchanged (C0 + the reply). A run whose sampler does not keep the history between turns
(``prefix_cache: false``) prefills it again every turn. Fixture catalog only: Toy-8B on the big
toy GPU (helpers_runs)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_calc import _fig
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest
from tinkernomics.derived.calculator.estimate import backtest_rows, estimate

C0, DELTA, OUT = 2_000, 900, 400
MANY = {"n": "4096", "seqs": "1000000"}
"""Enough sequences that the engine's free memory, not a count, caps the batch."""


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def _held(toy: Catalog, turns: int) -> float:
    """The KV bytes one live sequence takes, over the KV bytes of one token."""
    e = toy_estimate(toy, T=str(turns), d=str(DELTA), out=str(OUT), **{"in": str(C0)}, **MANY)
    per_sequence = e["time.kv_room"] / e["time.batch"]
    return per_sequence / (e["mem.kv_per_token"] * e["time.kv_copies"])


@pytest.mark.parametrize("turns", [1, 2, 20])
def test_a_sequence_holds_its_context_averaged_over_its_turns(toy: Catalog, turns: int) -> None:
    assert _held(toy, turns) == pytest.approx(C0 + DELTA * (turns - 1) / 2 + OUT)


def test_twenty_turns_hold_less_than_the_final_trajectory(toy: Catalog) -> None:
    final = C0 + DELTA * 19 + OUT
    assert _held(toy, 20) < 0.6 * final


def _agent(rid: str, **extra: Any) -> dict[str, Any]:
    """A toy agentic run: 5 turns of 400 tokens with 600 tokens of tool output each."""
    return run(rid, 100.0, stage(turns=_fig(5, "count"), observation_tokens=_fig(600, "tokens"),
                                 mean_completion_tokens=_fig(400, "tokens")), **extra)


def test_a_run_whose_sampler_thrashes_prefills_every_turns_history_again(
        catalog: Catalog) -> None:
    """``prefix_cache: false`` prices the run with the calculator's prefix cache off: every
    turn's whole history prefilled again; the default keeps it."""
    toy = with_runs(catalog, _agent("cached"), _agent("thrashing", prefix_cache=False))
    rows = {row.run: row for row in backtest_rows(toy)}
    runs = toy.of("run")
    links = {rid: backtest.query(runs[rid], runs[rid].stages[0]) for rid in rows}
    assert links["cached"]["cache"] == "1" and links["thrashing"]["cache"] == "0"
    cached, thrashing = (estimate(toy, links[rid]) for rid in ("cached", "thrashing"))
    assert cached["tokens.prefill_cached"] > 0 and thrashing["tokens.prefill_cached"] == 0
    assert thrashing["tokens.prefill"] == cached["tokens.prefill"]
    assert thrashing["time.prefill_s"] > cached["time.prefill_s"]
    assert rows["thrashing"].estimate_gpu_hours > rows["cached"].estimate_gpu_hours
