"""The calculator's estimate as data: a graph of named quantities (pipeline step 5).

Every number of an estimate is a ``Quantity``: a key (``tinker.total``), an expression in the
calculator's expression language (``tree``) over the estimate's inputs (``inputs.env``) and over
quantities defined before it, a display format, a label and its provenance (the catalog
figures and formulas it rests on). A ``Line`` is a cost line of a bill: its quantities are
generated from it and its bill's totals sum every line, so adding a cost line is one ``Line``
in ``model.py``.

Python evaluates the graph here (reference results, algorithm pages, tests); the calculator page
ships ``to_json(graph)`` and ``calculator.js`` evaluates the very same trees in the same order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

from tinkernomics.derived.calculator import compiled
from tinkernomics.derived.calculator import tree as t

FORMATS = ("count", "gb", "flops", "hours", "percent", "ratio", "number", "usd")
"""Display kinds of a quantity (``site/calculator/formatting.py`` and calculator.js)."""


@dataclass(frozen=True)
class Quantity:
    """One named number of an estimate."""

    key: str
    expression: str
    _: KW_ONLY
    """Everything after the key and the expression is given by name (issue 41: one builder,
    no argument order to remember)."""
    format: str
    label: str = ""
    when: str = ""
    """An expression; where it is 0 or missing the quantity does not apply (missing)."""
    uses: tuple[str, ...] = ()
    """Provenance: key templates of the catalog figures and formulas (``figures.py``) it rests
    on; read by the tests (``tests/helpers_figures.provenance``), not shipped to the page."""
    shown: bool = True
    """Part of ``numbers`` (what the page and the tests compare); False for helpers."""


@dataclass(frozen=True)
class Line:
    """A cost line of a bill (``group`` ``tinker`` or ``self``): what it prices and how."""

    group: str
    key: str
    label: str
    phase: str
    when: str
    how: str
    """Template of the 'How' cell: ``{name}`` or ``{name:format}`` of quantities and inputs."""
    uses: tuple[str, ...] = ()


ARCH_FIGURES = ("total_b", "active_b", "layers", "heads", "kv_heads", "head_dim", "d_model",
                "vocab", "mlp")
"""Model inputs a link may replace by a figure of its own (``arch.<name>``, ``model.build``)."""
_ARCH_NAME = re.compile(r"(?<![\w.])model\.(" + "|".join(ARCH_FIGURES) + r")(?![\w])")


def _aliased(q: Quantity, known: set[str]) -> Quantity:
    """``q`` reading ``arch.<name>`` where it reads ``model.<name>``, once the graph defines
    ``arch.<name>`` (the model's figure or the link's own): one place decides which."""
    def swap(text: str) -> str:
        return _ARCH_NAME.sub(lambda m: f"arch.{m.group(1)}" if f"arch.{m.group(1)}" in known
                              else m.group(0), text)
    if q.key.startswith("arch."):
        return q
    return replace(q, expression=swap(q.expression), when=swap(q.when))


@dataclass
class Graph:
    """Quantities in evaluation order; every name a quantity reads is an input or comes earlier."""

    inputs: tuple[str, ...]
    quantities: list[Quantity] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    _by_key: dict[str, Quantity] = field(default_factory=dict, init=False, repr=False,
                                         compare=False)
    """``quantities`` by key, kept by ``add`` (quantities are added only through it)."""
    _compiled: tuple[tuple[str, ...], compiled.Compiled | None] | None = field(
        default=None, init=False, repr=False, compare=False)
    """(the keys, ``compiled.compile_graph`` of the quantities), made by ``evaluate``."""
    _walks: int = field(default=0, init=False, repr=False, compare=False)
    """Evaluations by ``walk`` (``evaluate`` compiles after ``COMPILE_AFTER``, and at once
    after an ``add`` to a graph walked that often)."""

    def add(self, *items: Quantity) -> None:
        known = set(self.inputs) | set(self._by_key)
        for q in items:
            q = _aliased(q, known)
            if q.format not in FORMATS:
                raise ValueError(f"quantity {q.key}: unknown format {q.format!r}")
            if q.key in known:
                raise ValueError(f"quantity {q.key} is defined twice")
            for expression in (q.expression, q.when):
                unknown = [n for n in t.names(t.to_tree(expression or "1")) if n not in known]
                if unknown:
                    raise ValueError(f"quantity {q.key} reads {', '.join(unknown)}, "
                                     "which is neither an input nor an earlier quantity")
            self.quantities.append(q)
            self._by_key[q.key] = q
            known.add(q.key)
        self._compiled = None  # evaluations so far still count: an often-evaluated graph
        # compiles again at its next evaluation (issue 47: the published runs' range added after
        # they were estimated used to cost eight more walks)

    def keys(self) -> list[str]:
        return [q.key for q in self.quantities]

    def quantity(self, key: str) -> Quantity:
        """The quantity named ``key`` (KeyError if none); ``add`` keeps the index by key
        (pages look up thousands per build)."""
        if key not in self._by_key:
            raise KeyError(f"no quantity {key!r} in the calculator graph")
        return self._by_key[key]


COMPILE_AFTER = 8
"""Evaluations of a graph by ``walk`` before ``evaluate`` compiles it: compiling costs about
as much as 80 walks, and a test's catalog is evaluated a few times where a build's is
evaluated thousands of times."""


def evaluate(graph: Graph, env: Mapping[str, Any]) -> dict[str, float | None]:
    """Every quantity's value (None where it does not apply or an input is missing): the
    same numbers as ``walk``, by the graph compiled once (``compiled.py``) once it is
    evaluated often."""
    held = graph._compiled
    if held is None or len(held[0]) != len(graph.quantities):
        graph._walks += 1
        if graph._walks <= COMPILE_AFTER:
            return walk(graph, env)
        held = graph._compiled = (tuple(graph.keys()), compiled.compile_graph(
            [(q.key, t.to_tree(q.when) if q.when else None, t.to_tree(q.expression))
             for q in graph.quantities]))
    if held[1] is None:
        return walk(graph, env)
    return dict(zip(held[0], held[1](env), strict=True))


def walk(graph: Graph, env: Mapping[str, Any]) -> dict[str, float | None]:
    """``evaluate`` by walking every tree (``tree.evaluate``): the reference the compiled
    function is tested against, and the way for a graph Python cannot compile."""
    values: dict[str, Any] = dict(env)
    out: dict[str, float | None] = {}
    for q in graph.quantities:
        applies = t.evaluate(t.to_tree(q.when), values) if q.when else 1.0
        value = t.evaluate(t.to_tree(q.expression), values) if applies else None
        values[q.key] = out[q.key] = value
    return out


def numbers(graph: Graph, values: Mapping[str, float | None]) -> dict[str, float | None]:
    """The shown quantities (what the page tags with ``data-key``)."""
    return {q.key: values[q.key] for q in graph.quantities if q.shown}


def to_json(graph: Graph) -> list[list[Any]]:
    """The graph as the page ships it, in evaluation order: one compact row per quantity,
    ``[key, format, shown (1/0), when tree or null, expression tree]``."""
    return [[q.key, q.format, 1 if q.shown else 0, t.to_tree(q.when) if q.when else None,
             t.to_tree(q.expression)] for q in graph.quantities]
