"""The compiled graph (``calculator/compiled.py``) gives bit for bit what the tree walk gives.

``graph.evaluate`` runs a graph compiled to one Python function; ``graph.walk`` walks the JSON
trees the page ships (``tree.evaluate``, the rules ``calculator.js`` follows). Compared on the
real catalog's graph (its structure, not its numbers) over every algorithm, model, price list
and GPU, over inputs disturbed at random (missing, zero, negative, huge, tiny values), and on
small graphs for each rule: laziness (an untaken branch reads nothing), missing values,
non-finite results, and the fallback for a graph too deep to compile.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Mapping
from typing import Any

import pytest
from helpers_calc import TOY_GPU, TOY_MODEL, TOY_PRICES, with_toys

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import compiled, estimate, inputs
from tinkernomics.derived.calculator import graph as g
from tinkernomics.derived.calculator.graph import Graph, Quantity

ODD_VALUES: tuple[Any, ...] = (None, 0.0, -0.0, 1.0, -1.0, 3, True, 0.5, -2.5, 1e300, -1e300,
                               1e-300, 5e-324, 1e-9, 7e12, float("inf"), float("nan"))


def _bits(values: Mapping[str, float | None]) -> list[tuple[str, Any]]:
    """Keys in order with each value's exact bits (None kept as None; -0.0 is not 0.0)."""
    return [(k, None if v is None else (type(v).__name__, struct.pack("<d", v)))
            for k, v in values.items()]


def _compiled_now(graph: Graph, env: Mapping[str, Any]) -> dict[str, float | None]:
    """``evaluate`` past its warm-up walks, so that the compiled function answers."""
    for _ in range(g.COMPILE_AFTER + 1):
        result = g.evaluate(graph, env)
    assert graph._compiled is not None and graph._compiled[1] is not None
    return result


def _same(graph: Graph, env: Mapping[str, Any]) -> None:
    assert _bits(g.evaluate(graph, env)) == _bits(g.walk(graph, env))


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_toys(catalog)


def _envs(catalog: Catalog) -> list[dict[str, Any]]:
    """The inputs of every algorithm with every model, price list and GPU (the default of
    the rest), and the toy run."""
    queries = [{"a": a} for a in catalog.algorithms]
    queries += [{"m": m} for m in catalog.models] + [{"p": p} for p in catalog.price_lists]
    queries += [{"hw": h} for h in catalog.hardware]
    queries += [{"a": a, "m": TOY_MODEL, "p": TOY_PRICES, "hw": TOY_GPU, "ft": "full"}
                for a in catalog.algorithms]
    return [estimate.environment(catalog, estimate.resolve(catalog, inputs.choose(catalog, q)))
            for q in queries]


def test_real_graph_same_bits_for_every_choice(toy: Catalog) -> None:
    graph = estimate.graph_for(toy)
    envs = _envs(toy)
    _compiled_now(graph, envs[0])
    for env in envs:
        _same(graph, env)


def test_real_graph_same_bits_for_disturbed_inputs(toy: Catalog) -> None:
    graph = estimate.graph_for(toy)
    envs = _envs(toy)
    _compiled_now(graph, envs[0])
    rng = random.Random(47)
    for _ in range(400):
        env = dict(rng.choice(envs))
        for key in rng.sample(sorted(env), k=rng.randint(1, 12)):
            env[key] = rng.choice(ODD_VALUES) if rng.random() < 0.6 else rng.uniform(-1e3, 1e6)
        _same(graph, env)


def _graph(*quantities: Quantity, inputs: tuple[str, ...] = ("a", "b", "c")) -> Graph:
    graph = Graph(inputs=inputs)
    graph.add(*quantities)
    return graph


