"""The calculator's example runs (pipeline step 6, data for ``calculator.feature``).

A preset is a label and a link's settings; every figure comes from the catalog. They name
catalog entries by id (``ID_KINDS``, listed by ``preset_needs``), so ``tinkernomics.site.needs``
lists those ids and ``validate`` reports a deleted or renamed one. A leaf module: the needs list
reads it without importing the feature (which imports the build).
"""

from __future__ import annotations

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.rules import Need
from tinkernomics.derived.calculator import inputs

RUNS: tuple[tuple[str, dict[str, str]], ...] = (
    # (label, settings by declared name: inputs.key gives each its link key). Settings only:
    # every figure comes from the catalog. The first is the default (inputs.DEFAULT_RUN: the
    # empty link, and the base of any link that names no algorithm).
    ("GRPO on Qwen3-8B: 100 steps, 64 prompts × G=16, 512 + 2,048 tokens",
     dict(inputs.DEFAULT_RUN)),
    ("Fireworks' multi-turn episode: Kimi K2.6 (128K), 1,000 episodes × 8 turns",
     {"algorithm": "grpo", "model": "kimi-k2.6", "variant": ":peft:131072", "hardware": "gb200",
      "run.steps": "1", "run.prompts": "1000", "run.G": "1", "run.K": "1", "run.T": "8",
      "run.C0": "8000", "run.delta": "12000", "run.out": "2000", "score_reference": "0"}),
    # Models the newest price list carries (issue 44): no preset opens on a superseded list.
    ("On-policy distillation: Qwen3-8B student, Qwen3.6-27B teacher, 1,024 prompts × G=4",
     {"algorithm": "opd", "model": "qwen3-8b", "teacher": "qwen3.6-27b", "run.steps": "100",
      "run.prompts": "1024", "run.G": "4", "set.rank": "128"}),
    ("PPO with full fine-tuning on Qwen3-8B (not offered on Tinker: LoRA only)",
     {"algorithm": "ppo", "model": "qwen3-8b", "lora": inputs.FULL}),
)
ID_KINDS = {"algorithm": "algorithm", "model": "model", "teacher": "model",
            "hardware": "hardware", "price_list": "price_list"}
"""The settings that name a catalog entry, with its kind."""


def presets() -> list[tuple[str, dict[str, str]]]:
    """(label, link query) of every preset, in order."""
    return [(label, inputs.query(run)) for label, run in RUNS]


def preset_needs() -> list[Need]:
    """(kind, id, which preset) for every catalog entry a preset names."""
    return [(kind, run[name], f"the calculator's preset {label!r}")
            for label, run in RUNS for name, kind in ID_KINDS.items() if name in run]


def check_presets(catalog: Catalog) -> None:
    """A preset naming an id the catalog lacks would silently fall back: fail the build. (A
    site build has refused such a catalog already, ``site.needs``; this guards other callers.)"""
    for kind, entry_id, preset in preset_needs():
        if entry_id not in catalog.ids(kind):
            raise ValueError(f"{preset}: unknown {kind} id {entry_id!r}")


def preset_queries(catalog: Catalog) -> list[dict[str, str]]:
    """Presets with the price list pinned (the newest, unless the preset names one)."""
    latest = inputs.latest_price_list(catalog)
    return [{inputs.key("price_list"): latest, **query} for _, query in presets()]
