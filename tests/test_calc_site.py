"""The calculator on the site: number formatting, page data, presets, the built pages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers_calc import real_catalog
from helpers_site import load_page

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import calc, calcinputs, expr
from tinkernomics.site.calculator import feature as calcsite
from tinkernomics.site.pages.views import Links


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return real_catalog()


@pytest.mark.parametrize(("value", "text"), [
    (0, "0"),
    (0.125, "0.125"),  # three decimals below 1
    (0.0625, "0.063"),  # 0.0625 is exact in binary: the tie rounds up, as toFixed does
    (2.5, "2.5"),
    (12.25, "12.3"),  # exact tie at one decimal: up (Python's own rounding would give 12.2)
    (99.96, "100"),
    (1234.5, "1,235"),  # exact tie at no decimals: up
    (33.086247460769475, "33.1"),
    (1e15, "1.00e15"),
    (0.0004, "4.00e-4"),
    (-1234.5, "-1,235"),
])
def test_fmt_number(value: float, text: str) -> None:
    assert calcsite.fmt_number(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (2264.96, "$2,265"),  # from $1,000 up: whole dollars
    (204.96, "$204.96"),
    (0.05, "$0.05"),
    (0.005, "$0.01"),  # 0.005 is a hair above the tie in binary
    (0.125, "$0.13"),  # exact tie: up
    (-12.5, "-$12.50"),
    (3.2e15, "$3.20e15"),
])
def test_fmt_usd(value: float, text: str) -> None:
    assert calcsite.fmt_usd(value) == text


def test_fmt_kinds() -> None:
    assert calcsite.format_kind("tokens.prefill") == "count"
    assert calcsite.format_kind("self.decode.flops") == "flops"
    assert calcsite.format_kind("self.decode.gpu_hours") == "hours"
    assert calcsite.format_kind("vram.min_gpus") == "count"
    assert calcsite.format_kind("vram.P_total") == "gb"
    assert calcsite.format_kind("tinker.total") == "usd"
    assert calcsite.fmt_value("flops", 8.388608e17) == "8.39e17"
    assert calcsite.fmt_value("gb", 40.5e9) == "40.5 GB"
    assert calcsite.fmt_value("percent", 0.10834849403678998) == "10.8%"
    assert calcsite.fmt_value("usd", None) == "–"
    assert calcsite.fmt_count(262_144_000) == "262,144,000"


def test_page_data_takes_formulas_from_the_catalog(catalog: Catalog) -> None:
    data = calcsite.page_data(catalog, Links(calcsite.CALCULATOR))
    for formula_id, shipped in data["formulas"].items():
        expression = catalog.formulas[formula_id].expression
        assert shipped["expression"] == expression
        assert shipped["js"] == expr.to_js(expression)
    assert data["defaults"]["mfu_train"] == calc.training_mfu(catalog).value
    assert data["decode"]["flops_per_param"] == 2  # flops_rollout at P_active = 1
    assert data["spec"]["shape"] == calcinputs.SHAPE_KEYS  # ranges shipped, not retyped in JS
    json.loads(calcsite.script_json(data))  # serialisable, no NaN


def test_lora_accounting_choices_are_catalog_formulas(catalog: Catalog) -> None:
    data = calcsite.page_data(catalog, Links(calcsite.CALCULATOR))
    assert data["lora_flops"] == calc.LORA_FLOP_FORMULAS
    assert data["defaults"]["lora_flops"] == "sourced"
    for formula_id in calc.LORA_FLOP_FORMULAS.values():
        assert formula_id in data["formulas"]  # shipped with its expression for the browser
    labels = dict(calcsite.lora_flop_options(catalog))
    assert labels["sourced"].endswith("(derived)") and labels["site"].endswith("(unverified)")


@pytest.mark.parametrize(("query", "formula_id", "status"), [
    ({}, "flops_lora_training_sourced", "derived"),
    ({"lf": "site"}, "flops_lora_training", "unverified"),
    ({"ft": "full", "lf": "site"}, "flops_training", "reported"),
])
def test_summary_names_the_training_formula(catalog: Catalog, query: dict[str, str],
                                            formula_id: str, status: str) -> None:
    rows = calcsite.summary_rows(catalog, calcinputs.estimate(catalog, query))
    row = next(r for r in rows if r["label"] == "Training FLOPs per token")
    formula = catalog.formulas[formula_id]
    assert row["cells"][0]["text"] == f"{formula.name}: {formula.expression}"
    assert row["cells"][1] == {"key": "", "text": status, "badge": status}


def test_every_figure_key_resolves(catalog: Catalog) -> None:
    registry = calcinputs.figure_registry(catalog)
    for label, query in calcsite.PRESETS:
        result = calcinputs.estimate(catalog, query)
        missing = [k for k in calcinputs.figure_keys(result.resolved) if k not in registry]
        assert missing == [], label
        for fig in registry.values():
            # a figure without a source is an assumption made here, and says so by its status
            assert fig.source in catalog.references or (
                fig.source is None and fig.status == "unverified" and fig.derivation)


def test_presets_name_catalog_ids(catalog: Catalog) -> None:
    calcsite.check_presets(catalog)  # raises on an unknown id
    for _, query in calcsite.PRESETS:
        inputs = calcinputs.inputs_from_query(catalog, query)
        assert inputs.model == query["m"] and inputs.algorithm == query["a"]


def test_default_preset_is_the_issue_example(catalog: Catalog) -> None:
    # "GRPO on Qwen3-8B, 100 steps, 64 prompts x G=16, 512+2,048 tokens"
    shape = calcinputs.inputs_from_query(catalog, calcsite.PRESETS[0][1]).shape
    assert (shape.steps, shape.prompts_per_step, shape.group_size) == (100, 64, 16)
    assert (shape.prompt_tokens, shape.completion_tokens) == (512, 2048)
    # and it is what an empty link shows
    assert calcinputs.inputs_from_query(catalog, {}).shape == shape


@pytest.mark.build
def test_calculator_page_is_built(built_site: Any, catalog: Catalog) -> None:
    page = load_page(built_site.root, "calculator/")
    data_nodes = page.by_class("tn-calc__data")
    assert len(data_nodes) == 1
    data = json.loads(data_nodes[0].text())
    assert set(data["models"]) == set(catalog.models)
    static = {n.attrs["data-key"]: n.text() for n in page.iter() if "data-key" in n.attrs}
    expected = calcsite.shown_numbers(calcinputs.estimate(catalog, {}))
    assert static and all(expected[k] == v for k, v in static.items())
    names = {n.attrs.get("name") for n in page.by_tag("select") + page.by_tag("input")}
    assert {"a", "m", "p", "hw", "steps", "n", "G", "K", "in", "out", "T", "d", "lf"} <= names
    badges = [n.text() for n in page.by_class("tn-badge")]
    assert "derived" in badges  # the default LoRA accounting, shown with its status


@pytest.mark.build
def test_every_algorithm_page_has_a_cost_panel(built_site: Any, catalog: Catalog) -> None:
    for algo_id in catalog.algorithms:
        page = load_page(built_site.root, f"algorithms/{algo_id}/")
        assert page.by_id(calcsite.SECTION_ID) is not None, algo_id
        panel = page.by_class("tn-calc-panel")
        assert len(panel) == 1, algo_id
        query = {"a": algo_id, "m": calcinputs.default_model(catalog),
                 "p": calc.latest_price_list(catalog), "hw": calcinputs.DEFAULT_HARDWARE}
        expected = calcsite.shown_numbers(calcinputs.estimate(catalog, query))
        shown = {n.attrs["data-key"]: n.text() for n in panel[0].iter() if "data-key" in n.attrs}
        assert shown and all(expected[k] == v for k, v in shown.items()), algo_id
        # the panel prices LoRA with the default, sourced accounting and says so
        sourced = catalog.formulas[calc.FLOPS_LORA_SOURCED]
        assert sourced.name in panel[0].text(), algo_id
        link = next(a.attrs["href"] for a in panel[0].by_tag("a"))
        assert link.startswith("../../calculator/?a=" + algo_id)
