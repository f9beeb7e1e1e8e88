"""The calculator's comparison of every way to run (issue 33): the graph quantities calculator.js
evaluates agree with ``derived.ways.compare`` (Python) for several runs and pins.

The ways here are made up for the test (made-up prices, dates and gaps) on the real catalog's
formulas and GPUs plus the toy model, price list and GPU (``helpers_calc``): no real price is
read or asserted.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import json
import re
from typing import Any

import pytest
from helpers_calc import (
    TOY_GPU,
    TOY_MODEL,
    TOY_PRICES,
    evaluate_ways,
    real_catalog,
    ways_environment,
    with_toys,
)

from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.models.ways import WayToRun
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import inputs, waysgraph
from tinkernomics.site.calculator import recipelayout

TODAY = dt.date(2026, 12, 2)


def fig(value: float, unit: str) -> dict[str, Any]:
    return {"value": value, "unit": unit, "status": "reported", "source": "transformer_math"}


def gpus(*pairs: tuple[str, float]) -> list[dict[str, Any]]:
    return [{"gpu": g, "price": fig(p, "usd_per_gpu_hour")} for g, p in pairs]


def way(wid: str, series: str, effective: str, offer: str = "rented_gpus",
        **body: Any) -> dict[str, Any]:
    return {"id": wid, "name": f"{wid} name", "provider": "P", "offer": offer,
            "series": series, "effective": effective, "dated": "as dated",
            "status": "reported", "source": "transformer_math", **body}


SOURCED = {"status": "reported", "source": "transformer_math"}
FIXTURE_WAYS = [
    way("cheap-2026-11", "cheap", "2026-11-01",
        gpu_prices=gpus(("h100", 2.0), ("gb200", 6.5), (TOY_GPU, 1.25), ("b300", 9.0))),
    way("cheap-2026-01", "cheap", "2026-01-01", gpu_prices=gpus(("h100", 1.0))),
    way("old-2026-03", "old", "2026-03-01", gpu_prices=gpus(("h100", 4.0))),
    way("svc-2026-12", "svc", "2026-12-01", "managed_service",
        gpu_prices=gpus(("h100", 3.0)), runs=["online_rl"],
        free_tier={"below_params_b": fig(16, "billion_parameters"), **SOURCED},
        gaps=[{"needs": "teacher", "reason": "no teacher here", **SOURCED},
              {"needs": "offline", "reason": "online only", **SOURCED}]),
    way("tok-2026-12", "tok", "2026-12-01", "managed_service",
        token_prices=[{"up_to_params_b": 10, "train": fig(0.5, "usd_per_million_tokens")},
                      {"up_to_params_b": 40, "train": fig(1.5, "usd_per_million_tokens")}]),
    way("hour-2026-12", "hour", "2026-12-01", "managed_service",
        hour_price=fig(100, "usd_per_hour"), models=["qwen3-8b", TOY_MODEL],
        models_note="trains two models only"),
    way("none-2026-12", "none", "2026-12-01", "managed_service",
        price_note="the public page shows no price"),
]


def with_ways(catalog: Catalog, found: list[dict[str, Any]]) -> Catalog:
    """A copy of ``catalog`` whose ways are ``found`` (no other way)."""
    out = Catalog(root=catalog.root, entries=copy.copy(catalog.entries))
    kind = KINDS_BY_NAME["way"]
    out.entries["way"] = {
        w["id"]: Entry(kind, w["id"], WayToRun.model_validate_json(json.dumps(w)),
                       YamlDoc(path=f"fixture/{w['id']}")) for w in found}
    return out


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return with_ways(with_toys(real_catalog()), FIXTURE_WAYS)


RUNS: dict[str, dict[str, str]] = {
    "default": {},
    "distillation": {"a": "opd", "tm": "qwen3-32b"},
    "offline": {"a": "dpo"},
    "bigger model, chosen GPU gb200": {"m": "qwen3-32b", "hw": "gb200", "G": "8"},
    "toy on the toy GPU": {"m": TOY_MODEL, "p": TOY_PRICES, "hw": TOY_GPU},
    "no Tinker row": {"m": TOY_MODEL},
    "decode MFU set, full fine-tuning": {"md": "20", "ft": "full", "steps": "7"},
    "pinned, with an old list and an unknown id": {"w": "cheap-2026-01,nope,old-2026-03"},
    "pinned service": {"w": "svc-2026-12,tok-2026-12", "a": "opd"},
    "multi-turn, K = 2": {"T": "4", "d": "300", "K": "2", "cache": "1"},
    "a 70B model (past the per-token sizes)": {"m": "llama-3.1-70b"},
}


def compared(catalog: Catalog, query: dict[str, str]) -> list[ways.Row]:
    pinned = inputs.choose(catalog, query).ways
    totals = ways.run_totals(catalog, query)
    return ways.compare(catalog, totals, TODAY, pinned=pinned or None)


@pytest.mark.parametrize("query", list(RUNS.values()), ids=list(RUNS))
def test_the_graph_prices_every_way_as_python_does(catalog: Catalog,
                                                   query: dict[str, str]) -> None:
    """Every row ``compare`` lists is shown by the graph with the same total, stale flag,
    'not offered' flag and break-even (against Tinker and against the cheapest row); every
    row it does not list is hidden."""
    python = compared(catalog, query)
    _, values = evaluate_ways(catalog, query, TODAY)
    slots = {r.key: r.name for r in waysgraph.rows(catalog)}
    shown = {key for key, name in slots.items() if values[f"{name}.shown"] == 1.0}
    assert shown == {r.key for r in python}
    paid = [r for r in python if r.total]  # the cheapest paid: a free tier is no price
    cheapest = paid[0] if paid else None
    assert values["ways.cheapest"] == (cheapest.total if cheapest else None)
    for row in python:
        name = slots[row.key]
        assert values.get(f"{name}.total") == row.total, row.key
        w = f"ways.{waysgraph.way_slot(row.way)}" if row.way != ways.TINKER else "ways.tinker"
        assert bool(values[f"{w}.newer"] or values[f"{w}.old"]) == bool(row.stale), row.key
        if row.way != ways.TINKER:
            assert bool(values[f"{w}.no"]) == bool(row.not_offered), row.key
        if row.total is None:
            continue
        tie = row.break_even.get(ways.TINKER)
        if row.way != ways.TINKER:
            assert values[f"{name}.vs_tinker"] == (tie.ratio if tie else None), row.key
            assert values.get(f"{name}.tie_tinker") == (tie.rate if tie else None), row.key
        if cheapest is not None and row.key != cheapest.key:
            assert values[f"{name}.vs_cheapest"] == row.break_even[cheapest.key].ratio


def test_the_runs_cover_every_kind_of_row(catalog: Catalog) -> None:
    """The cases above meet a free tier, a not-offered service (model and gap), a per-token
    and a per-hour price, a missing price, a stale list and a run without a Tinker bill."""
    rows = [r for query in RUNS.values() for r in compared(catalog, query)]
    assert {r.basis for r in rows} >= {"free_tier", "gpu_hours", "tokens", "training_hours",
                                       "none"}
    reasons = {r.not_offered for r in rows}
    assert {"no teacher here", "online only"} <= reasons
    assert any("trains two models only" in x for x in reasons)
    assert any(r.stale.startswith("a newer list") for r in rows)
    assert any("months old" in r.stale for r in rows)
    assert any(r.key == ways.TINKER and r.total is None for r in rows)
    assert any(r.missing.startswith("no per-token price") for r in rows)


def test_gpu_hours_on_every_gpu_match_a_run_on_that_gpu(catalog: Catalog) -> None:
    """The graph's GPU-hours on another GPU equal the estimate re-run on it (decode roofline
    of that GPU), bit for bit."""
    for query in ({}, {"a": "opd"}, {"md": "20"}):
        _, values = evaluate_ways(catalog, query, TODAY)
        totals = ways.run_totals(catalog, query)
        for hw, hours in totals.gpu_hours.items():
            assert values[f"ways.{waysgraph.gpu_slot(hw)}.hours"] == hours, (query, hw)
        assert values["ways.training_hours"] == totals.training_hours


def test_pins_come_from_the_link(catalog: Catalog) -> None:
    choice = inputs.choose(catalog, {"w": "nope,tok-2026-12,cheap-2026-01,tok-2026-12"})
    assert choice.ways == ("tok-2026-12", "cheap-2026-01")
    assert inputs.choose(catalog, {"w": "nope"}).ways == ()
    spec = next(i for i in inputs.link_inputs(catalog) if i.key == inputs.key(inputs.WAYS))
    assert [wid for wid, _ in spec.options] == sorted(w["id"] for w in FIXTURE_WAYS)


def test_a_way_id_that_is_not_a_graph_name_still_works(catalog: Catalog) -> None:
    """Ids with dots and dashes become graph names; two that would clash are refused."""
    dotted = way("a.b-2026-12", "ab", "2026-12-01", gpu_prices=gpus(("h100", 2.0)))
    clash = way("a-b-2026-12", "ab2", "2026-12-01", gpu_prices=gpus(("h100", 2.0)))
    ok = with_ways(with_toys(real_catalog()), [dotted])
    _, values = evaluate_ways(ok, {}, TODAY)
    assert values["ways.w_a_b_2026_12__g_h100.total"] is not None
    with pytest.raises(ValueError, match="differ only"):
        inputs.way_options(with_ways(ok, [dotted, clash]))


SPECIAL = {"formula", "formula_name", "badge", "status"}


def template_names(node: Any, found: dict[str, set[str]]) -> None:
    """Every graph name a layout reads: ``["v", name]`` in its condition trees, ``{key}`` and
    ``{key:format}`` in its templates (``{name:text}`` are names of the estimate)."""
    if isinstance(node, dict):  # "flags" are figure keys ({name} of the estimate's names)
        for key, value in node.items():
            if key != "flags":
                template_names(value, found)
    elif isinstance(node, list):
        if len(node) == 2 and node[0] == "v" and isinstance(node[1], str):
            found["values"].add(node[1])
        for value in node:
            template_names(value, found)
    elif isinstance(node, str):
        for key, kind in re.findall(r"\{([A-Za-z_][\w.]*)(?::([\w.]+))?\}", node):
            if key not in SPECIAL:
                found["texts" if kind == "text" else "values"].add(key)


@pytest.mark.parametrize("algorithm", ["grpo", "dapo", "opd"])
def test_every_name_the_comparison_and_recipe_read_exists(catalog: Catalog,
                                                          algorithm: str) -> None:
    """The page's blocks and the algorithm's recipe read only inputs, quantities and names the
    estimate has (calculator.js would stop at an unknown name): checked on the fixture ways."""
    from tinkernomics.site.calculator import asof, pagedata
    from tinkernomics.site.pages.views import Links

    links = Links(pagedata.CALCULATOR)
    blocks = pagedata.result_blocks(catalog, waysgraph.graph(catalog, TODAY), TODAY, links)
    algo = pagedata.algorithm_data(catalog, catalog.algorithms[algorithm], links)
    found: dict[str, set[str]] = {"values": set(), "texts": set()}
    template_names([blocks, algo["blocks"]], found)
    est, values = evaluate_ways(catalog, {"a": algorithm}, TODAY)
    env = {**est.env, **ways_environment(catalog, est)}
    assert found["values"] - set(values) - set(env) == set()
    texts = set(est.resolved.names) | {f"{who}.{k}" for who in ("model", "teacher")
                                       for k in pagedata.model_texts(catalog, est.choice.model)}
    texts |= {f"price.{k}" for k in asof.price_texts(catalog.price_lists[est.choice.price_list])}
    assert found["texts"] - texts == set()
    assert any(n.startswith("ways.") for n in found["values"])
    assert algo["blocks"][recipelayout.SLOT], algorithm


def test_catalog_text_never_becomes_markup_or_a_placeholder(catalog: Catalog) -> None:
    """A way's hostile reason, note and date text reaches the page escaped, braces included."""
    plain = way("evil-2026-12", "evil", "2026-12-01", "managed_service",
                hour_price=fig(1, "usd_per_hour"), models=[], models_note="x")
    from tinkernomics.site.calculator import wayslayout
    from tinkernomics.site.pages.views import Links

    # the validator refuses such text (raw HTML); the page must not rely on it
    valid = with_ways(catalog, [plain]).entries["way"]["evil-2026-12"]
    hostile = valid.model.model_copy(update={
        "models_note": "<img src=x onerror=alert(1)> {tinker.total}",
        "dated": "<b>{price_list:text}</b>"})
    cat = Catalog(root=catalog.root, entries={**catalog.entries, "way": {
        "evil-2026-12": dataclasses.replace(valid, model=hostile)}})
    block = wayslayout.ways_block(cat, TODAY, Links("calculator/"))
    text = json.dumps(block)
    assert "<img" not in text and "<b>" not in text and "{tinker.total}" not in text
    assert "&lt;img src=x onerror=alert(1)&gt; &#123;tinker.total&#125;" in text
