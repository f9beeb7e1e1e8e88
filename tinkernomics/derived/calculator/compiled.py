"""A calculator graph compiled to one Python function (pipeline step 5; issue 47).

``graph.evaluate`` asks ``compile_graph`` once per graph for a function ``env -> values`` that
computes every quantity exactly as ``tree.evaluate`` walks its tree: the same float operations
on the same operands in the same order, the same missing-value (None) rules, the same lazy
``coalesce``, ``if`` and ``when`` (an untaken branch reads nothing, so raises nothing), the same
``KeyError`` for an input ``env`` lacks. Walking the tree dispatched on every node's kind per
estimate; the compiled function does that once per graph (``tests/test_calculator_compiled.py``
compares the two bit for bit).

The generated source holds no catalog text: names and constants are referred to by index
(``n3``, ``k7``: globals of the function ``exec`` makes); operators and functions come from
the fixed tables below. A graph whose source Python cannot compile (an expression nested past
``MAX_DEPTH``) gets None, and ``graph.evaluate`` walks the trees instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tinkernomics.derived.calculator import tree as t

Compiled = Callable[[Mapping[str, Any]], tuple[float | None, ...]]
"""Input values -> every quantity's value, in the graph's order."""

MAX_DEPTH = 60
"""Deepest nesting of generated blocks (Python refuses 100 levels of indentation)."""

_ARITHMETIC = {"+": "+", "-": "-", "*": "*"}
_COMPARE = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "=="}


class _TooDeep(Exception):
    """The generated source would nest too deep for Python."""


class _Emitter:
    """Writes the statements of one function; every node's value lands in a local."""

    def __init__(self, locals_by_name: Mapping[str, str]) -> None:
        self.lines: list[str] = []
        self.names: list[str] = []
        self.consts: list[float] = []
        self.local = dict(locals_by_name)
        """Quantity key -> the local holding its value (a finite float or None)."""
        self.count = 0

    def temp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def put(self, depth: int, line: str) -> None:
        if depth > MAX_DEPTH:
            raise _TooDeep
        self.lines.append("    " * depth + line)

    def node(self, tree: t.Tree, depth: int) -> str:
        """Emit ``tree``'s statements at ``depth``; the local (or constant) with its value."""
        kind = tree[0]
        if kind == "n":
            self.consts.append(tree[1])
            return f"k{len(self.consts) - 1}"
        if kind == "v":
            return self.read(tree[1], depth)
        if kind == "f":
            return self.call(tree[1], tree[2], depth)
        if kind == "if":
            return self.branch(tree, depth)
        out = self.temp()
        if kind == "neg":
            inner = self.node(tree[1], depth)
            self.put(depth, f"{out} = None if {inner} is None else -{inner}")
            return out
        left, right = self.node(tree[1], depth), self.node(tree[2], depth)
        self.put(depth, f"if {left} is None or {right} is None: {out} = None")
        self.binary(kind, out, left, right, depth)
        return out

    def read(self, name: str, depth: int) -> str:
        """An input is converted by ``tree.read``, as the walk does; a quantity's value is
        already a finite float or None (every node yields one), so its local is read as is.
        An input read at the function's top level (``depth`` 1: every statement there runs,
        in order) is kept in its local for every later read, as a quantity is: the same value,
        converted once per evaluation rather than once per reference (issue 47). A read inside
        a branch stays there: the untaken branch must read nothing."""
        if name in self.local:
            return self.local[name]
        self.names.append(name)
        out = self.temp()
        self.put(depth, f"{out} = read(env[n{len(self.names) - 1}])")
        if depth == 1:
            self.local[name] = out
        return out

    def binary(self, op: str, out: str, a: str, b: str, depth: int) -> None:
        """The ``else`` of a binary node whose operands are both present (``tree._binary``)."""
        if op in _ARITHMETIC:
            self.put(depth, "else:")
            self.put(depth + 1, f"{out} = {a} {_ARITHMETIC[op]} {b}")
            self.put(depth + 1, f"if not isfinite({out}): {out} = None")
        elif op == "/":
            self.put(depth, f"elif {b} != 0:")
            self.put(depth + 1, f"{out} = {a} / {b}")
            self.put(depth + 1, f"if not isfinite({out}): {out} = None")
            self.put(depth, f"else: {out} = None")
        elif op == "**":
            self.put(depth, f"else: {out} = power({a}, {b})")
        elif op in _COMPARE:
            self.put(depth, f"else: {out} = 1.0 if {a} {_COMPARE[op]} {b} else 0.0")
        else:
            raise KeyError(op)

    def branch(self, tree: t.Tree, depth: int) -> str:
        out, test = self.temp(), self.node(tree[1], depth)
        self.put(depth, f"if {test} is None: {out} = None")
        self.put(depth, f"elif {test} != 0:")
        self.put(depth + 1, f"{out} = {self.node(tree[2], depth + 1)}")
        self.put(depth, "else:")
        self.put(depth + 1, f"{out} = {self.node(tree[3], depth + 1)}")
        return out

    def call(self, name: str, args: Sequence[t.Tree], depth: int) -> str:
        out = self.temp()
        if name == "coalesce":
            self.first_present(out, args, depth)
        elif name == "missing":
            self.put(depth, f"{out} = 1.0 if {self.node(args[0], depth)} is None else 0.0")
        else:
            values = [self.node(a, depth) for a in args]
            self.put(depth, f"if {' or '.join(f'{v} is None' for v in values)}: {out} = None")
            if name == "ceil":
                self.put(depth, f"else: {out} = float(ceil({values[0]}))")
            else:
                self.put(depth, f"else: {out} = {'min' if name == 'min' else 'max'}"
                                f"([{', '.join(values)}])")
        return out

    def first_present(self, out: str, args: Sequence[t.Tree], depth: int) -> None:
        """``coalesce``: each argument is evaluated only while every earlier one is missing."""
        self.put(depth, f"{out} = {self.node(args[0], depth)}")
        if len(args) > 1:
            self.put(depth, f"if {out} is None:")
            self.first_present(out, args[1:], depth + 1)


