"""The calculator on the site: number formatting, page data, presets, the built pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import helpers_figures
import pytest
from helpers_calc import shown_numbers
from helpers_site import load_page

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import ids, inputs, tree, waysgraph
from tinkernomics.derived.calculator.estimate import estimate, graph_for
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.calculator import feature as calcsite
from tinkernomics.site.calculator import form, layout, pagedata
from tinkernomics.site.calculator import presets as calcpresets
from tinkernomics.site.calculator.formatting import fmt_count, fmt_number, fmt_usd, fmt_value
from tinkernomics.site.pages.views import Links


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
    assert fmt_number(value) == text


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
    assert fmt_usd(value) == text


def test_fmt_kinds(catalog: Catalog) -> None:
    graph = graph_for(catalog)
    kinds = {k: graph.quantity(k).format for k in (
        "tokens.prefill", "self.decode.flops", "self.decode.gpu_hours", "mem.min_gpus",
        "vram.P_total", "tinker.total", "self.decode.mfu", "breakeven.ratio")}
    assert kinds == {"tokens.prefill": "count", "self.decode.flops": "flops",
                     "self.decode.gpu_hours": "hours", "mem.min_gpus": "count",
                     "vram.P_total": "gb", "tinker.total": "usd", "self.decode.mfu": "percent",
                     "breakeven.ratio": "ratio"}
    assert fmt_value("flops", 8.388608e17) == "8.39e17"
    assert fmt_value("gb", 40.5e9) == "40.5 GB"
    assert fmt_value("percent", 0.10834849403678998) == "10.8%"
    assert fmt_value("usd", None) == "–"
    assert fmt_count(262_144_000) == "262,144,000"


def page(catalog: Catalog) -> dict[str, Any]:
    return pagedata.page_data(catalog, Links(pagedata.CALCULATOR), [])


def test_page_ships_the_graph_not_a_copy(catalog: Catalog) -> None:
    """The page carries the graph's trees (made from the catalog formulas), the query rules
    and the formulas' text: calculator.js types none of them."""
    data = page(catalog)
    shipped = {row[0]: row for row in data["graph"]}
    graph = waysgraph.graph(catalog, waysgraph.catalog_day(catalog))
    assert list(shipped) == graph.keys()  # the estimate's graph, then the ways compared
    assert graph.keys()[:len(graph_for(catalog).keys())] == graph_for(catalog).keys()
    for q in graph.quantities:
        assert shipped[q.key][4] == tree.to_tree(q.expression)
    for formula_id, f in data["formulas"].items():
        assert f["expression"] == catalog.formulas[formula_id].expression
    shipped_inputs = {i["key"]: i for i in data["inputs"]}  # ranges shipped, not retyped in JS
    assert {k: shipped_inputs[k]["lo"] for k in inputs.SPEC} == {
        k: spec["lo"] for k, spec in inputs.SPEC.items()}
    json.loads(template_json(data, sort_keys=True))  # serialisable, no NaN


def test_graph_uses_the_catalog_formulas(catalog: Catalog) -> None:
    """Changing a catalog formula changes the quantity that inlines it (nothing re-typed)."""
    graph = graph_for(catalog)
    rollout = catalog.formulas[ids.FLOPS_ROLLOUT].expression
    assert rollout.replace(" ", "") in graph.quantity("self.prefill.per_token").expression \
        .replace(" ", "").replace("p.active", "P_active")


