"""Calculator inputs (pipeline step 5): a calculator link's query -> the graph's input values.

A link carries its settings in the query string (``?m=qwen3-8b&a=grpo&G=16``). ``resolve``
reads it by the rules below (unknown ids and invalid numbers fall back to the catalog's
defaults; numbers are clamped into their range; a query that names no algorithm starts from
the default run, ``DEFAULT_QUERY``) and looks up the catalog entries it names;
``environment`` flattens the choice into the named input values the graph reads (``INPUTS``).
``calculator.js`` applies the same rules to the same keys with the ranges shipped in the page.

Nothing here computes a cost: lookups and flags only. An input the catalog does not hold stays
missing (``None``) and every quantity that reads it is missing too: an algorithm without a
typical G is never priced at G = 1 behind the reader's back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Unit
from tinkernomics.derived.calculator import ids

DEFAULT_MODEL = "qwen3-8b"
DEFAULT_ALGORITHM = "grpo"
DEFAULT_HARDWARE = "h100"
DEFAULT_TARGET_PERCENT = 90.0
"""Default target: the compute at which the ScaleRL fit has made 90% of its gain."""
DEFAULT_QUERY: dict[str, str] = {
    "a": DEFAULT_ALGORITHM, "m": DEFAULT_MODEL, "hw": DEFAULT_HARDWARE, "steps": "100",
    "n": "64", "G": "16", "K": "1", "in": "512", "out": "2048",
}
"""The default run: the calculator issue's example (GRPO on Qwen3-8B, 100 steps, 64 prompts ×
G = 16, 512 + 2,048 tokens), the first preset. A link that names no algorithm (``a``) starts
from it, and each setting the link gives replaces the example's: the empty link is the example
itself. Its G = 16 is a setting of the example, not GRPO's typical G; a link that names an
algorithm takes G and K from that algorithm's entry unless it sets them. The price list is the
newest, as for any link that names none. ``calculator.js`` reads the same query from the page's
defaults."""

INT_PATTERN = r"[0-9]{1,12}"
NUM_PATTERN = r"[0-9]{1,12}(\.[0-9]{1,12})?"
"""Whole and decimal query numbers, matched against the whole value (no signs, no exponents)."""
_PATTERNS = {"int": re.compile(INT_PATTERN), "num": re.compile(NUM_PATTERN)}

SPEC: dict[str, dict[str, Any]] = {
    # query key -> input name, kind, range, default (None: from the algorithm or missing).
    "steps": {"name": "run.steps", "kind": "int", "lo": 0, "hi": 1e7, "default": 100.0},
    "n": {"name": "run.prompts", "kind": "int", "lo": 0, "hi": 1e7, "default": 64.0},
    "G": {"name": "run.G", "kind": "int", "lo": 1, "hi": 1e5, "default": None},
    "K": {"name": "run.K", "kind": "int", "lo": 1, "hi": 1e3, "default": None},
    "in": {"name": "run.C0", "kind": "int", "lo": 0, "hi": 1e8, "default": 512.0},
    "out": {"name": "run.out", "kind": "int", "lo": 0, "hi": 1e8, "default": 2048.0},
    "T": {"name": "run.T", "kind": "int", "lo": 1, "hi": 1e4, "default": 1.0},
    "d": {"name": "run.delta", "kind": "int", "lo": 0, "hi": 1e8, "default": 0.0},
    "ck": {"name": "run.checkpoints", "kind": "int", "lo": 0, "hi": 1e6, "default": 1.0},
    "mo": {"name": "run.months", "kind": "num", "lo": 0, "hi": 1e3, "default": 1.0},
    "tf": {"name": "run.target_percent", "kind": "num", "lo": 1, "hi": 99,
           "default": DEFAULT_TARGET_PERCENT},
    "r": {"name": "set.rank", "kind": "int", "lo": 1, "hi": 1e5, "default": None},
    "D": {"name": "set.d_model", "kind": "int", "lo": 1, "hi": 1e6, "default": None},
    "mt": {"name": "set.mfu_train", "kind": "num", "lo": 0.01, "hi": 100, "default": None},
    "mp": {"name": "set.mfu_prefill", "kind": "num", "lo": 0.01, "hi": 100, "default": None},
    "md": {"name": "set.mfu_decode", "kind": "num", "lo": 0.01, "hi": 100, "default": None},
    "gp": {"name": "set.gpu_price", "kind": "num", "lo": 0, "hi": 1e4, "default": None},
}
VRAM_SPEC = {"kind": "num", "lo": 0, "hi": 1e6}
"""Overrides, in GB, of the VRAM formulas' byte-valued variables (query key = variable name)."""
ALGORITHM_DEFAULTS = {"G": "G", "K": "K"}
"""Shape keys whose default is the algorithm's typical value (missing when it has none)."""

