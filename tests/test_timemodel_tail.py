"""A synchronous step's tail in the time model (derived/calculator/timing.py) on toy entries:
past the mean length the longest completions decode almost alone, so each tail iteration reads
the weights once (and one sequence's cache) instead of a full batch's caches, at the tail's own
floor. Fails on the model before it, which timed every tail iteration as a full-batch one (and
the per-layer floor's test on the one before graph_layer_s, whose floor ignored the depth)."""

from __future__ import annotations

import pytest
from helpers_runs import time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog

BYTES_PER_S = 2e12 * time_constant("bandwidth_efficiency")
"""The big toy GPU's 2 TB/s at the decode bandwidth efficiency."""


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def test_the_tail_decodes_one_sequence_at_the_weights_read_time(toy: Catalog) -> None:
    e = toy_estimate(toy, maxout="8000")
    # Toy-8B's bf16 weights and one 500 + 1,000-token cache, read on one GPU
    weights_read = (16e9 + 131_072 * 1_500) / BYTES_PER_S
    assert e["time.tail_iteration_s"] == pytest.approx(weights_read)
    assert weights_read > time_constant("tail_floor")
    # a full batch's iteration reads every live sequence's cache besides: it lasts longer
    assert e["time.iteration_s"] > e["time.tail_iteration_s"]
    assert e["time.tail_iterations"] == 8000 - 1000


def test_decode_adds_the_tail_at_its_own_iteration_time(toy: Catalog) -> None:
    mean, capped = toy_estimate(toy), toy_estimate(toy, maxout="8000")
    added = capped["time.decode_s"] - mean["time.decode_s"]
    assert added == pytest.approx(7000 * capped["time.tail_iteration_s"])
    assert added < 7000 * capped["time.iteration_s"]


def test_a_streaming_asynchronous_step_has_no_tail(toy: Catalog) -> None:
    assert toy_estimate(toy, maxout="8000", **{"async": "1"})["time.tail_iterations"] == 0


def test_a_wide_engines_tail_is_held_up_by_the_engine_floor(toy: Catalog) -> None:
    # an engine over 8 GPUs reads the weights in under 1.5 ms: the floor times the tail,
    # the engine's fixed work and each of Toy-8B's 32 layers
    wide = toy_estimate(toy, maxout="8000", rtp="8")
    assert (16e9 + 131_072 * 1_500) / (8 * BYTES_PER_S) < 0.0015
    floor = time_constant("tail_floor") + 32 * time_constant("graph_layer_s")
    assert wide["time.tail_iteration_s"] == pytest.approx(floor)
    assert floor > 0.0015


def test_a_deeper_models_tail_floor_is_longer(toy: Catalog) -> None:
    # the same weights in twice the layers: twice the kernels an iteration, so a longer floor
    shallow = toy_estimate(toy, maxout="8000", rtp="8")
    deep = toy_estimate(toy, maxout="8000", rtp="8", x_layers="64")
    assert deep["time.tail_iteration_s"] - shallow["time.tail_iteration_s"] == pytest.approx(
        32 * time_constant("graph_layer_s"))
    assert deep["time.decode_s"] > shallow["time.decode_s"]
