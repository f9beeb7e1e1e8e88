"""Formula expressions: what parses, which names they use, and their value (``tree.value_of``,
the calculator's evaluator: ``expr`` is the grammar only)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinkernomics.derived import expr
from tinkernomics.derived.calculator.tree import value_of
from tinkernomics.derived.expr import ExpressionError

ALLOWED = [
    "2 * P_active",
    "2 * P_active * T + 4 * P_active * T_train",
    "(a + b) / c - d",
    "-a ** 2",
    "a ** -0.5",
    "+a - -b",
    "1e9 * x / 2",
    "((((x))))",
]

REFUSED = [
    ("max(a, b)", "Call"),
    ("a.real", "Attribute"),
    ("a[0]", "Subscript"),
    ("a if b else c", "IfExp"),
    ("a < b", "Compare"),
    ("a and b", "BoolOp"),
    ("not a", "Not"),
    ("a % b", "Mod"),
    ("a // b", "FloorDiv"),
    ("a ^ b", "BitXor"),
    ("~a", "Invert"),
    ("'text'", "not a number"),
    ("True", "not a number"),
    ("lambda: 1", "Lambda"),
    ("__import__('os').system('x')", "Call"),
    ("[a, b]", "List"),
    ("a +", "not a valid expression"),
    ("a = 1", "not a valid expression"),
    ("", "not a valid expression"),
]


@pytest.mark.parametrize("expression", ALLOWED)
def test_parse_accepts_arithmetic(expression: str) -> None:
    expr.parse(expression)


@pytest.mark.parametrize(("expression", "reason"), REFUSED)
def test_parse_refuses_everything_else(expression: str, reason: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(reason)):
        expr.parse(expression)


def test_names_in_first_use_order_without_repeats() -> None:
    assert expr.names("b * a + b * c ** a") == ["b", "a", "c"]
    assert expr.names("2 * 3") == []


def test_evaluate_matches_python_arithmetic() -> None:
    env = {"a": 3.0, "b": 4.0, "c": 2.0, "d": 0.5}
    assert value_of("(a + b) / c - d", env) == (3 + 4) / 2 - 0.5
    assert value_of("-a ** 2", env) == -(3.0**2)
    assert value_of("a ** -0.5", env) == 3.0**-0.5
    assert value_of("2 * a * b", env) == 24.0


def test_evaluate_needs_every_variable() -> None:
    with pytest.raises(ExpressionError, match="no value for b, c"):
        value_of("a + b * c", {"a": 1.0})


def test_evaluate_division_by_zero_is_an_error() -> None:
    with pytest.raises(ExpressionError, match="'a / b' has no finite real value"):
        value_of("a / b", {"a": 1.0, "b": 0.0})


def test_evaluate_refuses_unsafe_expression() -> None:
    with pytest.raises(ExpressionError):
        value_of("__import__('os').getcwd()", {})


# Random arithmetic over a few variables: parse and evaluate agree with Python itself.
_leaf = st.one_of(st.sampled_from(["a", "b", "c"]),
                  st.integers(1, 9).map(str),
                  st.sampled_from(["0.5", "2.5", "1e3"]))


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    unary = children.map(lambda c: f"(-{c})")
    return st.one_of(binary, unary)


@settings(max_examples=200, deadline=None)
@given(st.recursive(_leaf, _extend, max_leaves=12))
def test_random_arithmetic_agrees_with_python(expression: str) -> None:
    env = {"a": 1.25, "b": -3.5, "c": 7.0}
    try:
        expected = eval(expression, {"__builtins__": {}}, dict(env))
    except ZeroDivisionError:
        return
    assert value_of(expression, env) == pytest.approx(expected)


def test_one_parser_two_grammars() -> None:
    """One parser (issue 41): the calculator's trees and the catalog's formulas both come from
    ``expr.to_tree``; the catalog grammar refuses what only the calculator may use."""
    from tinkernomics.derived.calculator import tree

    assert tree.to_tree("a.b * 2") is expr.to_tree("a.b * 2", expr.CALCULATOR)
    assert expr.parse("a * 2") == expr.to_tree("a * 2", expr.CALCULATOR) == \
        ["*", ["v", "a"], ["n", 2.0]]
    for extended in ("a.b * 2", "max(a, b)", "a > b", "a if b else c"):
        tree.to_tree(extended)
        with pytest.raises(ExpressionError, match="is not allowed"):
            expr.parse(extended)