RULES = [
    "a + b * c", "a - b / c", "a ** b", "(-a) ** 0.5", "a / (b - b)", "-a", "a > b",
    "a >= b", "a < b", "a <= b", "a == b", "min(a, b, c)", "max(a)", "ceil(a / 3)",
    "coalesce(a, b, c)", "missing(a)", "a if b > c else c", "10 ** a", "min(a, 2) * max(b, -1)",
]


@pytest.mark.parametrize("expression", RULES)
def test_each_rule_same_bits(expression: str) -> None:
    graph = _graph(Quantity("x", expression, format="number"),
                   Quantity("y", "x * 2", format="number", when="a"))
    rng = random.Random(expression)
    _compiled_now(graph, {"a": 1.0, "b": 2.0, "c": 3.0})
    for _ in range(200):
        _same(graph, {name: rng.choice(ODD_VALUES) for name in ("a", "b", "c")})


def test_untaken_branches_read_nothing() -> None:
    """``coalesce``, ``if`` and ``when`` stop where the walk stops: an input the environment
    lacks raises only where it is read."""
    graph = _graph(Quantity("x", "coalesce(a, c)", format="number"),
                   Quantity("y", "b if a > 0 else c", format="number"),
                   Quantity("z", "c", format="number", when="a < 0"))
    env = {"a": 1.0, "b": 2.0}
    assert _compiled_now(graph, env) == g.walk(graph, env) == {"x": 1.0, "y": 2.0, "z": None}
    with pytest.raises(KeyError):
        g.evaluate(graph, {"a": None, "b": 2.0})


class _Counting(dict[str, Any]):
    """An environment that counts how often each name is looked up."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        self.reads: dict[str, int] = {}

    def __getitem__(self, name: str) -> Any:
        self.reads[name] = self.reads.get(name, 0) + 1
        return super().__getitem__(name)


def test_a_top_level_input_is_read_once_and_a_branch_reads_its_own() -> None:
    """An input read where every statement runs is converted once per evaluation, however
    many quantities name it; one first read inside a branch is read again where it is used
    outside it, and an untaken branch still reads nothing."""
    graph = _graph(Quantity("x", "a * b + a", format="number"),
                   Quantity("y", "a / 2 + (c if b > 5 else 0)", format="number"),
                   Quantity("z", "c + a", format="number"))
    env = _Counting({"a": 4.0, "b": 3.0, "c": 1.0})
    assert _compiled_now(graph, env) == {"x": 16.0, "y": 2.0, "z": 5.0}
    env.reads.clear()
    assert g.evaluate(graph, env) == {"x": 16.0, "y": 2.0, "z": 5.0}
    assert env.reads == {"a": 1, "b": 1, "c": 1}
    env = _Counting({"a": 4.0, "b": 9.0, "c": 1.0})
    assert g.evaluate(graph, env) == g.walk(graph, {"a": 4.0, "b": 9.0, "c": 1.0})
    assert env.reads == {"a": 1, "b": 1, "c": 2}


def test_too_deep_falls_back_to_the_walk() -> None:
    deep = "a"
    for _ in range(compiled.MAX_DEPTH + 5):
        deep = f"({deep} if b else c)"
    graph = _graph(Quantity("x", deep, format="number"))
    env = {"a": 1.5, "b": 1.0, "c": 2.0}
    for _ in range(g.COMPILE_AFTER + 2):
        assert g.evaluate(graph, env) == {"x": 1.5}
    assert graph._compiled is not None and graph._compiled[1] is None


def test_adding_a_quantity_recompiles() -> None:
    graph = _graph(Quantity("x", "a + 1", format="number"))
    _compiled_now(graph, {"a": 1.0})
    graph.add(Quantity("y", "x * b", format="number"))
    assert graph._compiled is None
    assert g.evaluate(graph, {"a": 1.0, "b": 3.0}) == {"x": 2.0, "y": 6.0}
    assert graph._compiled is not None, "a graph compiled before compiles again at once"
    assert _compiled_now(graph, {"a": 1.0, "b": 3.0}) == {"x": 2.0, "y": 6.0}
