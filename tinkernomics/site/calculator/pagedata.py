"""The data the calculator page ships (pipeline step 6: calculator feature).

The page carries the graph (``graph.to_json``), the layout of its results (``layout``), every
query key with its rules (``inputs.link_inputs``) and the tables of models, price lists and GPUs
as named objects: nothing in it grows with the number of algorithms. Algorithms are files
beside the page, written after the build: an index (``algorithms/index.json``: id and name,
``write_algorithm_index``) and one small file per algorithm (``algorithm_data``: roles, typical
G and K, ScaleRL fit, the provenance of its figures), fetched from the site itself when chosen.
The per-algorithm file is written by ``site.algorithmfiles``, with the compare view's column
beside this data (one file an algorithm for both pages, issue 47).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import listing, numberformat
from tinkernomics.derived.calculator import (
    estimate,
    figures,
    ids,
    inputs,
    semantics,
    tree,
    waysgraph,
)
from tinkernomics.derived.calculator.graph import Graph, to_json
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.calculator import asof, layout, recipelayout, wayslayout
from tinkernomics.site.pages.views import REFERENCES, Links

CALCULATOR = "calculator/"
"""Site-relative path of the Calculator page (docs/calculator.md)."""
ALGORITHMS_DIR = "algorithms"
"""Folder, inside the calculator page's folder, of the per-algorithm files."""
ALGORITHM_FILES = f"{CALCULATOR}{ALGORITHMS_DIR}/"
"""Site-relative folder of the per-algorithm files (``<id>.json``) and their ``index.json``."""


def _plain(text: str | None) -> str | None:
    from tinkernomics.site.pages.views import plain

    return plain(text) if text else None


def figures_data(catalog: Catalog, found: list[figures.InputFigure],
                 links: Links) -> tuple[dict[str, Any], dict[str, Any]]:
    """Figures by key, and the references they cite (title, link). ``where`` is the figure's
    locator as plain text (the script escapes it), or None."""
    figs, refs = {}, {}
    for fig in found:
        figs[fig.key] = {"label": fig.label, "text": fig.text, "status": fig.status.value,
                         "source": fig.source, "instead": _plain(fig.reported_instead),
                         "how": fig.derivation, "where": _plain(fig.locator)}
        if fig.source is not None:
            ref = catalog.references[fig.source]
            refs[fig.source] = {"title": ref.title, "href": links.to(REFERENCES, fig.source)}
    return figs, refs


def held_key(h: estimate.Held) -> str:
    """A ``held`` entry's name in the page's table (``held_table``): its roles, in order."""
    return ",".join(h.roles)


def held_data(algo: m.Algorithm) -> dict[str, Any]:
    """``estimate.held`` for every pair of the reference and reward flags' link values, by name:
    each distinct entry's ``held_key`` once (``held``) and its index by the pair (``held_by``,
    reference first); the entries themselves are in the page's ``held_table``, once for every
    algorithm, so an algorithm's file stays small. calculator-eval.js picks by the link's two
    values."""
    found: list[str] = []
    by: dict[str, dict[str, int]] = {}
    for ref, by_rw in estimate.held_by_flags(algo).items():
        for rw, h in by_rw.items():
            if held_key(h) not in found:
                found.append(held_key(h))
            by.setdefault(ref, {})[rw] = found.index(held_key(h))
    return {"held": found, "held_by": by}


def held_table(catalog: Catalog) -> dict[str, dict[str, Any]]:
    """Every ``held`` entry an algorithm's flags can give, by ``held_key``: the roles, their
    graph inputs (``role.<role>``), the flags the form shows and the roles Tinker does not run."""
    return {held_key(h): {**asdict(h), "env": estimate.role_env(h.roles)}
            for algo in catalog.algorithms.values()
            for by_rw in estimate.held_by_flags(algo).values() for h in by_rw.values()}


def algorithm_data(catalog: Catalog, algo: m.Algorithm, links: Links) -> dict[str, Any]:
    """One algorithm's file: what an estimate reads of it, and its figures' provenance."""
    figs, refs = figures_data(catalog, list(figures.algorithm_figures(algo)), links)
    typical = inputs.typical(algo)
    return {
        "name": algo.name, "roles": semantics.default_roles(algo),
        **held_data(algo),
        "env": estimate.algorithm_env(algo),
        "teacher": semantics.teacher(algo) if semantics.teacher(algo) in catalog.models else "",
        "typical": {i.name: typical[i.typical] for i in inputs.NUMBERS if i.typical},
        "fit_on": estimate.fit_setting(algo),
        "figures": figs, "references": refs,
        "blocks": {recipelayout.SLOT: recipelayout.recipe_blocks(catalog, algo.id, links)},
    }


def model_texts(catalog: Catalog, model_id: str) -> dict[str, str]:
    """A model's named texts (``{model.<key>:text}``): its cookbook names and whether the
    newest Tinker list carries it (``listing``, issue 44)."""
    return {**recipelayout.model_texts(catalog, model_id),
            "listing": listing.listing_text(catalog, model_id)}


