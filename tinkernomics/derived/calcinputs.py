"""Calculator inputs (pipeline step 5): URL state -> ``calc.CalcInputs``, and provenance.

A calculator link carries its settings in the query string (``?m=qwen3-8b&a=grpo&G=16``).
``inputs_from_query`` turns such a query into inputs, defaulting anything missing or invalid
from the catalog; ``calculator.js`` parses the same keys with the same rules, reading the ranges
from ``QUERY_SPEC`` (shipped in the page's data), so a link gives the same estimate in Python
and in the browser.

``figure_registry`` lists every catalog figure and calculator assumption an estimate can rest on
(with status and source) under a stable key; ``figure_keys`` says which ones one estimate uses.
The page flags those whose status is ``unverified``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status, Unit
from tinkernomics.derived import calc, derive

DEFAULT_MODEL = "qwen3-8b"
DEFAULT_ALGORITHM = "grpo"
DEFAULT_HARDWARE = "h100"

INT_PATTERN = r"[0-9]{1,12}"
NUM_PATTERN = r"[0-9]{1,12}(\.[0-9]{1,12})?"
"""Whole and decimal query numbers; matched against the whole value (no signs, no exponents,
ASCII digits only) here and in the browser."""
_INT = re.compile(INT_PATTERN)
_NUM = re.compile(NUM_PATTERN)

SHAPE_KEYS: dict[str, tuple[str, float, float]] = {
    # query key: (RunShape field, lowest, highest); whole numbers, clamped into the range.
    "steps": ("steps", 0, 1e7),
    "n": ("prompts_per_step", 0, 1e7),
    "G": ("group_size", 1, 1e5),
    "K": ("passes", 1, 1e3),
    "in": ("prompt_tokens", 0, 1e8),
    "out": ("completion_tokens", 0, 1e8),
    "T": ("turns", 1, 1e4),
    "d": ("context_growth", 0, 1e8),
}
DEFAULT_SHAPE: dict[str, float] = {
    "steps": 100.0, "n": 64.0, "in": 512.0, "out": 2048.0, "T": 1.0, "d": 0.0,
}
"""Run-shape defaults: the default preset. G and K default from the algorithm."""

QUERY_SPEC: dict[str, dict[str, object]] = {
    # Every other query key: kind and range. "int" whole numbers, "num" decimals, clamped.
    "r": {"kind": "int", "lo": 1, "hi": 1e5},
    "D": {"kind": "int", "lo": 1, "hi": 1e6},
    "mt": {"kind": "num", "lo": 0.01, "hi": 100},
    "mp": {"kind": "num", "lo": 0.01, "hi": 100},
    "md": {"kind": "num", "lo": 0.01, "hi": 100},
    "gp": {"kind": "num", "lo": 0, "hi": 1e4},
    "tf": {"kind": "num", "lo": 1, "hi": 99},
    "ck": {"kind": "int", "lo": 0, "hi": 1e6},
    "mo": {"kind": "num", "lo": 0, "hi": 1e3},
    "vram": {"kind": "num", "lo": 0, "hi": 1e6},
}
PERCENT_KEYS = {"mt": "mfu_train", "mp": "mfu_prefill", "md": "mfu_decode"}


def _ranged(query: Mapping[str, str], key: str, spec: Mapping[str, object]) -> float | None:
    """A non-negative number from the query, clamped to [lo, hi]; None if absent or invalid."""
    raw = query.get(key)
    pattern = _INT if spec["kind"] == "int" else _NUM
    if raw is None or not pattern.fullmatch(raw):
        return None
    return min(max(float(raw), float(spec["lo"])), float(spec["hi"]))  # type: ignore[arg-type]


def _spec(key: str) -> dict[str, object]:
    if key in SHAPE_KEYS:
        _, lo, hi = SHAPE_KEYS[key]
        return {"kind": "int", "lo": lo, "hi": hi}
    return QUERY_SPEC[key]


def _value(query: Mapping[str, str], key: str) -> float | None:
    return _ranged(query, key, _spec(key))


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _choice(query: Mapping[str, str], key: str, allowed: Iterable[str], default: str) -> str:
    value = query.get(key)
    return value if value is not None and value in set(allowed) else default


def _flag(query: Mapping[str, str], key: str) -> bool | None:
    value = query.get(key)
    return {"1": True, "0": False}.get(value) if value is not None else None


def vram_byte_variables(catalog: Catalog) -> list[str]:
    """Byte-valued variables of the VRAM formulas: adjustable in GB by their own query key."""
    names: dict[str, None] = {}
    for formula_id in (calc.VRAM_LORA, calc.VRAM_FULL):
        for var in catalog.formulas[formula_id].variables:
            if var.unit == Unit.bytes:
                names.setdefault(var.name, None)
    return list(names)


def default_model(catalog: Catalog) -> str:
    return DEFAULT_MODEL if DEFAULT_MODEL in catalog.models else min(catalog.models)


def inputs_from_query(catalog: Catalog, query: Mapping[str, str]) -> calc.CalcInputs:
    """Calculator inputs from URL query parameters; anything missing or invalid -> default.

    ``calculator.js`` (``parseQuery``) applies the same rules to the same keys.
    """
    model = _choice(query, "m", catalog.models, default_model(catalog))
    algo_id = _choice(query, "a", catalog.algorithms, DEFAULT_ALGORITHM)
    algo = catalog.algorithms[algo_id]
    algo_defaults = {"G": calc.default_group_size(algo), "K": calc.default_passes(algo)}
    shape = {
        name: _or(_value(query, key), algo_defaults.get(key, DEFAULT_SHAPE.get(key, 0.0)))
        for key, (name, _, _) in SHAPE_KEYS.items()
    }
    percents = {name: _value(query, key) for key, name in PERCENT_KEYS.items()}
    vram = {}
    for name in vram_byte_variables(catalog):
        value = _ranged(query, name, QUERY_SPEC["vram"])
        if value is not None:
            vram[name] = value
    return calc.CalcInputs(
        model=model, algorithm=algo_id,
        price_list=_choice(query, "p", catalog.price_lists, calc.latest_price_list(catalog)),
        hardware=_choice(query, "hw", catalog.hardware, DEFAULT_HARDWARE),
        shape=calc.RunShape(**shape, prefix_cache=_flag(query, "cache") is True),
        variant=query.get("v", ""),
        lora=query.get("ft") != "full",
        lora_rank=_value(query, "r"), d_model=_value(query, "D"),
        lora_flops=_choice(query, "lf", calc.LORA_FLOP_FORMULAS, calc.DEFAULT_LORA_FLOPS),
        score_reference=_flag(query, "ref"),
        teacher=_choice(query, "tm", catalog.models, model),
        **{name: (None if v is None else v / calc.PERCENT) for name, v in percents.items()},
        gpu_price=_value(query, "gp"),
        target_percent=_or(_value(query, "tf"), calc.DEFAULT_TARGET_PERCENT),
        checkpoints=_or(_value(query, "ck"), 1.0),
        storage_months=_or(_value(query, "mo"), 1.0),
        vram_gb=vram,
    )


def estimate(catalog: Catalog, query: Mapping[str, str]) -> calc.Result:
    """The estimate a calculator link shows."""
    return calc.calculate(catalog, inputs_from_query(catalog, query))


# --------------------------------------------------------------------------- provenance


@dataclass(frozen=True)
class InputFigure:
    """A catalog value (or calculator assumption) an estimate rests on, with provenance."""

    key: str
    label: str
    text: str
    status: Status
    source: str | None
    """Reference id; None for an assumption made here that no source states."""
    reported_instead: str | None = None
    derivation: str | None = None
    """How an assumption's value is obtained (shown beside it)."""

    @property
    def unverified(self) -> bool:
        return self.status == Status.unverified


