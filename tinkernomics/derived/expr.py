"""Formula expressions: the grammar (pipeline step 5, derived numbers; a leaf module).

A catalog formula's ``expression`` is plain arithmetic over named variables (``+ - * / **``,
parentheses, finite numbers). It is parsed with Python's ``ast`` and only those nodes are
accepted; ``names`` lists its variables (the catalog rules check them against the formula's
declared variables). Nothing here evaluates: the one evaluator is the calculator's
(``derived/calculator/tree.py``), which walks the same expression for the Formulas page's
worked examples (``tree.value_of``), the calculator in Python and, as a JSON tree, the
calculator in the browser.
"""

from __future__ import annotations

import ast
import math
from functools import lru_cache

_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
}
_UNARY: dict[type[ast.unaryop], str] = {ast.USub: "-", ast.UAdd: "+"}


class ExpressionError(ValueError):
    """The expression is not plain arithmetic over names, or has no value."""


def number(value: object) -> float:
    """A constant of an expression as a float; ExpressionError unless a finite number
    (``1e999`` parses as infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ExpressionError(f"constant {value!r} is not a number")
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise ExpressionError(f"constant {str(value)[:20]} is not a finite number")
    return result


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
        number(node.value)
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
