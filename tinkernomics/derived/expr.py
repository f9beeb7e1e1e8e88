"""Formula expressions: parse, check and evaluate.

A catalog formula's ``expression`` is plain arithmetic over named variables (``+ - * / **``,
parentheses, numbers). It is parsed with Python's ``ast`` and only those nodes are accepted, so
the Formulas page, the calculator in Python and the calculator in the browser all evaluate the
very same expression (the calculator inlines it into its graph: ``derived/calculator/tree.py``).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from functools import lru_cache

_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
}
_UNARY: dict[type[ast.unaryop], str] = {ast.USub: "-", ast.UAdd: "+"}


class ExpressionError(ValueError):
    """The expression is not plain arithmetic over names."""


def _check(node: ast.AST) -> None:
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _BINOPS:
            raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
        _check(node.operand)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ExpressionError(f"constant {node.value!r} is not a number")
    elif not isinstance(node, ast.Name):
        raise ExpressionError(
            f"{type(node).__name__} is not allowed; use + - * / ** and parentheses"
        )


@lru_cache(maxsize=256)
def parse(expression: str) -> ast.expr:
    """Parse and check an expression; raise ExpressionError with the reason."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as err:
        raise ExpressionError(f"not a valid expression: {err.msg}") from err
    _check(tree.body)
    return tree.body


def names(expression: str) -> list[str]:
    """Variable names used, in first-use order."""
    seen: dict[str, None] = {}
    for node in ast.walk(parse(expression)):
        if isinstance(node, ast.Name):
            seen.setdefault(node.id, None)
    return list(seen)


def _eval(node: ast.expr, env: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return float(env[node.id])
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env)
        return -value if isinstance(node.op, ast.USub) else value
    assert isinstance(node, ast.BinOp)
    left, right = _eval(node.left, env), _eval(node.right, env)
    op = type(node.op)
    if op is ast.Add:
        return left + right
    if op is ast.Sub:
        return left - right
    if op is ast.Mult:
        return left * right
    if op is ast.Div:
        return left / right if right else math.inf
    return left**right


def evaluate(expression: str, env: Mapping[str, float]) -> float:
    """Value of the expression with variables from ``env`` (every name must be present)."""
    missing = [n for n in names(expression) if n not in env]
    if missing:
        raise ExpressionError(f"no value for {', '.join(missing)}")
    return _eval(parse(expression), env)