def _source(rows: Sequence[tuple[str, t.Tree | None, t.Tree]]) -> _Emitter:
    """The function's body for ``(key, when tree or None, expression tree)`` rows."""
    emitter = _Emitter({})
    for index, (key, when, expression) in enumerate(rows):
        out = f"q{index}"
        if when is None:
            emitter.put(1, f"{out} = {emitter.node(expression, 1)}")
        else:
            emitter.put(1, f"if {emitter.node(when, 1)}:")
            emitter.put(2, f"{out} = {emitter.node(expression, 2)}")
            emitter.put(1, f"else: {out} = None")
        emitter.local[key] = out
    emitter.put(1, f"return ({''.join(f'q{i}, ' for i in range(len(rows)))})")
    return emitter


def compile_graph(rows: Sequence[tuple[str, t.Tree | None, t.Tree]]) -> Compiled | None:
    """One function computing every row's value as ``graph.evaluate``'s tree walk does, or
    None if Python cannot compile it (too deep)."""
    try:
        emitter = _source(rows)
        source = "def evaluate(env):\n" + "\n".join(emitter.lines) + "\n"
        code = compile(source, "<calculator graph>", "exec")
    except (_TooDeep, SyntaxError, RecursionError, MemoryError):
        return None
    namespace: dict[str, Any] = {
        **{f"n{i}": name for i, name in enumerate(emitter.names)},
        **{f"k{i}": value for i, value in enumerate(emitter.consts)}, "isfinite": math.isfinite,
        "ceil": math.ceil, "power": t.power, "read": t.read, "min": min, "max": max, "float": float,
        "__builtins__": {},
    }
    exec(code, namespace)  # source built above from fixed text and indices only
    function: Compiled = namespace["evaluate"]
    return function
