"""Test helpers for the time model and the back-test: the toy catalog (helpers_calc) plus a
toy 8B model with architecture figures and toy published runs.

Toy-8B: 8e9 parameters, 32 layers, 32 heads of 128, 8 KV heads (131,072 bytes of KV a token),
hidden 4,096, vocabulary 128,000; the toy GPU does 1,000 TFLOP/s with 10 GB at 1 TB/s, so
runs use ``gpu`` TOY_BIG (80 GB, 2 TB/s). A toy run's figures are round and stated.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from helpers_calc import _fig, with_toys
from helpers_catalog import copy_valid

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.models.runs import PublishedRun
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.derived.calculator import timing
from tinkernomics.derived.calculator.estimate import Estimate, estimate

TOY_8B = "toy-8b"
TOY_BIG = "toy-big-gpu"


def _shape(**values: float) -> dict[str, Any]:
    return {k: {**_fig(v, "count"), "locator": "fixture"} for k, v in values.items()}


ENTRIES: dict[str, dict[str, Any]] = {
    "model": {
        "id": TOY_8B, "name": "Toy-8B", "family": "Toy", "architecture": "dense",
        "total_params": _fig(8, "billion_parameters"), "d_model": _fig(4096, "count"),
        "shape": _shape(layers=32, attention_heads=32, kv_heads=8, head_dim=128,
                        mlp_size=14336, vocab_size=128000),
    },
    "hardware": {
        "id": TOY_BIG, "name": "Toy big GPU", "bf16_dense_tflops": _fig(1000, "tflops"),
        "memory_gb": _fig(80, "gb"), "bandwidth_tb_s": _fig(2, "tb_per_second"),
        "rental_prices": [{"provider": "Toy cloud", "date": "2000-01",
                           "price": _fig(2, "usd_per_gpu_hour")}],
    },
}
MODELS: dict[str, type[m.StrictModel]] = {"model": m.LanguageModel, "hardware": m.Hardware,
                                          "run": PublishedRun}


def stage(**extra: Any) -> dict[str, Any]:
    """One stage: 10 steps × 16 prompts × G = 8, 500 + 1,000 tokens (cap 2,000), 8 GPUs."""
    found = {"steps": _fig(10, "steps"), "prompts": _fig(16, "count"), "group": _fig(8, "count"),
             "prompt_tokens": _fig(500, "tokens"), "mean_completion_tokens": _fig(1000, "tokens"),
             "max_completion_tokens": _fig(2000, "tokens"), "gpus": _fig(8, "gpus")}
    return {**found, **extra}


def run(rid: str, actual: float, *stages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": rid, "name": rid, "model": TOY_8B, "algorithm": "grpo", "hardware": TOY_BIG,
            "framework": "toy", "mode": "sync", "colocated": True,
            "stages": list(stages) or [stage()], "actual_gpu_hours": _fig(actual, "gpu_hours"),
            **extra}


def add(catalog: Catalog, kind: str, data: dict[str, Any]) -> None:
    model = MODELS[kind].model_validate_json(json.dumps(data))
    catalog.entries[kind] = {**catalog.entries.get(kind, {}),
                             data["id"]: Entry(KINDS_BY_NAME[kind], data["id"], model,
                                               YamlDoc(path=f"toy/{data['id']}"))}


TOY_RUN = {"m": TOY_8B, "hw": TOY_BIG, "a": "grpo", "ft": "full", "steps": "10", "n": "64",
           "G": "8", "K": "1", "in": "500", "out": "1000", "gpus": "8"}
"""The time-model tests' run: GRPO, full fine-tuning of Toy-8B on 8 big toy GPUs, 10 steps of
64 prompts x 8, 500 tokens in and 1,000 out; a test overrides what it varies."""


def toy_estimate(catalog: Catalog, **extra: str) -> Estimate:
    """The estimate of ``TOY_RUN`` with ``extra`` query values over it."""
    return estimate(catalog, {**TOY_RUN, **extra})


def time_constant(key: str) -> float:
    """A constant of the time model by key (its value today: tests read, never restate it)."""
    return next(c.value for c in timing.CONSTANTS if c.key == key)


def with_runs(catalog: Catalog, *runs: dict[str, Any]) -> Catalog:
    """The toy catalog plus Toy-8B, the big toy GPU and exactly ``runs`` (the real catalog's
    runs removed: a test never reads today's runs)."""
    toy = with_toys(catalog)
    toy.entries = copy.copy(toy.entries)
    toy.entries["run"] = {}
    for kind, data in ENTRIES.items():
        add(toy, kind, data)
    for data in runs:
        add(toy, "run", data)
    return toy


# A run entry as a contributor writes it (catalog/runs/<id>.yaml), for validation tests:
# format with model, cap (the completion cap), src (every figure's provenance) and extra (YAML
# lines before actual_gpu_hours, e.g. readings).
SRC = "status: reported, source: tinker_docs, locator: 'here, \"the words\"'"
RUN_YAML = """id: fx-run
name: Fixture run
model: {model}
algorithm: grpo
hardware: h100
framework: toy
mode: sync
colocated: true
stages:
  - steps: {{value: 10, unit: steps, {src}}}
    prompts: {{value: 8, unit: count, {src}}}
    group: {{value: 8, unit: count, {src}}}
    prompt_tokens: {{value: 100, unit: tokens, {src}}}
    mean_completion_tokens: {{value: 500, unit: tokens, {src}}}
    max_completion_tokens: {{value: {cap}, unit: tokens, {src}}}
    gpus: {{value: 8, unit: gpus, {src}}}
{extra}actual_gpu_hours: {{value: 10, unit: gpu_hours, {src}}}
"""


def check_run_file(tmp_path: Path, text: str, says: str | None) -> None:
    """Validate the fixture catalog plus ``text`` as ``runs/fx-run.yaml``: no problem when
    ``says`` is None, else one that says ``says`` and names the file."""
    root = copy_valid(tmp_path)
    (root / "runs").mkdir(exist_ok=True)
    (root / "runs" / "fx-run.yaml").write_text(text, encoding="utf-8")
    _, problems = load_catalog(root)
    found = "\n".join(p.format() for p in problems)
    if says is None:
        assert problems == [], found
    else:
        assert says in found and "runs/fx-run.yaml:" in found, found
