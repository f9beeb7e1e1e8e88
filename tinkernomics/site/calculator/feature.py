"""The calculator on the site (pipeline step 6: a feature module of ``sitebuild``).

Macro ``calculator()`` renders the Calculator page: the form, the page data the browser computes
from (catalog values, formula expressions translated by ``expr.to_js``, query ranges, presets,
provenance) and, for readers without JavaScript, the default estimate computed here.
``site_overrides/assets/javascripts/calculator.js`` repeats ``calc`` and ``calcinputs`` on that
data, so a link gives the same numbers in Python and in the browser.

Every algorithm page gets a "What does a typical run cost" panel (slot ``cost`` of
``pages.add_algorithm_section``): the default run shape with the algorithm's typical G and K,
computed here by the same ``calc`` code, linking to the calculator with those settings.

Number formatting (``fmt_*``) is mirrored in calculator.js character for character: both round
half up on the exact binary value (Python ``Decimal``, JavaScript ``toFixed``/``toExponential``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from tinkernomics.derived import calc

from tinkernomics.derived import calcinputs

from tinkernomics.derived import derive

from tinkernomics.derived import expr
from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.pages.views import REFERENCES, Links

CALCULATOR = "calculator/"
"""Site-relative path of the Calculator page (docs/calculator.md)."""
SCRIPT = "assets/javascripts/calculator.js"
SECTION_SLOT = "cost"
SECTION_ID = "typical-run-cost"

# --------------------------------------------------------------------------- formatting

FORMATS: tuple[tuple[str, str, str], ...] = (
    # (prefix, suffix, format) of a ``calc.numbers`` key -> how it is shown; first match wins.
    ("vram.min_gpus", "", "count"),
    ("vram.", "", "gb"),
    ("tokens.", "", "count"),
    ("", ".flops", "flops"),
    ("", "gpu_hours", "hours"),
    ("", "_hours", "hours"),
    ("mfu.", "", "percent"),
    ("scalerl.reward", "", "percent"),
    ("breakeven.ratio", "", "ratio"),
    ("breakeven.runs", "", "number"),
    ("", "", "usd"),
)
_BIG = 1e15


def _fixed(value: float, decimals: int) -> str:
    """``value.toFixed(decimals)``: exact binary value, ties away from zero."""
    if value == 0:
        value = 0.0  # JavaScript prints -0 as "0"
    with localcontext() as ctx:
        ctx.prec = 2000
        quantum = Decimal(1).scaleb(-decimals)
        return f"{Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP):f}"


def _exponential(value: float, digits: int) -> str:
    """``value.toExponential(digits)`` without the '+': e.g. ``8.39e17``."""
    with localcontext() as ctx:
        ctx.prec = 2000
        d = Decimal(value)
        sign, d = ("-" if d < 0 else ""), abs(d)
        if d == 0:
            return f"{sign}{_fixed(0.0, digits)}e0"
        quantum = Decimal(1).scaleb(-digits)
        exponent = d.adjusted()
        mantissa = d.scaleb(-exponent).quantize(quantum, rounding=ROUND_HALF_UP)
        if mantissa >= 10:
            exponent += 1
            mantissa = d.scaleb(-exponent).quantize(quantum, rounding=ROUND_HALF_UP)
        return f"{sign}{mantissa:f}e{exponent}"


def _group(text: str) -> str:
    """Thousands separators in the integer part of a plain decimal string."""
    sign = "-" if text.startswith("-") else ""
    body = text[len(sign):]
    whole, dot, frac = body.partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return sign + ",".join(groups) + dot + frac


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def fmt_number(value: float) -> str:
    """About three significant digits, thousands separators, exponent outside [1e-3, 1e15)."""
    if value == 0:
        return "0"
    size = abs(value)
    if size >= _BIG or size < 1e-3:
        return _exponential(value, 2)
    decimals = 0 if size >= 100 else 1 if size >= 10 else 2 if size >= 1 else 3
    return _group(_trim(_fixed(value, decimals)))


def fmt_count(value: float) -> str:
    return _exponential(value, 3) if abs(value) >= _BIG else _group(_fixed(value, 0))


def fmt_usd(value: float) -> str:
    """``$1,234`` from a thousand dollars up, else cents: ``$12.34``."""
    if abs(value) >= _BIG:
        return "$" + _exponential(value, 2)
    text = _group(_fixed(value, 0 if abs(value) >= 1000 else 2))
    return "-$" + text[1:] if text.startswith("-") else "$" + text


def fmt_value(kind: str, value: float | None) -> str:
    """A number in one of the FORMATS kinds; ``None`` (not applicable) as an en dash."""
    if value is None:
        return "–"
    if kind == "count":
        return fmt_count(value)
    if kind == "gb":
        return fmt_number(value / calc.BYTES_PER_GB) + " GB"
    if kind == "flops":
        return _exponential(value, 2)
    if kind == "hours":
        return fmt_number(value)
    if kind == "percent":
        return fmt_number(value * calc.PERCENT) + "%"
    if kind == "ratio":
        return fmt_number(value) + "×"
    if kind == "number":
        return fmt_number(value)
    return fmt_usd(value)


def format_kind(key: str) -> str:
    for prefix, suffix, kind in FORMATS:
        if key.startswith(prefix) and key.endswith(suffix):
            return kind
    raise AssertionError("FORMATS ends with a catch-all")


def shown_numbers(result: calc.Result) -> dict[str, str]:
    """Every number of an estimate as the page shows it (``data-key`` -> text)."""
    return {key: fmt_value(format_kind(key), value) for key, value in calc.numbers(result).items()}


# --------------------------------------------------------------------------- page data



PRESETS: tuple[tuple[str, dict[str, str]], ...] = (
    # (label, query). Settings only: every figure comes from the catalog. The first is the default.
    ("GRPO on Qwen3-8B: 100 steps, 64 prompts × G=16, 512 + 2,048 tokens",
     {"a": "grpo", "m": "qwen3-8b", "hw": "h100", "steps": "100", "n": "64", "G": "16",
      "K": "1", "in": "512", "out": "2048"}),
    ("Fireworks' multi-turn episode: Kimi K2.6 (128K), 1,000 episodes × 8 turns",
     {"a": "grpo", "m": "kimi-k2.6", "v": ":peft:131072", "hw": "gb200", "steps": "1",
      "n": "1000", "G": "1", "K": "1", "T": "8", "in": "8000", "d": "12000", "out": "2000",
      "ref": "0"}),
    ("On-policy distillation: Qwen3-8B student, Qwen3-32B teacher, 1,024 prompts × G=4",
     {"a": "opd", "m": "qwen3-8b", "tm": "qwen3-32b", "p": "2026-01-05", "steps": "100",
      "n": "1024", "G": "4", "r": "128"}),
    ("PPO with full fine-tuning on Llama-3.1-8B",
     {"a": "ppo", "m": "llama-3.1-8b", "p": "2026-01-05", "ft": "full"}),
)
ID_KEYS = {"a": "algorithm", "m": "model", "tm": "model", "hw": "hardware", "p": "price_list"}


def check_presets(catalog: Catalog) -> None:
    """A preset naming an id the catalog lacks would silently fall back: fail the build."""
    for label, query in PRESETS:
        for key, kind in ID_KEYS.items():
            if key in query and query[key] not in catalog.ids(kind):
                raise ValueError(f"calculator preset {label!r}: unknown {kind} id {query[key]!r}")


def preset_queries(catalog: Catalog) -> list[dict[str, str]]:
    """Presets with the price list pinned (the newest, unless the preset names one)."""
    latest = calc.latest_price_list(catalog)
    return [{"p": latest, **query} for _, query in PRESETS]


def query_string(query: Mapping[str, str]) -> str:
    return urlencode(query, safe=":")


def _plain(text: str | None) -> str | None:
    from tinkernomics.site.pages.views import plain

    return plain(text) if text else None


def _figures_data(catalog: Catalog, links: Links) -> tuple[dict[str, Any], dict[str, Any]]:
    figures, refs = {}, {}
    for key, fig in calcinputs.figure_registry(catalog).items():
        figures[key] = {"label": fig.label, "text": fig.text, "status": fig.status.value,
                        "source": fig.source, "instead": _plain(fig.reported_instead),
                        "how": fig.derivation}
        if fig.source is not None:
            ref = catalog.references[fig.source]
            refs[fig.source] = {"title": ref.title, "href": links.to(REFERENCES, fig.source)}
    return figures, refs


def _model_data(model: m.LanguageModel) -> dict[str, Any]:
    return {"name": model.name, "total_b": model.total_params.value,
            "active_b": derive.active_params_billion(model),
            "d_model": model.d_model.value if model.d_model is not None else None}


def _algorithm_data(algo: m.Algorithm) -> dict[str, Any]:
    fit = derive.sigmoid_params(algo.scalerl) if algo.scalerl is not None else None
    return {
        "name": algo.name, "roles": [r.value for r in algo.models_in_memory],
        "online": algo.online, "G": calc.default_group_size(algo),
        "K": calc.default_passes(algo), "has_g": algo.typical_g is not None,
        "scalerl": (None if fit is None else
                    {"A": fit.A, "B": fit.B, "C_mid": fit.C_mid, "R0": fit.R0}),
    }


def _price_list_data(plist: m.PriceList) -> dict[str, Any]:
    cache_fig, storage = plist.cached_prefill_discount, plist.storage_usd_per_gb_month
    return {
        "title": plist.title, "effective": plist.effective.isoformat(),
        "cache": cache_fig.value if cache_fig is not None else None,
        "storage": storage.value if storage is not None else None,
        "rows": [{"model": r.model, "variant": r.variant or "", "prefill": r.prefill,
                  "sample": r.sample, "train": r.train,
                  "key": calcinputs.row_key(plist, r)} for r in plist.rows],
    }


def _hardware_data(catalog: Catalog, hw: m.Hardware) -> dict[str, Any]:
    return {"name": hw.name, "tflops": hw.bf16_dense_tflops.value,
            "memory_gb": hw.memory_gb.value,
            "bandwidth": hw.bandwidth_tb_s.value if hw.bandwidth_tb_s is not None else None,
            "price": calc.default_gpu_price(hw)}


def _formula_data(catalog: Catalog, formula_id: str) -> dict[str, Any]:
    f = catalog.formulas[formula_id]
    return {"name": f.name, "expression": f.expression, "js": expr.to_js(f.expression),
            "status": f.status.value,
            "variables": [{"name": v.name, "unit": v.unit.value, "example": v.example,
                           "meaning": v.meaning} for v in f.variables]}


FORMULA_IDS = (calc.FLOPS_ROLLOUT, calc.FLOPS_REFERENCE, calc.FLOPS_FULL,
               calc.FLOPS_LORA_SOURCED, calc.FLOPS_LORA, calc.VRAM_LORA, calc.VRAM_FULL)


def page_data(catalog: Catalog, links: Links) -> dict[str, Any]:
    """Everything calculator.js needs, computed or taken from the catalog here (never typed)."""
    train = calc.training_mfu(catalog)
    factor = derive.conversion_factor(catalog)
    gb200 = catalog.hardware[factor.from_id]
    figures, refs = _figures_data(catalog, links)
    return {
        "defaults": {
            "model": calcinputs.default_model(catalog),
            "algorithm": calcinputs.DEFAULT_ALGORITHM,
            "hardware": calcinputs.DEFAULT_HARDWARE,
            "price_list": calc.latest_price_list(catalog),
            "shape": calcinputs.DEFAULT_SHAPE, "target": calc.DEFAULT_TARGET_PERCENT,
            "lora_rank": calc.formula_example(catalog, calc.FLOPS_LORA, calc.VAR_RANK),
            "d_model": calc.formula_example(catalog, calc.FLOPS_LORA, calc.VAR_DMODEL),
            "mfu_train": train.value, "mfu_prefill": calc.prefill_mfu(train).value,
            "lora_flops": calc.DEFAULT_LORA_FLOPS,
        },
        "lora_flops": calc.LORA_FLOP_FORMULAS,
        "spec": {"int": calcinputs.INT_PATTERN, "num": calcinputs.NUM_PATTERN,
                 "shape": calcinputs.SHAPE_KEYS, "query": calcinputs.QUERY_SPEC,
                 "percent": calcinputs.PERCENT_KEYS,
                 "vram": calcinputs.vram_byte_variables(catalog)},
        "constants": {"tokens_per_million": calc.TOKENS_PER_MILLION,
                      "bytes_per_tb": calc.BYTES_PER_TB,
                      "params_per_billion": calc.PARAMS_PER_BILLION,
                      "flops_per_tflop": calc.FLOPS_PER_TFLOP,
                      "bytes_per_gb": calc.BYTES_PER_GB,
                      "seconds_per_hour": calc.SECONDS_PER_HOUR, "percent": calc.PERCENT},
        "ids": {"rollout": calc.FLOPS_ROLLOUT, "reference": calc.FLOPS_REFERENCE,
                "full": calc.FLOPS_FULL, "vram_lora": calc.VRAM_LORA,
                "vram_full": calc.VRAM_FULL, "active": calc.VAR_ACTIVE,
                "rank": calc.VAR_RANK, "d_model": calc.VAR_DMODEL},
        "role_variables": {fid: {role.value: var for role, var in mapping.items()}
                           for fid, mapping in calc.ROLE_VARIABLES.items()},
        "formulas": {fid: _formula_data(catalog, fid) for fid in FORMULA_IDS},
        "models": {mid: _model_data(model) for mid, model in catalog.models.items()},
        "algorithms": {aid: _algorithm_data(a) for aid, a in catalog.algorithms.items()},
        "price_lists": {pid: _price_list_data(p) for pid, p in catalog.price_lists.items()},
        "hardware": {hid: _hardware_data(catalog, hw) for hid, hw in catalog.hardware.items()},
        "conversion": {"factor": factor.value, "tflops": gb200.bf16_dense_tflops.value,
                       "price": calc.default_gpu_price(gb200), "name": gb200.name},
        "decode": {"sequences": calc.decode_sequences().value,
                   "flops_per_param": calc.flops_per_token(catalog, calc.FLOPS_ROLLOUT,
                                                           {calc.VAR_ACTIVE: 1.0}),
                   "bytes_per_param": calc.BF16_BYTES_PER_PARAM},
        "checkpoint_gb": calc.checkpoint_gb(catalog),
        "setup_usd": catalog.platform.setup_cost.total.value if catalog.platform else 0.0,
        "formats": FORMATS,
        "figures": figures, "references": refs,
        "presets": [{"label": label, "query": q}
                    for (label, _), q in zip(PRESETS, preset_queries(catalog), strict=True)],
    }


def script_json(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</`` or ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      sort_keys=True)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


# --------------------------------------------------------------------------- views


@cache
def _env() -> Environment:
    env = Environment(loader=PackageLoader("tinkernomics.site.calculator", "templates"),
                      autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    return env


def _render(template: str, **values: Any) -> str:
    """Render; drop blank lines so the HTML stays one markdown block."""
    text = _env().get_template(template).render(**values)
    return "\n".join(line for line in text.splitlines() if line.strip()) + "\n"


def summary_rows(catalog: Catalog, result: calc.Result) -> list[dict[str, Any]]:
    """The headline numbers of an estimate: a label and parts, each a number (with its
    ``calc.numbers`` key, shown as ``data-key``), plain text or a status badge."""
    shown, r = shown_numbers(result), result.resolved
    hw = r.hardware.name
    train = catalog.formulas[r.training_formula]

    def n(key: str) -> dict[str, str]:
        return {"key": key, "text": shown[key], "badge": ""}

    def t(text: str) -> dict[str, str]:
        return {"key": "", "text": text, "badge": ""}

    def badge(status: str) -> dict[str, str]:
        return {"key": "", "text": status, "badge": status}

    tinker_label = f"Tinker bill ({r.price_list.id} prices)"
    if result.tinker.not_covered:
        missing = " and ".join(x.replace("_", " ") for x in result.tinker.not_covered)
        tinker_label = f"Tinker bill ({r.price_list.id} prices; no {missing}: Tinker runs none)"
    rows = [
        ("Tokens", [n("tokens.prefill"), t(" prefill, "), n("tokens.sample"), t(" sampled, "),
                    n("tokens.train"), t(" trained")]),
        (tinker_label, [n("tinker.total")]),
        (f"Self-hosted compute on {hw}", [n("self.total"), t(" for "), n("self.gpu_hours"),
                                          t(" GPU-hours")]),
        ("Break-even GPU price", [n("breakeven.gpu_price"), t(" per GPU-hour")]),
        ("GPU memory", [n("vram.total"), t(" on "), n("vram.min_gpus"), t(f" × {hw}")]),
        ("Training FLOPs per token", [t(f"{train.name}: {train.expression}"),
                                      badge(train.status.value)]),
    ]
    if result.convergence is not None:
        rows.append((f"Compute to {fmt_number(r.inputs.target_percent)}% of the ScaleRL gain",
                     [n("scalerl.gb200_hours"), t(" GB200-hours ("), n("scalerl.h100_hours"),
                      t(" H100-equivalent), "), n("scalerl.usd"), t(f" on {hw}")]))
    return [{"label": label, "cells": cells} for label, cells in rows]


def describe_run(result: calc.Result) -> str:
    """One sentence: which run this estimate is."""
    r, s = result.resolved, result.resolved.inputs.shape
    mode = "full fine-tuning"
    if r.inputs.lora:
        # the rank only matters to an accounting whose formula uses it
        uses_rank = calc.VAR_RANK in r.training_values
        mode = f"LoRA rank {fmt_count(r.lora_rank)}" if uses_rank else "LoRA"
    turns = f", {fmt_count(s.turns)} turns" if s.turns > 1 else ""
    return (f"{r.algorithm.name} on {r.model.name} ({mode}): {fmt_count(s.steps)} steps × "
            f"{fmt_count(s.prompts_per_step)} prompts × G = {fmt_count(s.group_size)}, "
            f"K = {fmt_count(s.passes)}, {fmt_count(s.prompt_tokens)} + "
            f"{fmt_count(s.completion_tokens)} tokens{turns}; GPU: {r.hardware.name}.")


# --------------------------------------------------------------------------- form


def vram_inputs(catalog: Catalog, r: calc.Resolved) -> list[tuple[str, str, float]]:
    """(name, meaning, GB) of each byte-valued VRAM variable: the override or the example."""
    found = {}
    for formula_id in (calc.VRAM_LORA, calc.VRAM_FULL):
        for v in catalog.formulas[formula_id].variables:
            if v.name in calcinputs.vram_byte_variables(catalog) and v.name not in found:
                gb = r.inputs.vram_gb.get(v.name, v.example / calc.BYTES_PER_GB)
                found[v.name] = (v.name, v.meaning, gb)
    return list(found.values())


def lora_flop_options(catalog: Catalog) -> list[tuple[str, str]]:
    """The accounting choices, each labelled with its formula's status from the catalog."""
    return [(key, f"{calc.LORA_FLOP_LABELS[key]} ({catalog.formulas[fid].status.value})")
            for key, fid in calc.LORA_FLOP_FORMULAS.items()]