def _figure(key: str, label: str, fig: m.Figure) -> InputFigure:
    return InputFigure(key, label, derive.format_figure(fig), fig.status, fig.source,
                       fig.reported_instead)


def _assumption(key: str, a: calc.Assumption) -> InputFigure:
    text = (derive.format_number(a.value * calc.PERCENT) + "%" if a.unit == Unit.fraction
            else derive.format_number(a.value))
    return InputFigure(key, a.label, text, a.status, a.source, a.reported_instead, a.derivation)


def row_key(plist: m.PriceList, row: m.PriceRow) -> str:
    return f"prices:{plist.id}:{row.model}{row.variant or ''}"


def _model_figures(model: m.LanguageModel) -> Iterable[InputFigure]:
    yield _figure(f"model:{model.id}:total_params", f"{model.name}: parameters",
                  model.total_params)
    if model.active_params is not None:
        yield _figure(f"model:{model.id}:active_params", f"{model.name}: active parameters",
                      model.active_params)
    if model.d_model is not None:
        yield _figure(f"model:{model.id}:d_model", f"{model.name}: hidden size", model.d_model)


def _price_figures(plist: m.PriceList) -> Iterable[InputFigure]:
    for row in plist.rows:
        yield InputFigure(
            row_key(plist, row), f"Tinker {plist.id}: {row.model}{row.variant or ''}",
            f"${row.prefill} / ${row.sample} / ${row.train} per 1M prefill / sample / train",
            row.status or plist.status, row.source or plist.source,
            row.reported_instead or plist.reported_instead)
    if plist.cached_prefill_discount is not None:
        yield _figure(f"prices:{plist.id}:cache", f"Tinker {plist.id}: cached-prefill discount",
                      plist.cached_prefill_discount)
    if plist.storage_usd_per_gb_month is not None:
        yield _figure(f"prices:{plist.id}:storage", f"Tinker {plist.id}: storage",
                      plist.storage_usd_per_gb_month)


