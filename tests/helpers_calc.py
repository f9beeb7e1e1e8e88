"""Test helpers for the calculator: the real catalog plus a toy model, price list and GPU.

The toy entries have round numbers (a 1B dense model of 10 layers of 10 heads of 100, $1/$2/$3
per million tokens, a 1,000 TFLOP/s GPU at $2 an hour; a 4B dense teacher at $1.50/$4/$6 with
no architecture figures, an MoE of 100B with 1B active) so a unit test can show its arithmetic
in plain sight, while the formulas, algorithms and conversions stay the real catalog's.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.derived.calculator.estimate import Estimate
from tinkernomics.site.calculator.feature import shown_number

REPO_ROOT = Path(__file__).resolve().parent.parent

TOY_MODEL = "toy-1b"
TOY_PRICES = "toy-prices"
TOY_GPU = "toy-gpu"
TOY_TEACHER = "toy-4b"
"""A dense 4B model with its own price row: a teacher of a different size than the student."""
TOY_MOE = "toy-moe"
"""An MoE model, 100B total and 1B active parameters (not priced)."""


def shown_numbers(catalog: Catalog, e: Estimate) -> dict[str, str]:
    """Every shown number of an estimate as the page shows it (``data-key`` -> text)."""
    return {key: shown_number(catalog, e, key) for key in e.numbers}


@functools.cache
def real_catalog() -> Catalog:
    """The repository's catalog (checked with docs/, as the build does), loaded once per
    process and shared (the session's ``catalog`` fixture is this one): read-only, copy it
    (``with_toys``) before adding entries. A load costs a fifth of a CPU second."""
    return load_valid_catalog(REPO_ROOT / "catalog", docs_dir=REPO_ROOT / "docs")


def _fig(value: float, unit: str, **extra: Any) -> dict[str, Any]:
    return {"value": value, "unit": unit, "status": "reported", "source": "transformer_math",
            **extra}


TOY_ENTRIES: dict[str, dict[str, Any]] = {
    "model": {
        "id": TOY_MODEL, "name": "Toy-1B", "family": "Toy", "architecture": "dense",
        "total_params": _fig(1, "billion_parameters"), "d_model": _fig(1000, "count"),
        # what the time model reads (KV cache and attention): 10 layers of 10 heads of 100
        "shape": {k: _fig(v, "count", locator="fixture") for k, v in
                  {"layers": 10, "attention_heads": 10, "kv_heads": 10, "head_dim": 100}.items()},
    },
    "teacher": {
        "id": TOY_TEACHER, "name": "Toy-4B", "family": "Toy", "architecture": "dense",
        "total_params": _fig(4, "billion_parameters"), "d_model": _fig(2000, "count"),
    },
    "moe": {
        "id": TOY_MOE, "name": "Toy-MoE", "family": "Toy", "architecture": "moe",
        "total_params": _fig(100, "billion_parameters"),
        "active_params": _fig(1, "billion_parameters"),
    },
    "price_list": {
        "id": TOY_PRICES, "effective": "2000-01-01", "title": "Toy prices", "status": "reported",
        "source": "transformer_math",
        "storage_usd_per_gb_month": _fig(0.1, "usd_per_gb_month"),
        "cached_prefill_discount": _fig(50, "percent"),
        "rows": [{"model": TOY_MODEL, "prefill": 1.0, "sample": 2.0, "train": 3.0},
                 {"model": TOY_TEACHER, "prefill": 1.5, "sample": 4.0, "train": 6.0}],
    },
    "hardware": {
        "id": TOY_GPU, "name": "Toy GPU", "bf16_dense_tflops": _fig(1000, "tflops"),
        "memory_gb": _fig(10, "gb"), "bandwidth_tb_s": _fig(1, "tb_per_second"),
        "rental_prices": [{"provider": "Toy cloud", "date": "2000-01",
                           "price": _fig(2, "usd_per_gpu_hour")}],
    },
}

_MODELS: dict[str, tuple[str, type[m.StrictModel]]] = {
    "model": ("model", m.LanguageModel), "teacher": ("model", m.LanguageModel),
    "moe": ("model", m.LanguageModel), "price_list": ("price_list", m.PriceList),
    "hardware": ("hardware", m.Hardware),
}
"""Each toy entry's kind and model."""


def with_toys(catalog: Catalog) -> Catalog:
    """A copy of ``catalog`` with the toy model, price list and GPU added."""
    toy = Catalog(root=catalog.root, entries=copy.copy(catalog.entries))
    for name, data in TOY_ENTRIES.items():
        kind, cls = _MODELS[name]
        model = cls.model_validate_json(json.dumps(data))
        toy.entries[kind] = {**toy.entries.get(kind, {}),
                             data["id"]: Entry(KINDS_BY_NAME[kind], data["id"], model,
                                               YamlDoc(path=f"toy/{data['id']}"))}
    return toy


def cost_lines(catalog: Catalog, e: Any, group: str) -> dict[str, Any]:
    """The cost lines of one bill (``tinker`` or ``self``) that apply, by key, as namespaces:
    ``usd``, ``phase``, and for ``self`` also ``flops``, ``gpu_hours``, ``flops_per_token``,
    ``formula`` (the catalog formula that priced it)."""
    from types import SimpleNamespace

    from tinkernomics.derived.calculator.estimate import graph_for
    from tinkernomics.derived.calculator.ids import FLOPS_REFERENCE, FLOPS_ROLLOUT

    found = {}
    for line in graph_for(catalog).lines:
        if line.group != group:
            continue
        k = f"{group}.{line.key}"
        if group == "tinker" and e[k] is not None:
            found[line.key] = SimpleNamespace(key=line.key, usd=e[k], phase=line.phase,
                                              rate=e[f"{k}.rate"])
        elif group == "self" and e[f"{k}.usd"] is not None:
            formula = {"rollout": FLOPS_ROLLOUT, "reference": FLOPS_REFERENCE}.get(
                line.phase, e.resolved.names["train_formula"])
            found[line.key] = SimpleNamespace(
                key=line.key, phase=line.phase, flops=e[f"{k}.flops"], usd=e[f"{k}.usd"],
                gpu_hours=e[f"{k}.gpu_hours"], flops_per_token=e[f"{k}.per_token"],
                formula=formula)
    return found


def ways_environment(catalog: Catalog, est: Estimate) -> dict[str, Any]:
    """The inputs ``waysgraph``'s quantities read besides the estimate's (``input_names``), as
    calculator.js sets them off the tables the page ships: the pins, the model's flags, every
    GPU's figures and the chosen price list's date."""
    from tinkernomics.derived.calculator import inputs, waysgraph

    c = est.choice
    pins = {f"pin.{suffix}": 1.0 if wid in c.ways else 0.0
            for wid, suffix in inputs.way_options(catalog)}
    return {**pins, "pin.any": 1.0 if c.ways else 0.0,
            **waysgraph.model_flags(catalog, c.model), **waysgraph.gpu_inputs(catalog, c.hardware),
            "price.effective": float(catalog.price_lists[c.price_list].effective.toordinal())}


def evaluate_ways(catalog: Catalog, query: Mapping[str, str],
                  today: dt.date) -> tuple[Estimate, dict[str, float | None]]:
    """A link's estimate and every value of the extended graph (as the page computes them)."""
    from tinkernomics.derived.calculator import waysgraph
    from tinkernomics.derived.calculator.estimate import estimate
    from tinkernomics.derived.calculator.graph import evaluate

    est = estimate(catalog, query)
    env = {**est.env, **ways_environment(catalog, est)}
    return est, evaluate(waysgraph.graph(catalog, today), env)