def test_page_does_not_grow_with_algorithms(catalog: Catalog) -> None:
    """Algorithms are files fetched on demand: the page data holds none of them."""
    text = template_json(page(catalog), sort_keys=True)
    for algo_id, _algo in catalog.algorithms.items():
        assert f"algorithm:{algo_id}:" not in text
    # each algorithm's own file carries its typical G (or None) and its fit's figures
    for algo in catalog.algorithms.values():
        data = pagedata.algorithm_data(catalog, algo, Links("calculator/"))
        typical_g = algo.typical_g.values if algo.typical_g else None
        g = typical_g[len(typical_g) // 2] if typical_g else None
        assert data["typical"]["run.G"] == g, algo.id
        assert f"algorithm:{algo.id}:k" in data["figures"]
        assert (f"algorithm:{algo.id}:C_mid" in data["figures"]) == (algo.scalerl is not None)


def test_lora_accounting_choices_are_catalog_formulas(catalog: Catalog) -> None:
    data = page(catalog)
    assert {lf: n["train_formula"] for lf, n in data["spec"]["formula_names"]["true"].items()} \
        == ids.LORA_FLOP_FORMULAS
    assert data["spec"]["lora_flops"][0] == "sourced"
    for formula_id in ids.LORA_FLOP_FORMULAS.values():
        assert formula_id in data["formulas"]  # shipped with its expression for the browser
    labels = dict(form.lora_flop_options(catalog))
    assert labels["sourced"].endswith("(derived)") and labels["site"].endswith("(unverified)")


@pytest.mark.parametrize(("query", "formula_id", "status"), [
    ({}, "flops_lora_training_sourced", "derived"),
    ({"lf": "site"}, "flops_lora_training", "unverified"),
    ({"ft": "full", "lf": "site"}, "flops_training", "reported"),
])
def test_summary_names_the_training_formula(catalog: Catalog, query: dict[str, str],
                                            formula_id: str, status: str) -> None:
    rows = calcsite.summary_rows(catalog, estimate(catalog, query))
    row = next(r for r in rows if r["label"] == "Training FLOPs per token")
    formula = catalog.formulas[formula_id]
    assert row["cells"][0]["text"] == f"{formula.name}: {formula.expression}"
    assert row["cells"][1] == {"key": "", "text": status, "badge": status}


def test_every_figure_key_resolves(catalog: Catalog) -> None:
    registry = helpers_figures.registry(catalog)
    for label, query in calcpresets.presets():
        keys = helpers_figures.figure_keys(estimate(catalog, query), registry)
        assert keys and all(k in registry for k in keys), label
        for fig in registry.values():
            # a figure without a source is an assumption made here, and says so by its status
            assert fig.source in catalog.references or (
                fig.source is None and fig.status == "unverified" and fig.derivation)


def test_presets_name_catalog_ids(catalog: Catalog) -> None:
    calcsite.check_presets(catalog)  # raises on an unknown id
    for _, query in calcpresets.presets():
        c = inputs.choose(catalog, query)
        assert c.model == query["m"] and c.algorithm == query["a"]


def test_default_preset_is_the_issue_example(catalog: Catalog) -> None:
    # "GRPO on Qwen3-8B, 100 steps, 64 prompts x G=16, 512+2,048 tokens"
    shape = inputs.choose(catalog, calcpresets.presets()[0][1]).numbers
    assert [shape[k] for k in ("run.steps", "run.prompts", "run.G")] == [100, 64, 16]
    assert (shape["run.C0"], shape["run.out"]) == (512, 2048)
    # and it is what an empty link shows, whatever the algorithm's typical G
    assert inputs.choose(catalog, {}).numbers == shape
    assert calcpresets.presets()[0][1] == inputs.default_query()
    typical = catalog.algorithms["grpo"].typical_g.values
    assert inputs.choose(catalog, {"a": "grpo"}).numbers["run.G"] == typical[len(typical) // 2]
    # a link that names no algorithm changes the default run only where it says so
    other = next(m for m in catalog.models if m != inputs.choose(catalog, {}).model)
    changed = inputs.choose(catalog, {"steps": "250", "m": other})
    assert changed.model == other and changed.numbers == {**shape, "run.steps": 250}


@pytest.mark.build
def test_calculator_page_is_built(built_site: Any, catalog: Catalog) -> None:
    page = load_page(built_site.root, "calculator/")
    data_nodes = page.by_class("tn-calc__data")
    assert len(data_nodes) == 1
    data = json.loads(data_nodes[0].text())
    assert set(data["models"]) == set(catalog.models)
    static = {n.attrs["data-key"]: n.text() for n in page.iter() if "data-key" in n.attrs}
    expected = shown_numbers(catalog, estimate(catalog, {}))
    # the default estimate, as Python computes it from the catalog (no amount is written here):
    # both bills, the break-even price and the run model's memory at the peak
    for key in ("tinker.total", "self.total", "self.gpu_hours", "breakeven.gpu_price",
                "mem.peak", "mem.min_gpus"):
        assert static[key] == expected[key] and expected[key] not in ("", "–"), key
    files = Path(built_site.root) / "calculator" / "algorithms"
    index = json.loads((files / "index.json").read_text(encoding="utf-8"))
    assert [row[0] for row in index] == list(catalog.algorithms)
    assert all((files / f"{algo_id}.json").exists() for algo_id in catalog.algorithms)
    assert static and all(expected[k] == v for k, v in static.items())
    names = {n.attrs.get("name") for n in page.by_tag("select") + page.by_tag("input")}
    assert {"a", "m", "p", "hw", "steps", "n", "G", "K", "in", "out", "T", "d", "lf"} <= names
    badges = [n.text() for n in page.by_class("tn-badge")]
    assert "derived" in badges  # the default LoRA accounting, shown with its status


def _summary_text(catalog: Catalog, e: Any) -> list[tuple[str, str]]:
    return [(row["label"], "".join(c["text"] for c in row["cells"]))
            for row in calcsite.summary_rows(catalog, e)]


def _panel_rows(panel: Any, column: int) -> list[tuple[str, str]]:
    """One run's rows of the panel's table (``column`` 0: the typical run, 1: the comparison
    run); a cell across both columns is both runs'."""
    rows = []
    for tr in panel.by_tag("tbody")[0].by_tag("tr"):
        cells = tr.by_tag("td")
        rows.append((tr.by_tag("th")[0].text(), cells[min(column, len(cells) - 1)].text()))
    return rows


def test_the_cost_panel_prints_both_runs_in_one_table(catalog: Catalog) -> None:
    """An algorithm page's typical run and the comparison run, side by side: one table, one
    price-list date, and a row where the two runs agree (the FLOPs formula) one cell across
    both columns (two panels printed the shared rows and the date twice)."""
    from tinkernomics.site.build import SiteContext

    ctx = SiteContext(root=catalog.root, catalog=catalog)
    html = calcsite.typical_run_section(ctx, inputs.DEFAULT_ALGORITHM,
                                        Links(f"algorithms/{inputs.DEFAULT_ALGORITHM}/"))
    assert html.count('class="tn-calc-panel"') == 1 and html.count("<table") == 1
    assert html.count("Tinker prices as of") == 1
    formula = catalog.formulas[ids.FLOPS_LORA_SOURCED].name
    assert html.count(formula) == 1 and f'<td colspan="2">{formula}' in html



def test_the_cost_panels_share_one_price_date_per_build(catalog: Catalog,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """What every algorithm page's panel shares (the newest list, its date and staleness) is
    worked out once per build, not once per page; each panel still prints it."""
    from tinkernomics.site.build import SiteContext
    from tinkernomics.site.calculator import asof

    views: list[str] = []
    view = asof.view

    def counted(*args: Any) -> dict[str, Any]:
        views.append(args[1])
        return view(*args)

    monkeypatch.setattr(asof, "view", counted)
    ctx = SiteContext(root=catalog.root, catalog=catalog)
    panels = [calcsite.typical_run_section(ctx, algo_id, Links(f"algorithms/{algo_id}/"))
              for algo_id in list(catalog.algorithms)[:2]]
    assert views == [inputs.latest_price_list(catalog)]
    assert all(p.count("Tinker prices as of") == 1 for p in panels)

@pytest.mark.build
def test_every_algorithm_page_has_a_cost_panel(built_site: Any, catalog: Catalog) -> None:
    for algo_id in catalog.algorithms:
        page = load_page(built_site.root, f"algorithms/{algo_id}/")
        assert page.by_id(calcsite.SECTION_ID) is not None, algo_id
        panel = page.by_class("tn-calc-panel")
        # one panel, one table: its typical run beside the comparison run every page shows
        assert len(panel) == 1 and len(panel[0].by_tag("table")) == 1, algo_id
        heads = [th.text() for th in panel[0].by_tag("thead")[0].by_tag("th")]
        assert heads == ["Typical run", "Comparison run"], algo_id
        query = {"a": algo_id, "m": inputs.default_model(catalog),
                 "p": inputs.latest_price_list(catalog), "hw": inputs.DEFAULT_HARDWARE}
        e = estimate(catalog, query)
        for column, q in enumerate((query, inputs.comparison_query(catalog, algo_id))):
            # each row as the estimate's summary has it, numbers bare (nothing refills them)
            expected = _summary_text(catalog, estimate(catalog, q))
            assert _panel_rows(panel[0], column) == expected, algo_id
        keys = [n.attrs["data-key"] for n in panel[0].iter() if "data-key" in n.attrs]
        assert keys and not any(keys), algo_id  # the style hook, no key: nothing refills
        assert panel[0].text().count("Tinker prices as of") == 1, algo_id  # one list, once
        # the panel prices LoRA with the default, sourced accounting and says so
        sourced = catalog.formulas[ids.FLOPS_LORA_SOURCED]
        assert sourced.name in panel[0].text(), algo_id
        # no silent default: without a typical G the panel says G is missing, prices nothing
        assert ("G is missing" in panel[0].text()) == (e["run.G"] is None), algo_id
        if e["run.G"] is None:
            shown = shown_numbers(catalog, e)
            assert shown["tinker.total"] == shown["self.total"] == "–"
            bill = next(td for th, td in _panel_rows(panel[0], 0) if th.startswith("Tinker bill"))
            assert bill == "–", algo_id
        links = [a.attrs["href"] for a in panel[0].by_tag("a")  # not a glossary link
                 if "glossary/#" not in a.attrs["href"]]
        assert links[0].startswith("../../calculator/?a=" + algo_id)
        assert links[1] == "../../calculator/?" + calcsite.query_string(
            inputs.comparison_query(catalog, algo_id))


def with_extra_algorithms(catalog: Catalog, count: int) -> Catalog:
    """A copy of ``catalog`` with ``count`` more algorithms (copies of GRPO under new ids)."""
    import copy

    from tinkernomics.catalog.entries import KINDS_BY_NAME, Entry
    from tinkernomics.catalog.yamlread import YamlDoc

    bigger = Catalog(root=catalog.root, entries=copy.copy(catalog.entries))
    algorithms = dict(bigger.entries["algorithm"])
    grpo = catalog.algorithms["grpo"]
    for i in range(count):
        algo_id = f"synthetic-{i:04d}"
        model = grpo.model_copy(update={"id": algo_id, "name": f"Synthetic {i}"})
        algorithms[algo_id] = Entry(KINDS_BY_NAME["algorithm"], algo_id, model,
                                    YamlDoc(path=f"synthetic/{algo_id}"))
    bigger.entries["algorithm"] = algorithms
    return bigger


def test_calculator_page_does_not_grow_with_the_catalog(catalog: Catalog) -> None:
    """Issue 12: at 1,000 more algorithms the page's HTML is the very same size; each
    algorithm is a small file fetched when chosen."""
    from tinkernomics.site.build import SiteContext

    bigger = with_extra_algorithms(catalog, 1000)
    assert len(bigger.algorithms) == len(catalog.algorithms) + 1000
    small_html = calcsite.calculator_html(SiteContext(root=catalog.root, catalog=catalog))
    big_html = calcsite.calculator_html(SiteContext(root=catalog.root, catalog=bigger))
    assert len(big_html) == len(small_html)
    one = template_json(pagedata.algorithm_data(
        bigger, bigger.algorithms["synthetic-0999"], Links(pagedata.CALCULATOR)), sort_keys=True)
    assert len(one) < 4_000


def test_convergence_names_the_fit_setting_or_says_no_sourced_fit_exists(
        catalog: Catalog) -> None:
    """The convergence section prices only the charted fit (sourced: rule_scalerl_sourced), says
    where that fit was made, and for an algorithm without one says that no sourced fit exists
    (never a fallback to other values)."""
    [block] = [b for b in layout.blocks(catalog, graph_for(catalog))
               if b.get("id") == "calc-scalerl"]
    *fits, (otherwise, none_text) = block["cases"]
    assert fits and otherwise is None
    for when_fit, fit_text in fits:  # a mixture of experts, then any model (issue 44)
        assert when_fit is not None
        assert "{fit_on:text}" in fit_text and "{fit.C_mid:number}" in fit_text
        assert "How far this is stretched" in fit_text and "{model_name:text}" in fit_text
    # one basis, stated: the measured GB200-hours, beside the time model's ratio on ScaleRL
    assert any("{backtest.scalerl}" in text and "measured GB200-hours" in text
               for _, text in fits)
    assert "No sourced ScaleRL fit exists for {algorithm_name:text}" in none_text
    assert "{fit." not in none_text
    links = Links(pagedata.CALCULATOR)
    for aid, algo in catalog.algorithms.items():
        fit = algo.scalerl
        want = f"{fit.model}, {fit.dataset}" if fit else ""
        names = estimate(catalog, {"a": aid}).resolved.names
        assert names["fit_on"] == want, aid
        assert pagedata.algorithm_data(catalog, algo, links)["fit_on"] == want, aid
