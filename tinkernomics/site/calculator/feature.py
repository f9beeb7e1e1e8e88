"""The calculator on the site (pipeline step 6: a feature module of ``site.build``).

Macro ``calculator()`` renders the Calculator page: the form, the page data the browser
computes from (``pagedata``: the graph of quantities, the layout of the results, tables of
models, prices and GPUs) and, for readers without JavaScript, the default estimate computed
here. ``calculator.js`` evaluates the same graph with a generic evaluator: it holds no cost
arithmetic of its own. After the build, ``write_outputs`` writes the per-algorithm files the
page loads on demand.

Every algorithm page gets a "What does a typical run cost" panel (slot ``cost`` of
``pages.add_algorithm_section``): the default run shape with the algorithm's typical G and K,
evaluated here from the same graph, linking to the calculator with those settings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import estimate as est
from tinkernomics.derived.calculator import inputs
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.api import backtest as backtest_api
from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.calculator import asof, backtestpage, form, pagedata
from tinkernomics.site.calculator.formatting import fmt_count, fmt_number, fmt_value
from tinkernomics.site.calculator.presets import RUNS, check_presets, preset_queries
from tinkernomics.site.freshness.feature import staleness_day
from tinkernomics.site.pages.views import Links
from tinkernomics.site.pages.views.core import ALGORITHMS, algorithm_path
from tinkernomics.site.pages.views.kinds import WAYS

CALCULATOR = pagedata.CALCULATOR
SECTION_SLOT = "cost"
SECTION_ID = "typical-run-cost"


_PLAIN = re.compile(r"[A-Za-z0-9_.~:-]*")
"""Text ``quote_plus(text, safe=":")`` leaves as it is (ids, numbers, flags: a query's keys
and nearly all its values)."""


def query_string(query: Mapping[str, str]) -> str:
    """``urlencode(query, safe=":")``, without quoting what quoting leaves unchanged (two
    links on each of 1,000 algorithm pages)."""
    if all(type(k) is str and type(v) is str and _PLAIN.fullmatch(k) and _PLAIN.fullmatch(v)
           for k, v in query.items()):
        return "&".join(f"{k}={v}" for k, v in query.items())
    return urlencode(query, safe=":")


def shown_number(catalog: Catalog, e: est.Estimate, key: str) -> str:
    """One shown number of an estimate as the page shows it (its quantity's format)."""
    return fmt_value(est.graph_for(catalog).quantity(key).format, e.numbers[key])


# --------------------------------------------------------------------------- views


@cache
def _env() -> Environment:
    # auto_reload off: the package's templates, not a stat of the file at every page's panel
    return Environment(loader=PackageLoader("tinkernomics.site.calculator", "templates"),
                       autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, auto_reload=False)


def _render(template: str, **values: Any) -> str:
    """Render; drop blank lines so the HTML stays one markdown block."""
    text = _env().get_template(template).render(**values)
    return "\n".join(line for line in text.splitlines() if line.strip()) + "\n"


def summary_rows(catalog: Catalog, e: est.Estimate) -> list[dict[str, Any]]:
    """The headline numbers of an estimate: a label and parts, each a number (with its key,
    shown as ``data-key``), plain text or a status badge."""
    names = e.resolved.names
    hw, train = names["hw_name"], catalog.formulas[names["train_formula"]]
    quantity, numbers = est.graph_for(catalog).quantity, e.numbers

    def n(key: str) -> dict[str, str]:
        # one number at a time (shown_number): the panel shows a dozen of the estimate's ~60
        return {"key": key, "text": fmt_value(quantity(key).format, numbers[key]), "badge": ""}

    def t(text: str) -> dict[str, str]:
        return {"key": "", "text": text, "badge": ""}

    tinker_label = f"Tinker bill ({names['price_list']} prices)"
    if names["not_covered"]:
        tinker_label = (f"Tinker bill ({names['price_list']} prices; no "
                        f"{names['not_covered']}: Tinker runs none)")
    rows = [
        ("Tokens", [n("tokens.prefill"), t(" prefill, "), n("tokens.sample"), t(" sampled, "),
                    n("tokens.train"), t(" trained")]),
        (tinker_label, [n("tinker.total")]),
        (f"Self-hosted compute on {hw}", [n("self.total"), t(" for "), n("self.gpu_hours"),
                                          t(" GPU-hours")]),
        ("Break-even GPU price", [n("breakeven.gpu_price"), t(" per GPU-hour")]),
        ("GPU memory", [n("mem.peak"), t(" at the peak, on "), n("mem.min_gpus"),
                        t(f" × {hw}")]),
        ("Training FLOPs per token", [t(f"{train.name}: {train.expression}"),
                                      {"key": "", "text": train.status.value,
                                       "badge": train.status.value}]),
    ]
    if e["fit.C_mid"] is not None:
        rows.append((f"Compute to {fmt_number(e['run.target_percent'])}% of the ScaleRL gain",
                     [n("scalerl.gb200_hours"), t(" GB200-hours ("), n("scalerl.h100_hours"),
                      t(" H100-equivalent), "), n("scalerl.usd"), t(f" on {hw}")]))
    return [{"label": label, "cells": cells} for label, cells in rows]


def _count(value: float | None) -> str:
    return "not in the catalog" if value is None else fmt_count(value)


def describe_run(e: est.Estimate) -> str:
    """One sentence: which run this estimate is."""
    names = e.resolved.names
    mode = "full fine-tuning"
    if e["run.lora"]:
        # the rank only matters to an accounting whose formula uses it
        mode = f"LoRA rank {fmt_count(e['lora.rank'])}" if e["run.lf_site"] else "LoRA"
    turns = f", {fmt_count(e['run.T'])} turns" if e["run.T"] > 1 else ""
    return (f"{names['algorithm_name']} on {names['model_name']} ({mode}): "
            f"{fmt_count(e['run.steps'])} steps × {fmt_count(e['run.prompts'])} prompts × "
            f"G = {_count(e['run.G'])}, K = {_count(e['run.K'])}, {fmt_count(e['run.C0'])} + "
            f"{fmt_count(e['run.out'])} tokens{turns}; GPU: {names['hw_name']}.")


BAR: tuple[tuple[str, str], ...] = (
    ("Tinker bill", "tinker.total"), ("Self-hosted", "self.total"),
    ("GPU-hours", "self.gpu_hours"), ("Peak memory", "mem.peak"),
)
"""The summary that stays in view while the inputs change (label, quantity key): the headline
cards' numbers, refilled by calculator.js from each estimate (``templates/bar.html``)."""


def bar_items(catalog: Catalog, e: est.Estimate) -> list[dict[str, str]]:
    """The summary bar of an estimate: label, quantity key and the number as shown."""
    return [{"label": label, "key": key, "text": shown_number(catalog, e, key)}
            for label, key in BAR]


def noscript_view(catalog: Catalog, links: Links, default: Mapping[str, str]) -> dict[str, Any]:
    """Where a reader without JavaScript finds estimates computed at build time: the default
    algorithm's cost panel (the same run when the comparison run is the default run), the
    algorithms table and the Ways to run page."""
    algo_id = default.get("a", inputs.DEFAULT_ALGORITHM)
    return {"algorithm": catalog.algorithms[algo_id].name,
            "panel_href": links.to(algorithm_path(algo_id), SECTION_ID),
            "table_href": links.to(ALGORITHMS), "ways_href": links.to(WAYS),
            "same_run": dict(default) == inputs.comparison_query(catalog, algo_id)}


# --------------------------------------------------------------------------- macros


def calculator_html(ctx: SiteContext) -> str:
    """The Calculator page body."""
    catalog = ctx.catalog
    check_presets(catalog)
    links = Links(CALCULATOR)
    queries = preset_queries(catalog)
    e = est.estimate(catalog, queries[0])
    presets = [{"label": label, "href": "?" + query_string(q)}
               for (label, _), q in zip(RUNS, queries, strict=True)]
    today = staleness_day(ctx.root)  # staleness: the build day
    data = pagedata.page_data(catalog, links, presets, today)
    return _render(
        "calculator.html", data=Markup(template_json(data, sort_keys=True)),
        groups=form.form_groups(catalog, e), presets=presets,
        summary=summary_rows(catalog, e), run=describe_run(e), bar=bar_items(catalog, e),
        noscript=noscript_view(catalog, links, queries[0]),
        asof=asof.view(catalog, e.choice.price_list, today),
    )


def _cells_html(cells: list[dict[str, str]]) -> Markup:
    """One run's cells of a summary row as the panel prints them: numbers bare in ``data-key``
    spans (the stylesheet's hook: no wrapping, tabular digits; nothing refills a static panel)."""
    parts = []
    for c in cells:
        text = escape(c["text"])
        if c["key"]:
            parts.append(f"<span data-key>{text}</span>")
        elif c["badge"]:
            parts.append(f'<span class="tn-badge tn-badge--{escape(c["badge"])}">{text}</span>')
        else:
            parts.append(str(text))
    return Markup("".join(parts))


def panel_rows(catalog: Catalog, typical: est.Estimate,
               comparison: est.Estimate) -> list[dict[str, Any]]:
    """The two runs' summaries as one table's rows: a label and one cell per run, or one cell
    for both where the two runs agree (the FLOPs formula, the ScaleRL compute, often memory)."""
    theirs = {row["label"]: _cells_html(row["cells"])
              for row in summary_rows(catalog, comparison)}
    rows = []
    for row in summary_rows(catalog, typical):
        mine = _cells_html(row["cells"])
        other = theirs.pop(row["label"], Markup("–"))
        rows.append({"label": row["label"], "cells": [mine] if mine == other else [mine, other]})
    rows += [{"label": label, "cells": [Markup("–"), cells]} for label, cells in theirs.items()]
    return rows


@dataclass(frozen=True)
class PanelBasis:
    """What the cost panels of one build's algorithm pages share: the price list both runs
    price (the newest), the default model and the prices' date and staleness, rendered. Made
    once per build (``panel_basis``), not once per page."""

    price_list: str
    model: str
    asof: Markup


_PANEL_BASIS = "calculator.panel_basis"
"""Key in ``SiteContext.extra``: this build's ``PanelBasis``."""


def panel_basis(ctx: SiteContext) -> PanelBasis:
    """This build's ``PanelBasis``, made by the first algorithm page that asks."""
    basis = ctx.extra.get(_PANEL_BASIS)
    if basis is None:
        catalog = ctx.catalog
        price_list = inputs.latest_price_list(catalog)
        view = asof.view(catalog, price_list, staleness_day(ctx.root))
        basis = ctx.extra[_PANEL_BASIS] = PanelBasis(
            price_list, inputs.default_model(catalog),
            Markup(_env().get_template("asof.html").render(asof=view)))
    return basis


def typical_run_section(ctx: SiteContext, algo_id: str, links: Links) -> str:
    """Markdown section for an algorithm page: the default run with its typical G and K beside
    the comparison run (the same for every algorithm), one table, one price-list date (both
    runs price the newest list)."""
    catalog = ctx.catalog
    basis = panel_basis(ctx)
    query = inputs.query({"algorithm": algo_id, "model": basis.model,
                          "price_list": basis.price_list, "hardware": inputs.DEFAULT_HARDWARE})
    compare = inputs.comparison_query(catalog, algo_id)  # pins the same newest list
    e, c = est.estimate(catalog, query), est.estimate(catalog, compare)
    calculator = links.to(CALCULATOR)
    html = _render("panel.html", rows=panel_rows(catalog, e, c), run=describe_run(e),
                   href=calculator + "?" + query_string(query), compare_run=describe_run(c),
                   compare_href=calculator + "?" + query_string(compare),
                   algorithm=catalog.algorithms[algo_id].name, missing_g=e["run.G"] is None,
                   asof=basis.asof)
    # Outside the search index: figures only, and the calculator page is where runs are found.
    return f"## What does a typical run cost? {{#{SECTION_ID} data-search-exclude}}\n\n{html}"


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """``calculator()``; also adds the typical-run panel to every algorithm page."""
    from tinkernomics.site.pages.feature import add_algorithm_section

    add_algorithm_section(ctx, SECTION_SLOT, typical_run_section)

    def calculator() -> str:
        """The RL-run cost calculator (form, page data, default estimate)."""
        return calculator_html(ctx)

    def backtest_page() -> str:
        """The Back-test page: every published run's estimate beside what it used."""
        return _render("backtest.html", **backtestpage.view(ctx.catalog))

    return {"calculator": calculator, "backtest_page": backtest_page}


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """The per-algorithm files the calculator page loads when an algorithm is chosen, and the
    Back-test page's table as data (``site/api/backtest.py``)."""
    pagedata.write_algorithm_files(ctx.catalog, site_dir)
    backtest_api.write(ctx.catalog, site_dir)