def _options(items: Mapping[str, Any], label: str = "name") -> list[tuple[str, str]]:
    return [(key, getattr(item, label)) for key, item in items.items()]


def form_groups(catalog: Catalog, result: calc.Result) -> list[dict[str, Any]]:
    """The form's fields (names are the query keys), grouped, with the default values."""
    r, s = result.resolved, result.resolved.inputs.shape
    plists = sorted(catalog.price_lists.values(), key=lambda p: p.effective, reverse=True)
    hw_options = _options(catalog.hardware)
    models = _options(catalog.models)

    def field(key: str, label: str, kind: str, value: Any, **extra: Any) -> dict[str, Any]:
        return {"key": key, "label": label, "kind": kind, "value": value, "help": "",
                "options": [], "unit": "", **extra}

    def pct(value: float) -> str:
        return fmt_number(value * calc.PERCENT)

    return [
        {"title": "Model and algorithm", "open": True, "fields": [
            field("a", "Algorithm", "select", r.algorithm.id,
                  options=_options(catalog.algorithms)),
            field("m", "Model", "select", r.model.id, options=models),
            field("tm", "Teacher model", "select", r.teacher.id if r.teacher else r.model.id,
                  options=models, help="Only for algorithms that keep a teacher."),
            field("p", "Tinker price list", "select", r.price_list.id,
                  options=[(p.id, p.title) for p in plists]),
            field("v", "Price variant", "select", r.inputs.variant,
                  options=[("", "standard")]),
            field("ft", "Fine-tuning", "select", "lora" if r.inputs.lora else "full",
                  options=[("lora", "LoRA"), ("full", "Full fine-tuning")]),
            field("lf", "LoRA FLOP accounting", "select", r.inputs.lora_flops,
                  options=lora_flop_options(catalog),
                  help="Which formula prices LoRA training passes."),
            field("r", "LoRA rank R", "int", fmt_count(r.lora_rank)),
            field("D", "Hidden size D", "int", fmt_count(r.d_model).replace(",", "")),
        ]},
        {"title": "Run shape", "open": True, "fields": [
            field("steps", "Steps", "int", int(s.steps)),
            field("n", "Prompts per step", "int", int(s.prompts_per_step)),
            field("G", "Completions per prompt G", "int", int(s.group_size)),
            field("K", "Passes per batch K", "int", int(s.passes)),
            field("in", "Prompt tokens (initial context C0)", "int", int(s.prompt_tokens)),
            field("out", "Completion tokens (per turn)", "int", int(s.completion_tokens)),
            field("T", "Turns T", "int", int(s.turns)),
            field("d", "Context added per turn Δ", "int", int(s.context_growth),
                  help="Reply plus tool output that joins the context each turn."),
            field("cache", "Prefix cache across turns", "check", s.prefix_cache),
            field("ref", "Score with the reference (KL)", "check", r.inputs.score_reference),
        ]},
        {"title": "Rented GPUs", "open": True, "fields": [
            field("hw", "GPU", "select", r.hardware.id, options=hw_options),
            field("gp", "Price per GPU-hour (USD)", "num", r.gpu_price),
            field("mt", "Training MFU (%)", "num", pct(r.mfu_train)),
            field("mp", "Prefill and scoring MFU (%)", "num", pct(r.mfu_prefill)),
            field("md", "Decode MFU (%)", "num", pct(r.mfu_decode)),
        ]},
        {"title": "Memory, storage, convergence", "open": False, "fields": [
            *[field(name, f"{meaning} (GB)", "num", fmt_number(gb))
              for name, meaning, gb in vram_inputs(catalog, r)],
            field("ck", "Checkpoints kept on Tinker", "int", int(r.inputs.checkpoints)),
            field("mo", "Months stored", "num", fmt_number(r.inputs.storage_months)),
            field("tf", "ScaleRL target (% of the gain)", "num",
                  fmt_number(r.inputs.target_percent)),
        ]},
    ]


