"""Derived figures' working adds up (pipeline step 3, cross-entry rules).

A figure with ``status: derived`` shows its working in its locator ("27 hours compute on 8×
A100 ...; 27 × 8 = 216", "4,600 s × 8 ÷ 3,600 = 10.22"). ``statements`` finds each such
"expression = result" (or "≈ result") in a locator's own words: numbers (``1,234``, ``10.22``,
a ``k``/``M``/``B`` scale, a duration ``17 h 22 min`` or ``1:14:10`` in hours, an optional unit
word after a number) joined by ×, x, *, ÷, /, +, −,
- and parentheses. Text between quotes or backticks is the source's, not the working, and is
left out; anything not clearly arithmetic (a range 2-5, a date, "line 71", a version, a number
glued to letters, an aside in parentheses) ends the expression, and an expression that does not
parse whole is skipped rather than guessed at.

``rule_derivations_add_up`` (in ``rules.RULES``) reports a statement whose result does not hold
(within half a unit of the result's last printed digit for ``=``, 1% for ``≈``), and a figure
whose locator ends with its working but whose value is not that working's result (a locator
that only shows steps or cross-checks along the way is not held to its value). Catalog text is
hostile: a tiny tokenizer and a recursive-descent parser (no ``eval``, no powers, a depth and a
length cap) read it, in time linear in the locator's length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import attribute, nested_models
from tinkernomics.catalog.yamlread import Loc

UNITS = ("s", "sec", "secs", "seconds", "h", "hr", "hrs", "hours", "min", "mins", "minutes",
         "days", "weeks", "GPU", "GPUs", "gpus", "nodes", "node", "tokens", "tokens/s", "steps",
         "step", "prompts", "completions", "sequences", "samples", "responses", "answers",
         "generations", "questions", "rollouts", "episodes", "layers", "GPU-hours")
"""Unit words a number may carry (after a space): read, then ignored. A ``%`` glued to a number
divides it by 100 (10% × 400 = 40; 1 ÷ 4 = 25%)."""
SCALES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "%": 1.0}
"""A scale letter glued to a number: 19.00M tokens, 0.822B parameters (a percent's number is
already divided by 100)."""
MAX_DEPTH = 40
"""Parentheses nested deeper than this are not working a reader follows: skipped."""
MAX_TOKENS = 400
"""An expression longer than this (tokens) is skipped."""
RELATIVE = 0.01
"""The tolerance of ``≈``."""
OPENERS = frozenset({"on", "is", "are", "gives", "takes", "pack", "so", "thus", "hence"})
"""Words the working may follow. Any other word before it may be a count the working is
multiplied by ("4 attention layers of 3,136 × 96 × 128 = 0.154B"): such a statement is
skipped. Punctuation (``;``, ``:``, ``,``, ``.``, ``(``), a possessive ("Table 2's") or the
start of the locator open it too."""

_UNIT_WORDS = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True) if u != "%")
_TOKEN = re.compile(
    r"(?P<dur>(?<![\w.,:/'’-])(?:\d{1,6} h \d{1,2} min|\d{1,6}:\d{2}:\d{2})(?![\w.,:/]?\w))"
    r"|(?P<num>(?<![\w.,:/'’-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:(?P<scale>[kKMB])|%)?"
    r"(?![\w.,:/%]?\w))"
    rf"|(?P<unit>(?<![\w'’-])(?:{_UNIT_WORDS})(?![\w/-]))"
    r"|(?P<op>[×*÷+−]|(?<=\s)[x/-](?=\s))"
    r"|(?P<lp>\()|(?P<rp>\))"
    r"|(?P<eq>(?<=\s)[=≈](?=\s))"
    r"|(?P<space>\s+)"
    r"|(?P<other>[^\s\d(]+|.)")
_CONCLUDING = re.compile(r"\s*(?:[A-Za-z%][\w/%-]*\s*)?(?:\([^()]*\)\s*)?(?:[.)]\s*)?")
_EQUALS = re.compile(r"\s[=≈]\s")
QUOTED = re.compile(r'"([^"]*)"|“([^“”]*)”|`([^`]*)`')
"""A locator's quoted spans (the source's words, not the working); ``quotedvalues`` reads the
numbers in the same spans."""
_OPS = {"×": "*", "x": "*", "*": "*", "÷": "/", "/": "/", "+": "+", "−": "-", "-": "-"}


class Token(NamedTuple):
    """One token of a locator: its kind (a ``_TOKEN`` group name), text and span."""

    kind: str
    text: str
    start: int
    end: int
    number: float = 0.0
    decimals: int = 0


@dataclass(frozen=True)
class Statement:
    """One "expression = result" in a locator, with what the expression comes to."""

    text: str
    """The statement as written (spaces collapsed)."""
    expression: str
    approximate: bool
    computed: float
    stated: float
    tolerance: float
    decimals: int
    scale: str
    concludes: bool
    """Nothing follows the result but a unit word, an aside in parentheses and closing
    punctuation: the working ends the locator, so its result is the figure's value."""

    @property
    def holds(self) -> bool:
        return abs(self.computed - self.stated) <= self.tolerance

    def shown(self) -> str:
        """What the expression comes to, in the result's scale, to a digit or two more."""
        percent = self.scale == "%"
        value = self.computed * 100 if percent else self.computed / SCALES[self.scale]
        if value == round(value) and abs(value) < 1e15:
            return f"{round(value):,}{self.scale}"
        decimals = self.decimals - 2 * percent + 2
        return f"{value:,.{decimals}f}".rstrip("0").rstrip(".") + self.scale


