"""A hybrid model's fixed per-sequence state (issue 42, Gated DeltaNet): where the model gives
``fixed_state_size``, each sequence holds fixed-state layers × size × ``STATE_BYTES`` (the
memory counts it with the KV cache, and the sampler's batch makes room for it), and every decode
iteration reads and writes it for each live sequence. Without the figure nothing changes and the
layers stay uncounted. Fixture catalog only: toy hybrids of Toy-8B's shape on the big toy GPU
(helpers_runs)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_calc import _fig
from helpers_runs import TOY_BIG, add, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import memory

HYBRID, UNSIZED = "toy-hybrid", "toy-hybrid-unsized"
STATE_LAYERS, SIZE = 24, 2_000_000


def _shape(**values: float) -> dict[str, Any]:
    return {k: {**_fig(v, "count"), "locator": "fixture"} for k, v in values.items()}


def _model(mid: str, **extra: float) -> dict[str, Any]:
    return {"id": mid, "name": mid, "family": "Toy", "architecture": "dense",
            "total_params": _fig(8, "billion_parameters"), "d_model": _fig(4096, "count"),
            "shape": _shape(layers=32, attention_heads=32, kv_heads=8, head_dim=128,
                            mlp_size=14336, vocab_size=128000, kv_layers=8,
                            fixed_state_layers=STATE_LAYERS, **extra)}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    found = with_runs(catalog)
    add(found, "model", _model(HYBRID, fixed_state_size=SIZE))
    add(found, "model", _model(UNSIZED))
    return found


KEYS = ("mem.state_per_sequence", "mem.uncounted_layers", "mem.kv_cache",
        "mem.decode_sequences", "time.batch", "time.iteration_bytes", "time.tail_iteration_s",
        "time.tp", "time.kv_room", "mem.kv_per_token", "self.gpu_hours")


def _run(toy: Catalog, model: str, **extra: str) -> dict[str, Any]:
    e = toy_estimate(toy, m=model, hw=TOY_BIG, **extra)
    return {k: e[k] for k in KEYS}


def test_a_sequence_holds_its_layers_state(toy: Catalog) -> None:
    sized, unsized = _run(toy, HYBRID), _run(toy, UNSIZED)
    state = STATE_LAYERS * SIZE * memory.STATE_BYTES
    assert sized["mem.state_per_sequence"] == pytest.approx(state)
    assert sized["mem.uncounted_layers"] == 0
    assert unsized["mem.uncounted_layers"] == STATE_LAYERS
    assert unsized["mem.state_per_sequence"] is None
    # the memory reserves it for each sequence it sizes the cache for
    assert sized["mem.kv_cache"] - unsized["mem.kv_cache"] == pytest.approx(
        state * sized["mem.decode_sequences"])


def test_each_iteration_reads_and_writes_every_live_state(toy: Catalog) -> None:
    # 8 prompts × 8: a batch every engine holds with or without the state
    sized, unsized = _run(toy, HYBRID, n="8"), _run(toy, UNSIZED, n="8")
    assert sized["time.batch"] == unsized["time.batch"]
    state = sized["mem.state_per_sequence"]
    assert sized["time.iteration_bytes"] - unsized["time.iteration_bytes"] == pytest.approx(
        2.0 * state * sized["time.batch"])
    assert sized["time.tail_iteration_s"] >= unsized["time.tail_iteration_s"]
    assert sized["self.gpu_hours"] > unsized["self.gpu_hours"]


def test_the_batch_makes_room_for_the_state(toy: Catalog) -> None:
    # many sequences: the engine's free memory caps the batch, and the state takes its share
    sized, unsized = _run(toy, HYBRID, n="4096"), _run(toy, UNSIZED, n="4096")
    assert sized["time.batch"] < unsized["time.batch"]
    per_sequence = sized["time.kv_room"] / sized["time.batch"]
    assert per_sequence > sized["mem.state_per_sequence"]
