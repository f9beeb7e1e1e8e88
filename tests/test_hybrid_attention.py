"""A hybrid model's attention FLOPs (issue 42): training charges attention's growth with the
sequence for the layers that attend over it (``kv_layers``) only; linear-attention and Mamba
layers mix tokens in time linear in the sequence, inside the parameters' FLOPs. A model that
states no ``kv_layers`` is all attention, as before. Fixture catalog only: toy dense models of
Toy-8B's shape on the big toy GPU (helpers_runs)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_calc import _fig
from helpers_runs import TOY_BIG, add, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog

LAYERS = 32


def _model(mid: str, **extra: float) -> dict[str, Any]:
    shape = dict(layers=LAYERS, attention_heads=32, kv_heads=8, head_dim=128, mlp_size=14336,
                 vocab_size=128000, **extra)
    return {"id": mid, "name": mid, "family": "Toy", "architecture": "dense",
            "total_params": _fig(8, "billion_parameters"), "d_model": _fig(4096, "count"),
            "shape": {k: {**_fig(v, "count"), "locator": "fixture"} for k, v in shape.items()}}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    found = with_runs(catalog)
    add(found, "model", _model("toy-all-attention"))
    add(found, "model", _model(f"toy-kv-{LAYERS}", kv_layers=LAYERS))
    for kv in (16, 8):
        add(found, "model", _model(f"toy-kv-{kv}", kv_layers=kv, fixed_state_layers=LAYERS - kv))
    return found


def _train_s(toy: Catalog, model: str) -> float:
    return float(toy_estimate(toy, m=model, hw=TOY_BIG, ct="8000")["time.train_s"])


def test_only_attending_layers_pay_attention_growth(toy: Catalog) -> None:
    full, half, quarter = (_train_s(toy, f"toy-kv-{kv}") for kv in (LAYERS, 16, 8))
    # every layer attending is the model without the figure
    assert full == pytest.approx(_train_s(toy, "toy-all-attention"))
    assert full > half > quarter
    # attention's share is linear in the attending layers: 32 - 16 layers is twice 16 - 8
    assert full - half == pytest.approx(2.0 * (half - quarter))