def _duration(found: re.Match[str]) -> Token:
    """17 h 22 min or 1:14:10, in hours."""
    parts = [int(p) for p in re.findall(r"\d+", found.group())] + [0]
    hours = parts[0] + parts[1] / 60 + parts[2] / 3600
    return Token("num", found.group(), found.start(), found.end(), hours, 0)


def read_number(text: str, scale: str = "") -> tuple[float, int]:
    """A number as written ("1,234", "10.22", "19.00M" with ``scale`` "M", "25%") and its
    printed decimals (a percent's two more: "25%" is 0.25 to two decimals)."""
    percent = text.endswith("%")
    digits = text[:len(text) - len(scale) - percent].replace(",", "")
    decimals = len(digits.partition(".")[2]) + 2 * percent
    return float(digits) * SCALES[scale] / (100 if percent else 1), decimals


def _number(found: re.Match[str]) -> Token:
    text = found.group("num")
    number, decimals = read_number(text, found.group("scale") or "")
    return Token("num", text, found.start(), found.end(), number, decimals)


def tokens(text: str) -> list[Token]:
    """``text`` as tokens; quoted or backticked spans become one ``other`` token each."""
    found: list[Token] = []
    at = 0
    for quoted in [*QUOTED.finditer(text), None]:
        stop = quoted.start() if quoted else len(text)
        for hit in _TOKEN.finditer(text, at, stop):
            kind = hit.lastgroup or "other"
            found.append(_number(hit) if kind == "num" else _duration(hit) if kind == "dur"
                         else Token(kind, hit.group(), hit.start(), hit.end()))
        if quoted:
            found.append(Token("other", quoted.group(), quoted.start(), quoted.end()))
            at = quoted.end()
    return found


class _Unparsed(Exception):
    """The expression is not plain arithmetic."""


class _Parser:
    """Recursive descent over numbers, the four operations and parentheses."""

    def __init__(self, items: list[Token]) -> None:
        self.items, self.at, self.depth = items, 0, 0

    def _peek(self) -> Token | None:
        return self.items[self.at] if self.at < len(self.items) else None

    def whole(self) -> float:
        value = self.expression()
        if self.at != len(self.items) or not math.isfinite(value):
            raise _Unparsed
        return value

    def expression(self) -> float:
        value = self.term()
        while (tok := self._peek()) is not None and tok.kind == "op" and _OPS[tok.text] in "+-":
            self.at += 1
            right = self.term()
            value = value + right if _OPS[tok.text] == "+" else value - right
        return value

    def term(self) -> float:
        value = self.factor()
        while (tok := self._peek()) is not None and tok.kind == "op" and _OPS[tok.text] in "*/":
            self.at += 1
            right = self.factor()
            if _OPS[tok.text] == "*":
                value *= right
            elif right == 0:
                raise _Unparsed
            else:
                value /= right
        return value

    def factor(self) -> float:
        tok = self._peek()
        if tok is None:
            raise _Unparsed
        self.at += 1
        if tok.kind == "num":
            return tok.number
        if tok.kind != "lp" or self.depth >= MAX_DEPTH:
            raise _Unparsed
        self.depth += 1
        value = self.expression()
        closing = self._peek()
        if closing is None or closing.kind != "rp":
            raise _Unparsed
        self.at += 1
        self.depth -= 1
        return value


def _left_side(toks: list[Token], eq: int) -> tuple[int, list[Token]]:
    """The arithmetic tokens just before ``toks[eq]`` (spaces and units dropped), back to the
    first thing that is not arithmetic, and the index of the first; an unmatched leading ``(``
    is not part of it."""
    run: list[Token] = []
    starts: list[int] = []
    i = eq - 1
    while i >= 0 and len(run) <= MAX_TOKENS:
        tok = toks[i]
        if tok.kind == "unit":
            before = i - 1
            while before >= 0 and toks[before].kind == "space":
                before -= 1
            if before < 0 or before == i - 1 or toks[before].kind != "num":
                break
        elif tok.kind in ("num", "op", "lp", "rp"):
            run.append(tok)
            starts.append(i)
        elif tok.kind != "space":
            break
        i -= 1
    run.reverse()
    starts.reverse()
    excess = sum(t.kind == "lp" for t in run) - sum(t.kind == "rp" for t in run)
    while excess > 0 and run and run[0].kind == "lp":
        run, starts, excess = run[1:], starts[1:], excess - 1
    return (starts[0] if starts else eq), run


