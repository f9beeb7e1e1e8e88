"""Model rules from arithmetic (pipeline step 3, cross-entry rules): a language model's figures
must agree with one another, each reported at its field with what to check.

- the total (and active) parameter count agrees with the recount from the architecture figures
  (``paramcount``) within ``TOLERANCE`` of the stated figure, or ``ROUNDING`` billion (names
  round: Llama-3.2-1B has 1.24B);
- ``kv_heads`` is at most ``attention_heads`` and divides it (grouped-query attention shares one
  key-value head among a whole number of query heads);
- ``head_dim × attention_heads`` equals the hidden size, unless ``head_dim`` carries a ``note``
  saying the config sets them apart (Qwen3, gpt-oss do);
- active parameters never exceed the total, routed experts a token uses never exceed the experts,
  windowed or KV layers never exceed the layers; a dense model lists no experts;
- context and vocabulary lie within ``CONTEXT_BOUNDS`` and ``VOCAB_BOUNDS``: a digit typed twice
  or dropped lands outside.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.paramcount import recount
from tinkernomics.catalog.partial import field_or_none, figure_value
from tinkernomics.catalog.problems import Problem

TOLERANCE = 0.10
"""A stated parameter count may differ this much (relative) from the recount's range."""
ROUNDING = 0.5
"""...or this many billion: a count written as a whole number of billions rounds."""
CONTEXT_BOUNDS = (1_024, 10_485_760)
"""Tokens: from 1K (older models' 2,048) to 10M (the longest published windows)."""
VOCAB_BOUNDS = (1_000, 1_000_000)
"""Tokens in the vocabulary: byte-level models need 256+, today's use 32K to 262K."""
CONFIG_HINT = "compare each figure with the model's config.json (a digit typed twice or dropped?)"


def _fmt(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _outside(stated: float, low: float, high: float) -> bool:
    slack = max(TOLERANCE * stated, ROUNDING)
    return stated < low - slack or stated > high + slack


def rule_param_count(catalog: Catalog) -> Iterator[Problem]:
    """The stated total and active parameters agree with the recount from the shape."""
    for key, model in catalog.models.items():
        found = recount(model)
        if found is None:
            continue
        for name, (low, high) in (("total_params", found.total), ("active_params", found.active)):
            stated = figure_value(model, name)
            if stated is None or not _outside(stated, low, high):
                continue
            counted = _fmt(low) if abs(high - low) < 0.005 else f"{_fmt(low)}–{_fmt(high)}"
            yield catalog.problem(
                "model", key, (name, "value"),
                f"{name} {_fmt(stated)}B disagrees with the {counted}B its shape adds up to "
                f"(allowed: {TOLERANCE:.0%} or {ROUNDING}B)",
                f"{CONFIG_HINT}: hidden size, layers, heads, head_dim, MLP and expert widths, "
                "experts, vocabulary; the recount is in tinkernomics/catalog/paramcount.py")


def _heads_problems(catalog: Catalog, key: str, model: Any, shape: Any) -> Iterator[Problem]:
    heads, kv, head = (figure_value(shape, n) for n in ("attention_heads", "kv_heads", "head_dim"))
    if heads is not None and kv is not None and (kv > heads or heads % kv):
        yield catalog.problem(
            "model", key, ("shape", "kv_heads", "value"),
            f"kv_heads {kv:g} does not divide attention_heads {heads:g}",
            "grouped-query attention shares each key-value head among a whole number of query "
            "heads: kv_heads is attention_heads or a divisor of it (num_key_value_heads)")
    d = figure_value(model, "d_model")
    if heads is None or head is None or d is None or heads * head == d:
        return
    if field_or_none(field_or_none(shape, "head_dim"), "note"):
        return
    yield catalog.problem(
        "model", key, ("shape", "head_dim", "value"),
        f"head_dim {head:g} × attention_heads {heads:g} = {heads * head:g}, not the hidden "
        f"size {d:g}",
        "check head_dim and d_model against config.json; if the config sets them apart, say so "
        "in head_dim's note (e.g. note: \"config.json sets head_dim on its own: 32 × 128 ≠ "
        "2,048\")")


def _at_most(shape: Any, small: str, big: str) -> bool:
    low, high = figure_value(shape, small), figure_value(shape, big)
    return low is None or high is None or low <= high


def _order_problems(catalog: Catalog, key: str, model: Any, shape: Any) -> Iterator[Problem]:
    active, total = figure_value(model, "active_params"), figure_value(model, "total_params")
    if active is not None and total is not None and active > total:
        yield catalog.problem("model", key, ("active_params", "value"),
                              f"active_params {_fmt(active)}B exceeds total_params "
                              f"{_fmt(total)}B", "the active count is part of the total")
    pairs = (("experts_active", "experts"), ("sliding_layers", "layers"),
             ("kv_layers", "layers"), ("fixed_state_layers", "layers"))
    for small, big in pairs:
        if shape is not None and not _at_most(shape, small, big):
            yield catalog.problem("model", key, ("shape", small, "value"),
                                  f"{small} {figure_value(shape, small):g} exceeds {big} "
                                  f"{figure_value(shape, big):g}", CONFIG_HINT)
    if str(field_or_none(model, "architecture")) == "dense" and figure_value(shape, "experts"):
        yield catalog.problem("model", key, ("architecture",),
                              "a dense model lists experts (shape.experts)",
                              "write architecture: moe, or remove the expert figures")


def _bounds_problems(catalog: Catalog, key: str, shape: Any) -> Iterator[Problem]:
    for name, (low, high), what in (("context_limit", CONTEXT_BOUNDS, "tokens of context"),
                                    ("vocab_size", VOCAB_BOUNDS, "tokens in a vocabulary")):
        value = figure_value(shape, name)
        if value is not None and not low <= value <= high:
            yield catalog.problem("model", key, ("shape", name, "value"),
                                  f"{name} {value:,.0f} is outside {low:,}–{high:,} {what}",
                                  CONFIG_HINT)


def rule_model_shape_consistent(catalog: Catalog) -> Iterator[Problem]:
    """Heads divide, sizes multiply to the hidden size, parts fit their wholes, bounds hold."""
    for key, model in catalog.models.items():
        shape = field_or_none(model, "shape")
        if shape is not None:
            yield from _heads_problems(catalog, key, model, shape)
            yield from _bounds_problems(catalog, key, shape)
        yield from _order_problems(catalog, key, model, shape)
