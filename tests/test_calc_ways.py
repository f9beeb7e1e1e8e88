"""The calculator's comparison of every way to run (issue 33): the graph quantities calculator.js
evaluates agree with ``derived.ways.compare`` (Python) for several runs and pins.

The ways here are made up for the test (made-up prices, dates and gaps) on the real catalog's
formulas and GPUs plus the toy model, price list and GPU (``helpers_calc``): no real price is
read or asserted.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from typing import Any

import pytest
from helpers_calc import TOY_GPU, TOY_MODEL, TOY_PRICES, real_catalog, with_toys

from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.models.ways import WayToRun
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import inputs, waysgraph

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
    _, values = waysgraph.evaluate_ways(catalog, query, TODAY)
    slots = {r.key: r.name for r in waysgraph.rows(catalog)}
    shown = {key for key, name in slots.items() if values[f"{name}.shown"] == 1.0}
    assert shown == {r.key for r in python}
    priced = [r for r in python if r.total is not None]
    cheapest = priced[0] if priced else None
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
        _, values = waysgraph.evaluate_ways(catalog, query, TODAY)
        totals = ways.run_totals(catalog, query)
        for hw, hours in totals.gpu_hours.items():
            assert values[f"ways.{waysgraph.gpu_slot(hw)}.hours"] == hours, (query, hw)
        assert values["ways.training_hours"] == totals.training_hours


def test_pins_come_from_the_link(catalog: Catalog) -> None:
    choice = inputs.choose(catalog, {"w": "nope,tok-2026-12,cheap-2026-01,tok-2026-12"})
    assert choice.ways == ("tok-2026-12", "cheap-2026-01")
    assert inputs.choose(catalog, {"w": "nope"}).ways == ()
    spec = next(i for i in inputs.link_inputs(catalog) if i.key == inputs.WAYS_KEY)
    assert [wid for wid, _ in spec.options] == sorted(w["id"] for w in FIXTURE_WAYS)


def test_a_way_id_that_is_not_a_graph_name_still_works(catalog: Catalog) -> None:
    """Ids with dots and dashes become graph names; two that would clash are refused."""
    dotted = way("a.b-2026-12", "ab", "2026-12-01", gpu_prices=gpus(("h100", 2.0)))
    clash = way("a-b-2026-12", "ab2", "2026-12-01", gpu_prices=gpus(("h100", 2.0)))
    ok = with_ways(with_toys(real_catalog()), [dotted])
    _, values = waysgraph.evaluate_ways(ok, {}, TODAY)
    assert values["ways.w_a_b_2026_12__g_h100.total"] is not None
    with pytest.raises(ValueError, match="differ only"):
        inputs.way_options(with_ways(ok, [dotted, clash]))