def _hardware_figures(catalog: Catalog, hw: m.Hardware) -> Iterable[InputFigure]:
    yield _figure(f"hardware:{hw.id}:tflops", f"{hw.name}: dense BF16", hw.bf16_dense_tflops)
    yield _figure(f"hardware:{hw.id}:memory", f"{hw.name}: memory", hw.memory_gb)
    if hw.bandwidth_tb_s is not None:
        yield _figure(f"hardware:{hw.id}:bandwidth", f"{hw.name}: bandwidth", hw.bandwidth_tb_s)
    if hw.rental_prices:
        rent = hw.rental_prices[0]
        yield _figure(f"hardware:{hw.id}:price",
                      f"{hw.name}: rental ({rent.provider}, {rent.date})", rent.price)
    if hw.bandwidth_tb_s is not None:
        seq = calc.decode_sequences()
        yield InputFigure(f"assumption:mfu_decode:{hw.id}", "Decode utilisation (MFU)",
                          "depends on the model", Status.unverified, hw.bandwidth_tb_s.source,
                          seq.reported_instead, calc.decode_note(catalog, hw))


def _algorithm_figures(algo: m.Algorithm) -> Iterable[InputFigure]:
    lists = [("k", "typical K", algo.typical_k), ("g", "typical G", algo.typical_g)]
    for key, label, values in lists:
        if values is not None:
            yield InputFigure(f"algorithm:{algo.id}:{key}", f"{algo.name}: {label}",
                              ", ".join(map(str, values.values)), values.status, values.source,
                              values.reported_instead)
    if algo.scalerl is not None:
        for name in ("A", "B", "C_mid"):
            yield _figure(f"algorithm:{algo.id}:{name}", f"{algo.name}: ScaleRL {name}",
                          getattr(algo.scalerl, name))


