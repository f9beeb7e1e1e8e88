"""A sampler without continuous batching (issue 42): ``sb`` (a run's ``sequential_batches``)
generates each engine's share in sequential rounds of its batch cap, each returning with its
longest completion, so the step's decode shrinks with the GPUs (NeMo-Aligner's PPO). Fixture
catalog only (helpers_runs: Toy-8B on the big toy GPU)."""

from __future__ import annotations

import math

import pytest
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator.estimate import backtest_rows


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    seqs = {"max_num_seqs": {"value": 8, "unit": "count", "status": "reported",
                             "source": "transformer_math", "locator": "fixture"}}
    return with_runs(catalog, run("rounds", 1.0, stage(**seqs), sequential_batches=True),
                     run("continuous", 1.0, stage(**seqs)))


def test_each_round_waits_for_its_longest(toy: Catalog) -> None:
    e = toy_estimate(toy, seqs="8", sb="1", maxout="3000")
    rounds = math.ceil(e["time.per_replica"] / 8)
    assert e["time.batch"] == 8 and e["time.rounds"] == rounds > 1
    assert e["time.tail_iterations"] == pytest.approx(rounds * 2000)
    assert e["time.iterations"] == pytest.approx(rounds * 1000 + rounds * 2000)
    continuous = toy_estimate(toy, seqs="8", maxout="3000")
    assert continuous["time.tail_iterations"] == pytest.approx(2000)
    assert e["time.decode_s"] > continuous["time.decode_s"]


def test_rounds_fall_with_the_gpus(toy: Catalog) -> None:
    few = toy_estimate(toy, seqs="8", sb="1", gpus="8")
    many = toy_estimate(toy, seqs="8", sb="1", gpus="32")
    assert many["time.rounds"] < few["time.rounds"]
    assert many["time.decode_s"] < few["time.decode_s"] / 2


def test_a_run_states_it(toy: Catalog) -> None:
    rows = {r.run: r for r in backtest_rows(toy)}
    assert rows["rounds"].stages[0]["sb"] == "1" and "sb" not in rows["continuous"].stages[0]
    rounds, continuous = (rows[r].estimate_gpu_hours for r in ("rounds", "continuous"))
    assert rounds is not None and continuous is not None and rounds > continuous


def test_a_round_of_one_sequence_has_no_tail(toy: Catalog) -> None:
    # one completion at a time (R1-V's generate): each round ends at its own end, the mean
    one = toy_estimate(toy, seqs="1", sb="1", maxout="3000")
    assert one["time.batch"] == 1 and one["time.rounds"] == one["time.per_replica"] > 1
    assert one["time.tail_iterations"] == 0
    assert one["time.iterations"] == pytest.approx(one["time.rounds"] * 1000)
    # two a round: a round waits for its longer completion, taken at the cap
    two = toy_estimate(toy, seqs="2", sb="1", maxout="3000")
    assert two["time.tail_iterations"] == pytest.approx(two["time.rounds"] * 2000)
    # a step of one sequence under continuous batching likewise ends at the mean
    alone = toy_estimate(toy, n="1", G="1", gpus="1", maxout="3000")
    assert alone["time.sequences"] == 1 and alone["time.tail_iterations"] == 0
