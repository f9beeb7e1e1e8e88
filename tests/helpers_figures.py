"""The tests' Python reference of an estimate's provenance (``derived/calculator/figures.py``).

The page ships every figure an estimate can rest on (``figures.shared_figures`` and
``algorithm_figures``) and the rules that pick one estimate's (``figures.RULES``);
calculator.js applies the rules. ``figure_keys`` applies them in Python, as the oracle the
browser test compares the page with (tests/test_calc_browser.py); ``provenance`` follows a
quantity's expression through the graph to the figures it may rest on (its ``uses`` and the
catalog figures its inputs are read from, ``INPUT_FIGURES``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import tree
from tinkernomics.derived.calculator.estimate import Estimate
from tinkernomics.derived.calculator.figures import (
    RULES,
    InputFigure,
    algorithm_figures,
    shared_figures,
)
from tinkernomics.derived.calculator.graph import Graph

_FIELD = re.compile(r"\{(\w+)\}")

INPUT_FIGURES: dict[str, str] = {
    # Input name -> the catalog figure it is read from (key template, as in RULES).
    "model.total_b": "model:{model}:total_params", "model.active_b": "model:{model}:active_params",
    "model.d_model": "model:{model}:d_model", "teacher.total_b": "model:{teacher}:total_params",
    "teacher.active_b": "model:{teacher}:active_params", "price.prefill": "{row}",
    "price.sample": "{row}", "price.train": "{row}", "price.teacher_prefill": "{teacher_row}",
    "price.cache": "prices:{price_list}:cache", "price.storage": "prices:{price_list}:storage",
    "hw.tflops": "hardware:{hw}:tflops", "hw.memory_gb": "hardware:{hw}:memory",
    "hw.bandwidth": "hardware:{hw}:bandwidth", "hw.price": "hardware:{hw}:price",
    "fit.A": "algorithm:{algorithm}:A", "fit.B": "algorithm:{algorithm}:B",
    "fit.C_mid": "algorithm:{algorithm}:C_mid", "algo.G": "algorithm:{algorithm}:g",
    "algo.K": "algorithm:{algorithm}:k",
}


def fill(template: str, names: Mapping[str, str]) -> str:
    return _FIELD.sub(lambda match: names[match.group(1)], template)


def registry(catalog: Catalog) -> dict[str, InputFigure]:
    """Every figure an estimate may use, by key (what the page ships)."""
    found = shared_figures(catalog)
    for algo in catalog.algorithms.values():
        found.extend(algorithm_figures(algo))
    return {f.key: f for f in found}


def figure_keys(est: Estimate, registry: Mapping[str, Any]) -> list[str]:
    """Keys of the figures one estimate used that the catalog holds, in display order."""
    names = est.resolved.names
    env = {**est.env, **est.values,
           "teacher_differs": 1.0 if names["teacher"] not in ("", names["model"]) else 0.0}
    keys = []
    for template, when in RULES:
        if when and not tree.evaluate(tree.to_tree(when), env):
            continue
        key = fill(template, names)
        if key in registry and key not in keys:
            keys.append(key)
    return keys


def input_figures(catalog: Catalog, est: Estimate) -> list[InputFigure]:
    """The figures one estimate used, with their provenance."""
    reg = registry(catalog)
    return [reg[key] for key in figure_keys(est, reg)]


def provenance(graph: Graph, key: str, names: Mapping[str, str]) -> set[str]:
    """Keys of every catalog figure and formula a quantity may rest on (any branch)."""
    found: set[str] = set()
    seen: set[str] = set()
    by_key = {q.key: q for q in graph.quantities}

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        q = by_key.get(name)
        for template in (INPUT_FIGURES.get(name, ""), *(q.uses if q else ())):
            if template and all(names[f] for f in _FIELD.findall(template)):
                found.add(fill(template, names))  # (no teacher: no teacher figures)
        if q is None:
            return
        for expression in (q.expression, q.when):
            for read in tree.names(tree.to_tree(expression or "1")):
                visit(read)

    visit(key)
    return found
