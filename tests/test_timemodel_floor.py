"""The engine's floor in the time model (derived/calculator/timing.py ``_engine_floor``) on toy
entries: a continuous-batching engine's fixed work an iteration grows with the sequences it
decodes, from ``TAIL_FLOOR`` (one) to ``DECODE_FLOOR`` at a full batch (``MAX_NUM_SEQS``); a
sampler that pads its batches pays the full-batch floor at any batch. Fails on the model before
it, which priced every iteration below the tail at the full-batch floor whatever its batch."""

from __future__ import annotations

import pytest
from helpers_runs import time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog

MANY = {"n": "1024", "G": "8", "in": "100", "out": "100"}
"""1,024 sequences a GPU, each short: memory would hold all of them at once."""

LAYERS = 32
"""Toy-8B's layers."""


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def _share(batch: float) -> float:
    """The floor besides the layers of an engine decoding ``batch`` sequences."""
    tail, full = time_constant("tail_floor"), time_constant("decode_floor")
    return tail + (full - tail) * min(1.0, batch / time_constant("max_num_seqs"))


def test_a_full_batch_pays_the_full_floor(toy: Catalog) -> None:
    full = toy_estimate(toy, **MANY)
    assert full["time.batch"] == time_constant("max_num_seqs")
    assert full["time.floor_s"] == pytest.approx(
        time_constant("decode_floor") + LAYERS * time_constant("graph_layer_s"))


@pytest.mark.parametrize("seqs", [1, 8, 64])
def test_a_smaller_batch_pays_its_share_of_the_engines_work(toy: Catalog, seqs: int) -> None:
    found = toy_estimate(toy, **MANY, seqs=str(seqs))
    assert found["time.batch"] == seqs
    assert found["time.floor_s"] == pytest.approx(
        _share(seqs) + LAYERS * time_constant("graph_layer_s"))
    assert found["time.floor_s"] < toy_estimate(toy, **MANY)["time.floor_s"]


def test_one_sequence_pays_the_tails_floor(toy: Catalog) -> None:
    alone = toy_estimate(toy, **MANY, seqs="1")
    per_sequence = (time_constant("decode_floor") - time_constant("tail_floor")) / (
        time_constant("max_num_seqs"))
    assert alone["time.floor_s"] - per_sequence == pytest.approx(
        time_constant("tail_floor") + LAYERS * time_constant("graph_layer_s"))


def test_a_batch_above_the_default_cap_pays_no_more_than_the_full_floor(toy: Catalog) -> None:
    wide = toy_estimate(toy, **MANY, seqs="1024")
    assert wide["time.batch"] > time_constant("max_num_seqs")
    assert wide["time.floor_s"] == pytest.approx(toy_estimate(toy, **MANY)["time.floor_s"])


def test_a_padded_batch_pays_the_full_floor_at_any_batch(toy: Catalog) -> None:
    padded = toy_estimate(toy, **MANY, seqs="8", pb="1")
    streamed = toy_estimate(toy, **MANY, seqs="8")
    assert padded["time.floor_s"] == pytest.approx(
        time_constant("decode_floor") + LAYERS * time_constant("graph_layer_s"))
    assert padded["time.floor_s"] > streamed["time.floor_s"]


def test_fewer_sequences_a_floor_bound_iteration_decode_for_less(toy: Catalog) -> None:
    # 8 sequences an engine in 8 waves against 64 in one: the small batch's iterations are
    # shorter but it needs more of them; each iteration is cheaper than a full batch's
    small, large = (toy_estimate(toy, **MANY, seqs=s) for s in ("8", "64"))
    assert small["time.iteration_s"] < large["time.iteration_s"]
