"""A sampler that keeps decoding a batch's finished sequences as padding (issue 42): ``pb`` (a
run's ``padded_batches``: Hugging Face ``generate``) pays a full batch's iteration for the tail
past the mean length, where a sampler that lets them go decodes the longest nearly alone, and a
full batch's engine floor at every iteration.
Fixture catalog only (helpers_runs: Toy-8B on the big toy GPU)."""

from __future__ import annotations

import pytest
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator.estimate import backtest_rows


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    seqs = {"max_num_seqs": {"value": 8, "unit": "count", "status": "reported",
                             "source": "transformer_math", "locator": "fixture"}}
    return with_runs(catalog,
                     run("padded", 1.0, stage(**seqs), sequential_batches=True,
                         padded_batches=True),
                     run("released", 1.0, stage(**seqs), sequential_batches=True))


def _body_and_tail(e) -> float:
    """Decode time: the iterations before the tail at a batch's pace, the tail's at its own."""
    tail = e["time.tail_iterations"]
    return (e["time.iterations"] - tail) * e["time.iteration_s"] + tail * e["time.tail_iteration_s"]


def test_the_tail_costs_a_full_batch(toy: Catalog) -> None:
    padded = toy_estimate(toy, seqs="8", sb="1", pb="1", maxout="3000")
    released = toy_estimate(toy, seqs="8", sb="1", maxout="3000")
    assert padded["time.tail_iteration_s"] == pytest.approx(padded["time.iteration_s"])
    assert released["time.tail_iteration_s"] < released["time.iteration_s"]
    assert padded["time.tail_iterations"] == released["time.tail_iterations"] > 0
    for e in (padded, released):
        assert e["time.decode_s"] == pytest.approx(_body_and_tail(e))


def test_a_padded_batch_pays_the_full_batch_floor_at_every_iteration(toy: Catalog) -> None:
    """Without a tail the two differ by the engine's floor alone: a batch of 8 that lets its
    finished sequences go does 8 sequences' engine work an iteration (``timing._engine_floor``),
    a padded one a full batch's."""
    padded = toy_estimate(toy, seqs="8", sb="1", pb="1")
    released = toy_estimate(toy, seqs="8", sb="1")
    assert padded["time.tail_iterations"] == released["time.tail_iterations"] == 0
    assert padded["time.iteration_bytes"] == released["time.iteration_bytes"]
    assert padded["time.floor_s"] > released["time.floor_s"]
    for e in (padded, released):
        assert e["time.decode_s"] == pytest.approx(_body_and_tail(e))
    assert padded["time.decode_s"] > released["time.decode_s"]


def test_a_run_states_it(toy: Catalog) -> None:
    rows = {r.run: r for r in backtest_rows(toy)}
    assert rows["padded"].stages[0]["pb"] == "1" and "pb" not in rows["released"].stages[0]
    padded, released = (rows[r].estimate_gpu_hours for r in ("padded", "released"))
    assert padded is not None and released is not None and padded >= released



