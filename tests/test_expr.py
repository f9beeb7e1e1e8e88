"""Formula expressions: what parses, which names they use, their value, and their JavaScript."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinkernomics.derived import expr
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


@pytest.mark.parametrize(("expression", "reason"), REFUSED)
def test_to_js_refuses_what_parse_refuses(expression: str, reason: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(reason)):
        expr.to_js(expression)


def test_names_in_first_use_order_without_repeats() -> None:
    assert expr.names("b * a + b * c ** a") == ["b", "a", "c"]
    assert expr.names("2 * 3") == []


def test_evaluate_matches_python_arithmetic() -> None:
    env = {"a": 3.0, "b": 4.0, "c": 2.0, "d": 0.5}
    assert expr.evaluate("(a + b) / c - d", env) == (3 + 4) / 2 - 0.5
    assert expr.evaluate("-a ** 2", env) == -(3.0**2)
    assert expr.evaluate("a ** -0.5", env) == 3.0**-0.5
    assert expr.evaluate("2 * a * b", env) == 24.0


def test_evaluate_needs_every_variable() -> None:
    with pytest.raises(ExpressionError, match="no value for b, c"):
        expr.evaluate("a + b * c", {"a": 1.0})


def test_evaluate_division_by_zero_is_infinite() -> None:
    assert expr.evaluate("a / b", {"a": 1.0, "b": 0.0}) == math.inf


def test_evaluate_refuses_unsafe_expression() -> None:
    with pytest.raises(ExpressionError):
        expr.evaluate("__import__('os').getcwd()", {})


def _js_to_python(js: str) -> str:
    """Translate the subset `to_js` emits back to Python (Math.pow -> pow)."""
    return js.replace("Math.pow", "pow")


JS_TOKENS = re.compile(r"Math\.pow|v\['[A-Za-z_][A-Za-z0-9_]*'\]|[0-9.e+-]+|[()*/+\-, ]")


@pytest.mark.parametrize("expression", ALLOWED)
def test_to_js_is_the_same_arithmetic(expression: str) -> None:
    js = expr.to_js(expression)
    assert JS_TOKENS.sub("", js) == "", f"unexpected tokens in {js!r}"
    env = {name: 1.5 + i for i, name in enumerate(expr.names(expression))}
    as_python = eval(_js_to_python(js), {"__builtins__": {"pow": pow}}, {"v": env})
    assert as_python == pytest.approx(expr.evaluate(expression, env))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_to_js_runs_in_javascript() -> None:
    cases = [(e, {n: 1.5 + i for i, n in enumerate(expr.names(e))}) for e in ALLOWED]
    program = "\n".join(
        f"console.log(JSON.stringify((v => {expr.to_js(e)})({json.dumps(env)})));"
        for e, env in cases
    )
    out = subprocess.run(["node", "-e", program], capture_output=True, text=True, check=True,
                         timeout=60).stdout.split()
    assert len(out) == len(cases)
    for (expression, env), printed in zip(cases, out, strict=True):
        assert float(printed) == pytest.approx(expr.evaluate(expression, env))


# Random arithmetic over a few variables: parse, evaluate and to_js agree with Python itself.
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
    assert expr.evaluate(expression, env) == pytest.approx(expected)
    js = _js_to_python(expr.to_js(expression))
    assert eval(js, {"__builtins__": {"pow": pow}}, {"v": env}) == pytest.approx(expected)
