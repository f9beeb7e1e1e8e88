"""The data the calculator page ships (pipeline step 6: calculator feature).

The page carries the graph (``graph.to_json``), the layout of its results (``layout``), the
query rules and the tables of models, price lists and GPUs: nothing in it grows with the number
of algorithms. Algorithms are files beside the page, written after the build: an index
(``algorithms/index.json``: id and name) and one small file per algorithm (roles, typical G and
K, ScaleRL fit, the provenance of its figures), fetched from the site itself when chosen.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import figures, ids, inputs, tree
from tinkernomics.derived.calculator.constants import default_gpu_price
from tinkernomics.derived.calculator.estimate import graph_for
from tinkernomics.derived.calculator.graph import to_json
from tinkernomics.site.calculator import layout
from tinkernomics.site.pages.views import REFERENCES, Links

CALCULATOR = "calculator/"
"""Site-relative path of the Calculator page (docs/calculator.md)."""
ALGORITHMS_DIR = "algorithms"
"""Folder, inside the calculator page's folder, of the per-algorithm files."""


def _plain(text: str | None) -> str | None:
    from tinkernomics.site.pages.views import plain

    return plain(text) if text else None


def figures_data(catalog: Catalog, found: list[figures.InputFigure],
                 links: Links) -> tuple[dict[str, Any], dict[str, Any]]:
    """Figures by key, and the references they cite (title, link)."""
    figs, refs = {}, {}
    for fig in found:
        figs[fig.key] = {"label": fig.label, "text": fig.text, "status": fig.status.value,
                         "source": fig.source, "instead": _plain(fig.reported_instead),
                         "how": fig.derivation}
        if fig.source is not None:
            ref = catalog.references[fig.source]
            refs[fig.source] = {"title": ref.title, "href": links.to(REFERENCES, fig.source)}
    return figs, refs


def algorithm_data(catalog: Catalog, algo: m.Algorithm, links: Links) -> dict[str, Any]:
    """One algorithm's file: what an estimate reads of it, and its figures' provenance."""
    fit = algo.scalerl
    figs, refs = figures_data(catalog, list(figures.algorithm_figures(algo)), links)
    typical = inputs.typical(algo)
    return {
        "name": algo.name, "roles": [r.value for r in algo.models_in_memory],
        "online": algo.online, "G": typical["G"], "K": typical["K"],
        "fit": (None if fit is None else
                [fit.A.value, fit.B.value, fit.C_mid.value,
                 fit.R0.value if fit.R0 is not None else None]),
        "figures": figs, "references": refs,
    }


def _tables(catalog: Catalog) -> dict[str, Any]:
    def fig(f: m.Figure | None) -> float | None:
        return None if f is None else f.value

    return {
        "models": {k: [x.name, x.total_params.value, derive.active_params_billion(x),
                       fig(x.d_model)] for k, x in catalog.models.items()},
        "hardware": {k: [x.name, x.bf16_dense_tflops.value, x.memory_gb.value,
                         fig(x.bandwidth_tb_s), default_gpu_price(catalog, k)]
                     for k, x in catalog.hardware.items()},
        "price_lists": {k: {"cache": fig(p.cached_prefill_discount),
                            "storage": fig(p.storage_usd_per_gb_month),
                            "rows": [[r.model, r.variant or "", r.prefill, r.sample, r.train,
                                      inputs.row_key(p, r)] for r in p.rows]}
                        for k, p in catalog.price_lists.items()},
        "formulas": {fid: {"name": catalog.formulas[fid].name,
                           "expression": catalog.formulas[fid].expression,
                           "status": catalog.formulas[fid].status.value}
                     for fid in ids.FORMULA_IDS},
    }


def page_data(catalog: Catalog, links: Links, presets: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything calculator.js needs besides the algorithm files (never typed twice)."""
    graph = graph_for(catalog)
    figs, refs = figures_data(catalog, figures.shared_figures(catalog), links)
    return {
        "graph": to_json(graph), "blocks": layout.blocks(catalog, graph),
        "rules": [[t, tree.to_tree(w) if w else None] for t, w in figures.RULES],
        "spec": {"int": inputs.INT_PATTERN, "num": inputs.NUM_PATTERN, "keys": inputs.SPEC,
                 "vram": inputs.VRAM_SPEC, "vram_names": inputs.vram_variables(catalog),
                 "lora_flops": list(inputs.LORA_FLOPS), "roles": list(inputs.ROLES),
                 "typical": list(inputs.ALGORITHM_DEFAULTS),
                 "train": ids.LORA_FLOP_FORMULAS, "full": ids.FLOPS_FULL,
                 "vram_formulas": [ids.VRAM_LORA, ids.VRAM_FULL]},
        "defaults": {"model": inputs.default_model(catalog),
                     "algorithm": inputs.DEFAULT_ALGORITHM,
                     "hardware": inputs.DEFAULT_HARDWARE,
                     "price_list": inputs.latest_price_list(catalog),
                     "query": inputs.DEFAULT_QUERY},
        **_tables(catalog),
        "figures": figs, "references": refs, "presets": presets,
        "algorithms": links.to(CALCULATOR) + ALGORITHMS_DIR + "/",
    }


def script_json(value: Any, indent: int | None = None) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</`` or ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      sort_keys=True, indent=indent)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def write_algorithm_files(catalog: Catalog, site_dir: Path) -> None:
    """``calculator/algorithms/index.json`` and ``<id>.json`` per algorithm, in the site."""
    folder = site_dir / CALCULATOR / ALGORITHMS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    links = Links(CALCULATOR)
    index = [[aid, a.name] for aid, a in catalog.algorithms.items()]
    (folder / "index.json").write_text(script_json(index), encoding="utf-8")
    for aid, algo in catalog.algorithms.items():
        (folder / f"{aid}.json").write_text(script_json(algorithm_data(catalog, algo, links)),
                                            encoding="utf-8")
