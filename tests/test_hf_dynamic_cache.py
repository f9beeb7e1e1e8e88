"""A sampler that is Hugging Face ``generate`` over its DynamicCache with flash-attention-2 on a
padded batch (issue 42): ``hc`` (a run's ``hf_dynamic_cache``) moves every live sequence's KV
cache ``hf_cache_passes`` more times a decode step, and its per-layer host waits add the launch
floor to the GPU's work instead of taking the longer of the two. Fixture catalog only
(helpers_runs: Toy-8B on the big toy GPU)."""

from __future__ import annotations

import pytest
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator.estimate import backtest_rows
from tinkernomics.derived.calculator.timing import CONSTANTS

PASSES = next(c.value for c in CONSTANTS if c.key == "hf_cache_passes")
EFFICIENCY = next(c.value for c in CONSTANTS if c.key == "bandwidth_efficiency")


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    seqs = {"max_num_seqs": {"value": 8, "unit": "count", "status": "reported",
                             "source": "transformer_math", "locator": "fixture"}}
    return with_runs(catalog,
                     run("hf", 1.0, stage(**seqs), sequential_batches=True, padded_batches=True,
                         hf_dynamic_cache=True),
                     run("paged", 1.0, stage(**seqs), sequential_batches=True,
                         padded_batches=True))


def test_the_cache_moves_more_often(toy: Catalog) -> None:
    hf = toy_estimate(toy, seqs="8", sb="1", pb="1", hc="1")
    paged = toy_estimate(toy, seqs="8", sb="1", pb="1")
    # the toy run: 500 prompt tokens and 1,000 completion tokens, half of them decoded on average
    cache = hf["time.batch"] * (500 + 1000 / 2) * hf["mem.kv_per_token"] * hf["time.kv_copies"]
    assert hf["time.iteration_bytes"] - paged["time.iteration_bytes"] == pytest.approx(
        PASSES * cache)


def test_the_floor_and_the_gpu_work_add(toy: Catalog) -> None:
    hf = toy_estimate(toy, seqs="8", sb="1", pb="1", hc="1")
    paged = toy_estimate(toy, seqs="8", sb="1", pb="1")
    memory = hf["time.iteration_bytes"] / (hf["time.tp"] * 2e12 * EFFICIENCY)
    assert hf["time.iteration_s"] == pytest.approx(hf["time.floor_s"] + memory)
    assert paged["time.iteration_s"] == pytest.approx(max(
        paged["time.floor_s"], paged["time.iteration_bytes"] / (paged["time.tp"] * 2e12 *
                                                                 EFFICIENCY)))
    assert hf["time.decode_s"] > paged["time.decode_s"]


def test_a_run_states_it(toy: Catalog) -> None:
    rows = {r.run: r for r in backtest_rows(toy)}
    assert rows["hf"].stages[0]["hc"] == "1" and "hc" not in rows["paged"].stages[0]
    hf, paged = (rows[r].estimate_gpu_hours for r in ("hf", "paged"))
    assert hf is not None and paged is not None and hf > paged
