"""Expressions: the one grammar and its one parser (pipeline step 5, derived numbers; a leaf).

A catalog formula's ``expression`` is plain arithmetic over named variables (``+ - * /
**``, parentheses, finite numbers: the ``CATALOG`` grammar); the calculator's quantities use
the same language plus dotted names, a few functions, comparisons and ``a if c else b``
(``CALCULATOR``). ``to_tree`` parses either with Python's ``ast``, accepts only its grammar's
nodes and returns the small JSON tree that ``derived/calculator/tree.py`` evaluates (in Python;
calculator.js walks the same tree). ``parse`` and ``names`` read a catalog formula (the catalog
rules check its names against the formula's declared variables). Nothing here evaluates.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

Tree = list[Any]
"""``["n", 2.0]`` number, ``["v", "a.b"]`` name, ``[op, left, right]`` with op one of
``+ - * / ** > >= < <= ==``, ``["neg", x]``, ``["if", cond, then, else]``, ``["f", name, args]``."""

FUNCTIONS = ("min", "max", "ceil", "coalesce", "missing")
_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
}
_COMPARE = {ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "=="}


class ExpressionError(ValueError):
    """The expression is not plain arithmetic over names, or has no value."""


@dataclass(frozen=True)
class Grammar:
    """What an expression may use beyond ``+ - * / **``, numbers and plain names."""

    extended: bool
    """Dotted names, ``FUNCTIONS``, one comparison, ``a if c else b``."""
    refusal: str
    """Appended to the name of a node the grammar refuses."""


CATALOG = Grammar(False, "; use + - * / ** and parentheses")
CALCULATOR = Grammar(True, " in a calculator expression")


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


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    raise ExpressionError(f"{type(node).__name__} is not allowed in a name")


def _call(node: ast.Call, g: Grammar) -> Tree:
    name = node.func.id if isinstance(node.func, ast.Name) else ""
    if name not in FUNCTIONS or node.keywords or not node.args:
        raise ExpressionError(f"call of {ast.unparse(node.func)} is not allowed; use "
                              + ", ".join(FUNCTIONS))
    return ["f", name, [_tree(a, g) for a in node.args]]


def _arithmetic(node: ast.expr, g: Grammar) -> Tree | None:
    """The node as arithmetic (both grammars), or None if it is not."""
    if isinstance(node, ast.Constant):
        return ["n", number(node.value)]
    if isinstance(node, ast.Name):
        return ["v", node.id]
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _BINOPS:
            raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
        return [_BINOPS[type(node.op)], _tree(node.left, g), _tree(node.right, g)]
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.USub | ast.UAdd):
            raise ExpressionError(f"operator {type(node.op).__name__} is not allowed")
        inner = _tree(node.operand, g)
        return ["neg", inner] if isinstance(node.op, ast.USub) else inner
    return None


def _extended(node: ast.expr, g: Grammar) -> Tree | None:
    """The node as one of ``CALCULATOR``'s additions, or None if it is not."""
    if isinstance(node, ast.Attribute):
        return ["v", _dotted(node)]
    if (isinstance(node, ast.Compare) and len(node.ops) == 1
            and type(node.ops[0]) in _COMPARE):
        return [_COMPARE[type(node.ops[0])], _tree(node.left, g), _tree(node.comparators[0], g)]
    if isinstance(node, ast.IfExp):
        return ["if", _tree(node.test, g), _tree(node.body, g), _tree(node.orelse, g)]
    if isinstance(node, ast.Call):
        return _call(node, g)
    return None


def _tree(node: ast.expr, g: Grammar) -> Tree:
    found = _arithmetic(node, g)
    if found is None and g.extended:
        found = _extended(node, g)
    if found is None:
        raise ExpressionError(f"{type(node).__name__} is not allowed{g.refusal}")
    return found


@lru_cache(maxsize=2048)
def to_tree(expression: str, grammar: Grammar = CALCULATOR) -> Tree:
    """The expression's JSON tree in ``grammar``; ExpressionError with the reason. Shared
    (cached): treat it as read-only."""
    try:
        body = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError as err:
        raise ExpressionError(f"not a valid expression: {err.msg}") from err
    return _tree(body, grammar)


def tree_names(tree: Tree) -> list[str]:
    """Names the tree reads, in first-use order."""
    found: dict[str, None] = {}

    def walk(node: Tree) -> None:
        if node[0] == "v":
            found.setdefault(node[1], None)
        elif node[0] == "f":
            for arg in node[2]:
                walk(arg)
        elif node[0] != "n":
            for child in node[1:]:
                walk(child)

    walk(tree)
    return list(found)


def parse(expression: str) -> Tree:
    """A catalog formula's tree (``CATALOG``); raise ExpressionError with the reason."""
    return to_tree(expression, CATALOG)


def names(expression: str) -> list[str]:
    """A catalog formula's variable names, in first-use order."""
    return tree_names(parse(expression))