def _tables(catalog: Catalog) -> dict[str, Any]:
    """Models, GPUs, price lists and formulas by id, as named objects: ``inputs`` holds the
    graph inputs each sets (``estimate.model_inputs`` and the like, the same functions)."""
    def fig(f: m.Figure | None) -> float | None:
        return None if f is None else f.value

    def rows(p: m.PriceList) -> list[dict[str, Any]]:
        return [{"model": r.model, "variant": r.variant or "", "key": inputs.row_key(p, r),
                 "inputs": estimate.row_inputs(r)} for r in p.rows]

    def row_of(p: m.PriceList) -> dict[str, dict[str, int]]:
        """Per model the list prices: the index of its row for each variant and for none
        (``inputs.price_row``, resolved here; any other variant reads the row for none)."""
        found: dict[str, dict[str, int]] = {}
        for r in p.rows:
            for variant in ("", r.variant or ""):
                row = inputs.price_row(p, r.model, variant)
                found.setdefault(r.model, {})[variant] = p.rows.index(row) if row else -1
        return found

    return {
        "models": {k: {"name": x.name, "inputs": estimate.model_inputs(catalog, k),
                       "flags": waysgraph.model_flags(catalog, k),
                       "texts": model_texts(catalog, k)}
                   for k, x in catalog.models.items()},
        "hardware": {k: {"name": x.name, "inputs": estimate.hardware_inputs(catalog, k),
                         "slot": waysgraph.gpu_slot(k)}
                     for k, x in catalog.hardware.items()},
        "price_lists": {k: {"cache": fig(p.cached_prefill_discount),
                            "effective": float(p.effective.toordinal()),
                            "storage": fig(p.storage_usd_per_gb_month), "rows": rows(p),
                            "env": estimate.price_list_env(p),
                            "row_of": row_of(p),
                            "texts": asof.price_texts(p)}
                        for k, p in catalog.price_lists.items()},
        "formulas": {fid: {"name": catalog.formulas[fid].name,
                           "expression": catalog.formulas[fid].expression,
                           "status": catalog.formulas[fid].status.value}
                     for fid in ids.FORMULA_IDS},
    }


def input_data(catalog: Catalog) -> list[dict[str, Any]]:
    """Every query key in link order (``inputs.link_inputs``), ``when`` as a tree."""
    return [{**asdict(i), "when": tree.to_tree(i.when) if i.when else None}
            for i in inputs.link_inputs(catalog)]


def result_blocks(catalog: Catalog, graph: Graph, today: dt.date,
                  links: Links) -> list[dict[str, Any]]:
    """``layout.blocks`` with the stale-prices warning above the cards (``asof``), and the
    comparison of every way to run and the recipe's slot after the cost bars (``wayslayout``,
    ``recipelayout``)."""
    found = layout.blocks(catalog, graph)
    recipe = {"type": "slot", "name": recipelayout.SLOT, "id": "calc-recipe", "when": None,
              "title": "The run as a tinker-cookbook recipe", "flags": [],
              "empty": wayslayout.cases(("", "<p>The cookbook pin has no recipe for "
                                         "{algorithm_name:text}.</p>"))}
    cards = next(i for i, b in enumerate(found) if b["type"] == "cards")
    found.insert(cards + 1, wayslayout.stale_gpu_price_block(catalog, today, links))  # issue 44
    found.insert(cards, asof.stale_block(catalog, today))  # next to the result, above its cards
    at = next((i + 1 for i, b in enumerate(found) if b.get("id") == "calc-money"), len(found))
    return [*found[:at], wayslayout.ways_block(catalog, today, links), recipe, *found[at:]]


def page_data(catalog: Catalog, links: Links, presets: list[dict[str, Any]],
              today: dt.date | None = None) -> dict[str, Any]:
    """Everything calculator.js needs besides the algorithm files (never typed twice): the
    estimate's graph with the comparison of every way to run (staleness judged on ``today``,
    the site's build day; by default its newest price list's or way's date)."""
    day = today or waysgraph.catalog_day(catalog)
    graph = waysgraph.graph(catalog, day)
    figs, refs = figures_data(catalog, figures.shared_figures(catalog), links)
    return {
        "graph": to_json(graph), "blocks": result_blocks(catalog, graph, day, links),
        "rules": [[t, tree.to_tree(w) if w else None] for t, w in figures.RULES],
        "inputs": input_data(catalog), "held": held_table(catalog),
        "number_format": numberformat.CALCULATOR.data(),
        "spec": {"int": inputs.INT_PATTERN, "num": inputs.NUM_PATTERN,
                 "lora_flops": list(inputs.LORA_FLOPS),
                 "tuning": list(inputs.TUNING),
                 "no_row": estimate.row_inputs(None),
                 "formula_names": estimate.FORMULA_NAMES},
        "defaults": {"model": inputs.default_model(catalog),
                     "algorithm": inputs.DEFAULT_ALGORITHM,
                     "hardware": inputs.DEFAULT_HARDWARE,
                     "price_list": inputs.latest_price_list(catalog),
                     "query": inputs.default_query()},
        **_tables(catalog),
        "figures": figs, "references": refs, "presets": presets,
        "algorithms": links.to(CALCULATOR) + ALGORITHMS_DIR + "/",
    }


def write_algorithm_files(catalog: Catalog, site_dir: Path) -> None:
    """``calculator/algorithms/index.json`` in the site: every algorithm's id and name (the
    per-algorithm files beside it are ``site.algorithmfiles``')."""
    folder = site_dir / ALGORITHM_FILES
    folder.mkdir(parents=True, exist_ok=True)
    index = [[aid, a.name] for aid, a in catalog.algorithms.items()]
    (folder / "index.json").write_text(template_json(index, sort_keys=True), encoding="utf-8")