LORA_FLOPS = ("sourced", "site")
"""The "LoRA FLOP accounting" choices (query key ``lf``); the first is the default."""
ROLES = tuple(role.value for role in m.ModelRole)


def ranged(raw: str | None, spec: Mapping[str, Any]) -> float | None:
    """A non-negative number clamped to [lo, hi]; None if absent or not a plain number."""
    if raw is None or not _PATTERNS[spec["kind"]].fullmatch(raw):
        return None
    return min(max(float(raw), float(spec["lo"])), float(spec["hi"]))


def _choice(query: Mapping[str, str], key: str, allowed: Iterable[str], default: str) -> str:
    value = query.get(key)
    return value if value is not None and value in set(allowed) else default


def _flag(query: Mapping[str, str], key: str) -> bool | None:
    value = query.get(key)
    return {"1": True, "0": False}.get(value) if value is not None else None


def middle(values: list[int]) -> float:
    """The default of a typical-values list: its middle entry (upper middle when even)."""
    return float(values[len(values) // 2])


def typical(algo: m.Algorithm) -> dict[str, float | None]:
    """The algorithm's typical G and K; None where the catalog gives none."""
    return {"G": middle(algo.typical_g.values) if algo.typical_g is not None else None,
            "K": middle(algo.typical_k.values)}


def latest_price_list(catalog: Catalog) -> str:
    return max(catalog.price_lists.values(), key=lambda p: (p.effective, p.id)).id


def default_model(catalog: Catalog) -> str:
    return DEFAULT_MODEL if DEFAULT_MODEL in catalog.models else min(catalog.models)


def vram_variables(catalog: Catalog) -> list[str]:
    """Byte-valued variables of the VRAM formulas: adjustable in GB by their own query key."""
    names: dict[str, None] = {}
    for formula_id in (ids.VRAM_LORA, ids.VRAM_FULL):
        for var in catalog.formulas[formula_id].variables:
            if var.unit == Unit.bytes:
                names.setdefault(var.name, None)
    return list(names)


def price_row(plist: m.PriceList, model: str, variant: str) -> m.PriceRow | None:
    """The row for ``model`` and ``variant``; the plain row, else the first, when absent."""
    rows = [r for r in plist.rows if r.model == model]
    for wanted in (variant, ""):
        for row in rows:
            if (row.variant or "") == wanted:
                return row
    return rows[0] if rows else None


def row_key(plist: m.PriceList, row: m.PriceRow) -> str:
    return f"prices:{plist.id}:{row.model}{row.variant or ''}"


@dataclass(frozen=True)
class Choice:
    """A link's settings: ids of the chosen entries, flags and numbers (None: not set)."""

    model: str
    algorithm: str
    price_list: str
    hardware: str
    teacher: str
    variant: str
    lora: bool
    lora_flops: str
    score_reference: bool | None
    cache: bool
    numbers: dict[str, float | None]
    """Input name -> value, for every ``SPEC`` and VRAM key."""


def choose(catalog: Catalog, query: Mapping[str, str]) -> Choice:
    """Read a link's query by the rules above (``inputs`` and ``Page`` in calculator.js); a
    query that names no algorithm starts from ``DEFAULT_QUERY``."""
    if "a" not in query:
        query = {**DEFAULT_QUERY, **query}
    model = _choice(query, "m", catalog.models, default_model(catalog))
    algo_id = _choice(query, "a", catalog.algorithms, DEFAULT_ALGORITHM)
    algo_typical = typical(catalog.algorithms[algo_id])
    numbers: dict[str, float | None] = {}
    for key, spec in SPEC.items():
        value = ranged(query.get(key), spec)
        default = algo_typical[key] if key in ALGORITHM_DEFAULTS else spec["default"]
        numbers[spec["name"]] = default if value is None else value
    for name in vram_variables(catalog):
        numbers[f"set.vram.{name}"] = ranged(query.get(name), VRAM_SPEC)
    return Choice(
        model=model, algorithm=algo_id,
        price_list=_choice(query, "p", catalog.price_lists, latest_price_list(catalog)),
        hardware=_choice(query, "hw", catalog.hardware, DEFAULT_HARDWARE),
        teacher=_choice(query, "tm", catalog.models, model), variant=query.get("v", ""),
        lora=query.get("ft") != "full",
        lora_flops=_choice(query, "lf", LORA_FLOPS, LORA_FLOPS[0]),
        score_reference=_flag(query, "ref"), cache=_flag(query, "cache") is True,
        numbers=numbers,
    )