# --------------------------------------------------------------------------- macros


def calculator_html(ctx: SiteContext) -> str:
    """The Calculator page body."""
    catalog = ctx.catalog
    check_presets(catalog)
    links = Links(CALCULATOR)
    result = calcinputs.estimate(catalog, preset_queries(catalog)[0])
    presets = [{"label": label, "href": "?" + query_string(q)}
               for (label, _), q in zip(PRESETS, preset_queries(catalog), strict=True)]
    return _render(
        "calculator.html", data=Markup(script_json(page_data(catalog, links))),
        groups=form_groups(catalog, result), presets=presets,
        summary=summary_rows(catalog, result), run=describe_run(result),
        script=links.to("assets/javascripts") + "calculator.js",
    )


def typical_run_section(ctx: SiteContext, algo_id: str, links: Links) -> str:
    """Markdown section for an algorithm page: the default run with its typical G and K."""
    catalog = ctx.catalog
    query = {"a": algo_id, "m": calcinputs.default_model(catalog),
             "p": calc.latest_price_list(catalog), "hw": calcinputs.DEFAULT_HARDWARE}
    result = calcinputs.estimate(catalog, query)
    html = _render("panel.html", summary=summary_rows(catalog, result),
                   run=describe_run(result),
                   href=links.to(CALCULATOR) + "?" + query_string(query),
                   algorithm=catalog.algorithms[algo_id].name)
    return f"## What does a typical run cost? {{#{SECTION_ID}}}\n\n{html}"


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """``calculator()``; also adds the typical-run panel to every algorithm page."""
    from tinkernomics.site.pages.macros import add_algorithm_section

    add_algorithm_section(ctx, SECTION_SLOT, typical_run_section)

    def calculator() -> str:
        """The RL-run cost calculator (form, page data, default estimate)."""
        return calculator_html(ctx)

    return {"calculator": calculator}
