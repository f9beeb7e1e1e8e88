"""The calculator's example runs (pipeline step 6, data for ``calculator.feature``).

A preset is a label and a link's settings; every figure comes from the catalog. They name
catalog entries by id (``ID_KEYS``, listed by ``preset_needs``), so ``tinkernomics.site.needs``
lists those ids and ``validate`` reports a deleted or renamed one. A leaf module: the needs list
reads it without importing the feature (which imports the build).
"""

from __future__ import annotations

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.rules import Need
from tinkernomics.derived.calculator import inputs

PRESETS: tuple[tuple[str, dict[str, str]], ...] = (
    # (label, query). Settings only: every figure comes from the catalog. The first is the default
    # (inputs.DEFAULT_QUERY: the empty link, and the base of any link that names no algorithm).
    ("GRPO on Qwen3-8B: 100 steps, 64 prompts × G=16, 512 + 2,048 tokens",
     dict(inputs.DEFAULT_QUERY)),
    ("Fireworks' multi-turn episode: Kimi K2.6 (128K), 1,000 episodes × 8 turns",
     {"a": "grpo", "m": "kimi-k2.6", "v": ":peft:131072", "hw": "gb200", "steps": "1",
      "n": "1000", "G": "1", "K": "1", "T": "8", "in": "8000", "d": "12000", "out": "2000",
      "ref": "0"}),
    # Models the newest price list carries (issue 44): no preset opens on a superseded list.
    ("On-policy distillation: Qwen3-8B student, Qwen3.6-27B teacher, 1,024 prompts × G=4",
     {"a": "opd", "m": "qwen3-8b", "tm": "qwen3.6-27b", "steps": "100",
      "n": "1024", "G": "4", "r": "128"}),
    ("PPO with full fine-tuning on Qwen3-8B (not offered on Tinker: LoRA only)",
     {"a": "ppo", "m": "qwen3-8b", "ft": "full"}),
)
ID_KEYS = {"a": "algorithm", "m": "model", "tm": "model", "hw": "hardware", "p": "price_list"}


def preset_needs() -> list[Need]:
    """(kind, id, which preset) for every catalog entry a preset names."""
    return [(kind, query[key], f"the calculator's preset {label!r}")
            for label, query in PRESETS for key, kind in ID_KEYS.items() if key in query]


def check_presets(catalog: Catalog) -> None:
    """A preset naming an id the catalog lacks would silently fall back: fail the build. (A
    site build has refused such a catalog already, ``site.needs``; this guards other callers.)"""
    for kind, entry_id, preset in preset_needs():
        if entry_id not in catalog.ids(kind):
            raise ValueError(f"{preset}: unknown {kind} id {entry_id!r}")


def preset_queries(catalog: Catalog) -> list[dict[str, str]]:
    """Presets with the price list pinned (the newest, unless the preset names one)."""
    latest = inputs.latest_price_list(catalog)
    return [{"p": latest, **query} for _, query in PRESETS]
