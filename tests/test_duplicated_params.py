"""Layers a learner's tensor-parallel GPUs each compute whole (issue 42, Miles' Gated DeltaNet
mixers): ``dup`` (a run's ``duplicated_params``, billions of parameters × (TP - 1)) adds 2 FLOPs
a token for each to every forward pass (the update's, its recomputation, the old-policy and the
reference log-probs) and 4 to the backward. Fixture catalog only: Toy-8B on the big toy GPU
(helpers_runs)."""

from __future__ import annotations

import pytest
from helpers_calc import _fig
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import backtest_rows

KEYS = ("time.train_s", "time.reference_s", "time.train_gpus", "time.mfu_train",
        "tokens.sequence_per_episode", "run.prompts", "run.G", "self.gpu_hours",
        "time.decode_s")


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog,
                     run("dup", 1.0, stage(duplicated_params=_fig(3, "billion_parameters"))),
                     run("plain", 1.0, stage()))


def _toy(catalog: Catalog, **extra: str) -> dict[str, float]:
    e = toy_estimate(catalog, ref="1", **extra)
    found = {k: e[k] for k in KEYS}
    found["step_tokens"] = found["run.prompts"] * found["run.G"] * found[
        "tokens.sequence_per_episode"]
    found["rate"] = found["time.train_gpus"] * 1000e12 * found["time.mfu_train"]
    return found


@pytest.mark.parametrize("ac, forwards", [("2", 5.0), ("1", 4.0)])
def test_each_pass_pays_the_duplicated_parameters(toy: Catalog, ac: str,
                                                  forwards: float) -> None:
    plain, dup = _toy(toy, ac=ac), _toy(toy, ac=ac, dup="3")
    tokens, rate = dup["step_tokens"], dup["rate"]
    # the reference: one forward, 2 FLOPs a token for each duplicated parameter
    assert (dup["time.reference_s"] - plain["time.reference_s"]) * rate / tokens == (
        pytest.approx(2.0 * 3e9))
    # the update (forward and backward: 3 forwards' worth, one more under full recomputation)
    # and the old-policy log-probs (one forward)
    assert (dup["time.train_s"] - plain["time.train_s"]) * rate / tokens == pytest.approx(
        2.0 * 3e9 * forwards)


def test_no_duplicated_parameters_change_nothing(toy: Catalog) -> None:
    plain, zero = _toy(toy), _toy(toy, dup="0")
    assert zero["self.gpu_hours"] == pytest.approx(plain["self.gpu_hours"])
    # sampling is not the learner: its engines shard (or hold) the layers their own way
    assert _toy(toy, dup="3")["time.decode_s"] == pytest.approx(plain["time.decode_s"])


def test_a_run_states_them(toy: Catalog) -> None:
    runs = toy.of("run")
    found = backtest.query(runs["dup"], runs["dup"].stages[0])
    assert found[inputs.key("set.duplicated_params")] == "3.0"
    assert inputs.key("set.duplicated_params") not in backtest.query(
        runs["plain"], runs["plain"].stages[0])
    rows = {r.run: r for r in backtest_rows(toy)}
    assert rows["dup"].estimate_gpu_hours > rows["plain"].estimate_gpu_hours  # type: ignore[operator]


def test_the_offloaded_shard_holds_the_whole_layers(toy: Catalog) -> None:
    plain = toy_estimate(toy, oo="1")
    dup = toy_estimate(toy, oo="1", dup="3")
    # each GPU's shard: (N + duplicated) / GPUs, the whole layers sharded over data parallelism
    assert (dup["time.shard"] - plain["time.shard"]) * dup["time.train_gpus"] == (
        pytest.approx(3e9))
    assert dup["time.offload_s"] / plain["time.offload_s"] == pytest.approx(
        dup["time.shard"] / plain["time.shard"])