def figure_registry(catalog: Catalog) -> dict[str, InputFigure]:
    """Every figure an estimate may use, by key (the page ships it for the browser's flags)."""
    found: list[InputFigure] = []
    for model in catalog.models.values():
        found.extend(_model_figures(model))
    for plist in catalog.price_lists.values():
        found.extend(_price_figures(plist))
    for hw in catalog.hardware.values():
        found.extend(_hardware_figures(catalog, hw))
    for algo in catalog.algorithms.values():
        found.extend(_algorithm_figures(algo))
    for formula_id in (calc.FLOPS_ROLLOUT, calc.FLOPS_REFERENCE, calc.FLOPS_FULL,
                       calc.FLOPS_LORA_SOURCED, calc.FLOPS_LORA, calc.VRAM_LORA, calc.VRAM_FULL):
        f = catalog.formulas[formula_id]
        found.append(InputFigure(f"formula:{f.id}", f"Formula: {f.name}", f.expression,
                                 f.status, f.source, f.reported_instead))
    train = calc.training_mfu(catalog)
    found.append(_assumption("assumption:mfu_train", train))
    found.append(_assumption("assumption:mfu_prefill", calc.prefill_mfu(train)))
    found.append(_assumption("assumption:decode_sequences", calc.decode_sequences()))
    if catalog.platform is not None:
        found.append(_figure("setup:total", "Cost of building the stack",
                             catalog.platform.setup_cost.total))
    return {f.key: f for f in found}


def figure_keys(r: calc.Resolved) -> list[str]:
    """Keys of the figures one estimate used, in display order (``figureKeys`` in the JS)."""
    inputs, model, hw = r.inputs, r.model, r.hardware
    keys = [f"model:{model.id}:total_params"]
    if model.active_params is not None:
        keys.append(f"model:{model.id}:active_params")
    if (calc.VAR_DMODEL in r.training_values and inputs.d_model is None
            and model.d_model is not None):
        keys.append(f"model:{model.id}:d_model")
    if r.teacher is not None and r.teacher.id != model.id:
        keys.append(f"model:{r.teacher.id}:total_params")
        if r.teacher.active_params is not None:
            keys.append(f"model:{r.teacher.id}:active_params")
    if r.row is not None:
        keys.append(row_key(r.price_list, r.row))
    if r.teacher_row is not None and r.teacher is not None and r.teacher.id != model.id:
        keys.append(row_key(r.price_list, r.teacher_row))
    if inputs.shape.prefix_cache and r.price_list.cached_prefill_discount is not None:
        keys.append(f"prices:{r.price_list.id}:cache")
    if r.price_list.storage_usd_per_gb_month is not None:
        keys.append(f"prices:{r.price_list.id}:storage")
    keys += [f"hardware:{hw.id}:tflops", f"hardware:{hw.id}:memory"]
    if inputs.gpu_price is None:
        keys.append(f"hardware:{hw.id}:price")
    keys += _algorithm_keys(r)
    keys += [f"formula:{f}" for f in _formulas_used(r)]
    if inputs.mfu_train is None:
        keys.append("assumption:mfu_train")
    if inputs.mfu_prefill is None:
        keys.append("assumption:mfu_prefill")
    if inputs.mfu_decode is None and hw.bandwidth_tb_s is not None:
        keys += [f"hardware:{hw.id}:bandwidth", "assumption:decode_sequences",
                 f"assumption:mfu_decode:{hw.id}"]
    keys.append("setup:total")
    return keys


def _algorithm_keys(r: calc.Resolved) -> list[str]:
    algo, shape = r.algorithm, r.inputs.shape
    keys = []
    if shape.passes == calc.default_passes(algo):
        keys.append(f"algorithm:{algo.id}:k")
    if algo.typical_g is not None and shape.group_size == calc.default_group_size(algo):
        keys.append(f"algorithm:{algo.id}:g")
    if algo.scalerl is not None:
        keys += [f"algorithm:{algo.id}:{name}" for name in ("A", "B", "C_mid")]
    return keys


def _formulas_used(r: calc.Resolved) -> list[str]:
    used = [calc.FLOPS_ROLLOUT]
    scorers = (m.ModelRole.reference, m.ModelRole.teacher, m.ModelRole.reward_model)
    if any(role in r.roles for role in scorers):
        used.append(calc.FLOPS_REFERENCE)
    used.append(calc.training_formula(r)[0])
    used.append(calc.vram_formula_id(r.inputs.lora))
    return used


def input_figures(catalog: Catalog, r: calc.Resolved) -> list[InputFigure]:
    """The figures one estimate used, with their provenance."""
    registry = figure_registry(catalog)
    return [registry[key] for key in figure_keys(r) if key in registry]