def _opens(toks: list[Token], first: int) -> bool:
    """True if the working starting at ``toks[first]`` starts a clause (``OPENERS``)."""
    before = first - 1
    while before >= 0 and toks[before].kind == "space":
        before -= 1
    if before < 0:
        return True
    word = toks[before].text
    return (toks[before].kind == "lp" or word[-1] in ";:,.)" or word in OPENERS
            or word.endswith(("'s", "’s")))


def _right_side(toks: list[Token], eq: int) -> Token | None:
    after = eq + 1
    while after < len(toks) and toks[after].kind == "space":
        after += 1
    return toks[after] if after < len(toks) and toks[after].kind == "num" else None


def _statement(text: str, toks: list[Token], eq: int) -> Statement | None:
    result = _right_side(toks, eq)
    first, left = _left_side(toks, eq)
    if result is None or len(left) > MAX_TOKENS or not any(t.kind == "op" for t in left):
        return None
    if not _opens(toks, first):
        return None
    try:
        computed = _Parser(left).whole()
    except _Unparsed:
        return None
    approximate = toks[eq].text == "≈"
    scale = result.text[-1] if result.text[-1] in "kKMB%" else ""
    tolerance = 0.5 * 10.0 ** -result.decimals * SCALES[scale]
    if approximate:
        tolerance = max(tolerance, RELATIVE * abs(result.number))
    tolerance += 1e-9 * max(abs(result.number), abs(computed))
    expression = " ".join(text[left[0].start:left[-1].end].split())
    return Statement(" ".join(text[left[0].start:result.end].split()), expression,
                     approximate, computed, result.number, tolerance, result.decimals, scale,
                     _CONCLUDING.fullmatch(text, result.end) is not None)


def statements(text: str) -> list[Statement]:
    """Every arithmetic statement in ``text`` (see the module docstring)."""
    if _EQUALS.search(text) is None:
        return []
    toks = tokens(text)
    found = (_statement(text, toks, i) for i, tok in enumerate(toks) if tok.kind == "eq")
    return [s for s in found if s is not None]


def half_unit(value: float) -> float:
    """Half a unit of ``value``'s last written digit (216 → 0.5, 10.22 → 0.005): how far a
    catalog value may sit from a number it was rounded from (here and in ``quotedvalues``)."""
    written = repr(value)
    decimals = 0 if written.endswith(".0") or "e" in written else len(written.partition(".")[2])
    return 0.5 * 10.0 ** -decimals


def value_matches(value: float, found: Statement) -> bool:
    """``value`` is the statement's result, within the rounding of either (in the result's
    scale or not: 0.822 for "= 0.822B", 25 for "= 25%")."""
    printed = 100.0 if found.scale == "%" else 1 / SCALES[found.scale]
    return any(abs(value - target * factor) <= found.tolerance * factor + half_unit(value)
               for target in (found.stated, found.computed) for factor in (1.0, printed))


def _value_problem(catalog: Catalog, entry: Entry, loc: Loc, value: object,
                   last: Statement) -> Iterator[Problem]:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not last.concludes:
        return
    if not value_matches(float(value), last):
        yield catalog.problem(
            entry.kind.name, entry.key, (*loc, "value"),
            f"value {value:,.12g} is not what its working gives: the locator ends with {last.text}",
            f"set value: to the working's result ({last.shown()}), or correct the working")


def rule_derivations_add_up(catalog: Catalog) -> Iterator[Problem]:
    """The arithmetic a derived figure's locator shows holds ("27 × 8 = 216"), and the figure's
    value is the result its working ends with."""
    for entry, loc, obj, _, _ in nested_models(catalog):
        if attribute(obj, "status") != Status.derived:
            continue
        locator = attribute(obj, "locator")
        if not isinstance(locator, str):
            continue
        found = statements(locator)
        for wrong in (s for s in found if not s.holds):
            yield catalog.problem(
                entry.kind.name, entry.key, (*loc, "locator"),
                f"{wrong.text} does not hold: {wrong.expression} is {wrong.shown()}",
                "check the numbers against the source, then correct the result (and the value "
                "it gives) or the figure it is computed from")
        if found and found[-1].holds:
            yield from _value_problem(catalog, entry, loc, attribute(obj, "value"), found[-1])
