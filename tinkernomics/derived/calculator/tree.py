"""Calculator expressions as JSON trees, and their evaluation (pipeline step 5, derived numbers).

The calculator's quantities are written in the catalog's expression language (``expr``: ``+ - *
/ **``, parentheses, numbers, names) plus what an estimate needs and a catalog formula must not
use: dotted names (``tokens.train``), the functions ``min``, ``max``, ``ceil``, ``coalesce``
(first value that is not missing) and ``missing`` (1 if its argument is missing, else 0),
comparisons (``a > b`` is 1 or 0) and ``a if c else b``.

``to_tree`` turns an expression into a small JSON tree; ``evaluate`` here and ``evalTree`` in
``calculator.js`` walk that same tree with the same rules, so Python and the browser compute
every quantity with the same float operations in the same order. A missing value (``None``,
JavaScript ``null``) makes every result that reads it missing, except through ``coalesce`` and
the untaken branch of an ``if``.

This is the project's one evaluator: a catalog formula's worked example (``value_of``, through
``derive.worked_example``) is evaluated here too; ``expr`` is the grammar only. Every value is a
finite real number or missing: an operation whose result is not (``0/0``, ``-1/0``,
``(-8) ** 0.5``, ``10 ** 400``) is missing in Python and in JavaScript alike, and the page shows
it as "–"; a worked example with no finite value is an ``ExpressionError`` naming its
expression.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tinkernomics.derived import expr
from tinkernomics.derived.expr import ExpressionError, Tree
from tinkernomics.derived.expr import tree_names as names

__all__ = ["ExpressionError", "Tree", "evaluate", "names", "to_tree", "value_of"]


def to_tree(expression: str) -> Tree:
    """The expression's JSON tree (``expr.to_tree``, the one parser, in the calculator's
    grammar); raise ExpressionError with the reason."""
    return expr.to_tree(expression, expr.CALCULATOR)


# --------------------------------------------------------------------------- evaluation

Value = float | None


def _finite(value: float) -> Value:
    """An operation's result, or None (missing) where it is not a finite real number."""
    return value if math.isfinite(value) else None


def power(left: float, right: float) -> Value:
    """``left ** right`` as a real number: None for an overflow (``10 ** 400``) or a complex
    result (``(-8) ** 0.5``), where Python's ``**`` raises or returns a complex number."""
    try:
        return _finite(math.pow(left, right))
    except (OverflowError, ValueError):
        return None


def _binary(op: str, a: float, b: float) -> Value:
    if op == "+":
        return _finite(a + b)
    if op == "-":
        return _finite(a - b)
    if op == "*":
        return _finite(a * b)
    if op == "/":
        return _finite(a / b) if b != 0 else None
    if op == "**":
        return power(a, b)
    result = {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b, "==": a == b}[op]
    return 1.0 if result else 0.0


def _function(name: str, args: list[Tree], env: Mapping[str, Any]) -> Value:
    if name == "coalesce":
        for arg in args:
            value = evaluate(arg, env)
            if value is not None:
                return value
        return None
    if name == "missing":
        return 1.0 if evaluate(args[0], env) is None else 0.0
    maybe = [evaluate(a, env) for a in args]
    values = [v for v in maybe if v is not None]
    if len(values) < len(maybe):
        return None
    if name == "ceil":
        return float(math.ceil(values[0]))
    return min(values) if name == "min" else max(values)


def read(value: Any) -> Value:
    return None if value is None else _finite(float(value))


def evaluate(tree: Tree, env: Mapping[str, Any]) -> Value:
    """The tree's value over ``env`` (names -> float or None); KeyError for an unknown name.

    Every value is a finite real number or missing (None): an operation whose result is not
    (``0/0``, ``-1/0``, ``(-8) ** 0.5``, ``10 ** 400``) is missing, as is a non-finite input.
    """
    kind = tree[0]
    if kind == "n":
        return tree[1]
    if kind == "v":
        return read(env[tree[1]])
    if kind == "f":
        return _function(tree[1], tree[2], env)
    if kind == "if":
        test = evaluate(tree[1], env)
        if test is None:
            return None
        return evaluate(tree[2] if test != 0 else tree[3], env)
    if kind == "neg":
        inner = evaluate(tree[1], env)
        return None if inner is None else -inner
    left, right = evaluate(tree[1], env), evaluate(tree[2], env)
    if left is None or right is None:
        return None
    return _binary(kind, left, right)


def value_of(expression: str, env: Mapping[str, float]) -> float:
    """The expression's value with every name from ``env`` (a catalog formula's worked
    example): evaluated by ``evaluate``, the calculator's rules. ExpressionError, naming the
    expression, for a name ``env`` lacks or a result that is not a finite real number."""
    parsed = to_tree(expression)
    missing = [n for n in names(parsed) if n not in env]
    if missing:
        raise ExpressionError(f"{expression!r}: no value for {', '.join(missing)}")
    value = evaluate(parsed, env)
    if value is None:
        given = ", ".join(f"{n} = {env[n]!r}" for n in names(parsed))
        raise ExpressionError(f"{expression!r} has no finite real value at {given or 'no names'}"
                              " (a division by zero, an overflow or a complex power)")
    return value
