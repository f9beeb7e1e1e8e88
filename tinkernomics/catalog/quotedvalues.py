"""A reported figure's value is a number its quote states (pipeline step 3, cross-entry rules).

A figure with ``status: reported`` carries a locator quoting its source ("...H100 rates surged
40% from $1.70 to $2.35/hour..."); ``rule_quotes_at_their_lines`` and ``rule_pages_quoted``
check the words, and ``rule_quoted_value_stated`` checks the value: when the quoted text holds
a number, the figure's value (and ``high``, and each of a list's ``values``) must be one of
them, read as ``arithmetic.read_number`` reads the working ("2,048", "10.22", "19.00M",
"25%"), within the quote's own rounding (989.4 for "989"; 2.53 is not "2.35"), in the scale a
letter after it gives ("32B", "1.4 kW", "32K" as 32,000 or 32,768, "1.5 TB"), a percent as a
fraction when the unit is one (0.4 for "40%"), or inside a range the quote states ("1.7-7",
"from X to Y", "between X and Y"). A value computed from the quoted numbers is ``derived``
and shows its working (``arithmetic``). Catalog text is hostile: one linear scan of each
quote, at most ``MAX_NUMBERS`` numbers read from a locator, each locator read once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tinkernomics.catalog.arithmetic import QUOTED, half_unit, read_number
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status, Unit
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import attribute, nested_models

MAX_NUMBERS = 200
"""Numbers read from one locator's quotes; a locator quoting more is not checked (a table dump
is no quote a reviewer searches for)."""
MAX_QUOTED = 4000
"""Characters of quoted text in one locator; a longer one is not checked (nor read)."""
MAX_EXPONENT = 300
"""A written exponent beyond this ("1e999") is no figure's: the number is skipped."""
PREFIXES = {"k": (1e3, 1024.0), "K": (1e3, 1024.0), "M": (1e6, 1024.0 ** 2),
            "G": (1e9, 1024.0 ** 3), "B": (1e9,), "T": (1e12, 1024.0 ** 4), "P": (1e15,)}
"""A scale letter glued to a number ("32K", "8B", "80G") or before a unit word ("1.4 kW",
"1.5 TB", "2.5 PFLOPS"), and what it may multiply by (K/M/G/T also binary: 32K tokens are
32,768)."""
BASES = {Unit.tflops: 1e12, Unit.tb_per_second: 1e12, Unit.gb: 1e9, Unit.mb: 1e6,
         Unit.billion_parameters: 1e9, Unit.watts: 1.0}
"""What one of a unit is in its base unit (FLOP/s, bytes, parameters): a quoted "4,000 GB/s"
is 4 TB/s, "2.5 PFLOPS" 2,500 TFLOP/s, "1.4 kW" 1,400 W."""
FRACTIONS = frozenset({Unit.fraction, Unit.dimensionless, Unit.ratio, Unit.multiplier})
"""Units whose value may be a quoted percent divided by 100 (0.4 for "40%")."""
FLAGS = frozenset({"tied_embeddings"})
"""Figures that are a yes/no as 1/0: their source states a word ("No"), not the number."""
_PREFIXED = re.compile(r"(?<![A-Za-z])(?P<p>[kKMGTP])(?:B|W|FLOPS?|FLOP/s|iB)(?![a-z])")
_NUMBER = re.compile(
    r"(?:(?<![\w.])|(?<=(?<![A-Za-z])[TPCEDStpceds][Pp])|(?<=(?<![A-Za-z])A)(?=[\d.]+B)|(?<=\d[xX]))"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?)"
    r"(?:[eE](?P<exp>[+-]?\d{1,4})(?![\w.]))?"
    r"(?:(?P<pct>\s?%)|\s?(?P<scale>[kKMGBTP])(?![A-Za-z]))?")
"""A number in a quote, not glued to a word before it (H100 and Qwen3 name things) except a
parallel degree (TP4, pp2), active parameters (A55B) or a product's second factor (8x8)."""
_JOIN = re.compile(r"(?P<range>\s*(?:[-–—~]|to|and|through)\s*[$€£]?)"
                   r"|(?P<times>(?:\s+[A-Za-z]+)?\s*[*×xX]\s*)")
"""What joins two quoted numbers: a range (1.7-7, from $1.70 to $2.35, between 4 and 8), or
a product the source writes out (64*8, 8x8, 8 nodes × 8 GPUs, $((1024 * 28)))."""


@dataclass(frozen=True)
class Quoted:
    """A number a quote states, in each reading (scaled, as a fraction, a percent)."""

    text: str
    targets: tuple[tuple[float, float], ...]
    """(value, tolerance) pairs: the number in each reading, with half its last digit."""
    start: int
    end: int


@dataclass
class Stated:
    """What a locator's quotes state: numbers, products written out, ranges."""

    numbers: list[Quoted]
    ranges: list[tuple[float, float]]

    def shown(self) -> str:
        return ", ".join(dict.fromkeys(q.text for q in self.numbers))


def _factors(found: re.Match[str], unit: Unit, named: set[str]) -> list[float]:
    """What a quoted number may be multiplied by to be in ``unit``."""
    base = BASES.get(unit, 1.0)
    factors = [1.0]
    if found["pct"] and unit in FRACTIONS:
        factors.append(0.01)
    if unit == Unit.percent and not found["pct"]:
        factors.append(100.0)  # a fraction ("0.610") for a percent
    for letter in ({found["scale"]} if found["scale"] else set()) | named:
        factors.extend(f / base for f in PREFIXES[letter])
    return factors


def _read(found: re.Match[str], unit: Unit, named: set[str]) -> Quoted | None:
    number, decimals = read_number(found["num"])
    if found["exp"]:
        exp = int(found["exp"])
        number = number * 10.0 ** exp if abs(exp) <= MAX_EXPONENT else math.inf
        decimals -= exp
    if not math.isfinite(number):
        return None
    half = 0.5 * 10.0 ** -decimals
    targets = tuple((number * f, half * f) for f in _factors(found, unit, named)
                    if math.isfinite(number * f))
    return Quoted(found.group().strip(), targets, found.start(), found.end())


def quoted_texts(locator: str) -> list[str]:
    """The quoted spans of a locator."""
    return [next(g for g in m.groups() if g is not None) for m in QUOTED.finditer(locator)]


def stated_in(locator: str, unit: Unit) -> Stated:
    """The numbers the locator's quotes state (none if more than ``MAX_NUMBERS``, or quotes
    longer than ``MAX_QUOTED``), with the products and ranges two neighbours state."""
    out = Stated([], [])
    texts = quoted_texts(locator)
    if sum(map(len, texts)) > MAX_QUOTED:
        return out
    for text in texts:
        named = {m["p"] for m in _PREFIXED.finditer(text)} if unit in BASES else set()
        previous: Quoted | None = None
        for found in _NUMBER.finditer(text):
            if len(out.numbers) >= MAX_NUMBERS:
                return Stated([], [])
            read = _read(found, unit, named)
            if read is None:
                continue
            join = _JOIN.fullmatch(text, previous.end, read.start) if previous else None
            if previous is not None and join is not None:
                _pair(out, previous, read, join.lastgroup == "times")
            out.numbers.append(read)
            previous = read
    return out


def _pair(out: Stated, first: Quoted, second: Quoted, times: bool) -> None:
    """The product, or the range (either way round), of two neighbouring quoted numbers, in
    the second's readings (1.7-7B)."""
    (a, a_tol), (plain, _) = first.targets[0], second.targets[0]
    for b, b_tol in second.targets:
        if times:
            out.numbers.append(Quoted(f"{first.text} × {second.text}",
                                      ((a * b, a_tol * b + b_tol * a),), first.start, second.end))
        else:
            scale = b / plain if plain else 1.0  # both ends in the second's reading
            out.ranges.append((min(a * scale, b) - a_tol * scale, max(a * scale, b) + b_tol))


def stated(value: float, found: Stated) -> bool:
    """True if ``value`` is a quoted number (in a reading, within its rounding or the value's)
    or inside a quoted range."""
    size = abs(value)
    slack = half_unit(size) + 1e-9 * size
    return (any(abs(size - target) <= tol + slack
                for q in found.numbers for target, tol in q.targets)
            or any(lo - slack <= size <= hi + slack for lo, hi in found.ranges))


def _values(obj: object) -> Iterator[tuple[tuple[str | int, ...], float]]:
    """(loc inside ``obj``, number) of a figure's value and high, or of a list's values."""
    value, high, values = (attribute(obj, "value"), attribute(obj, "high"),
                           attribute(obj, "values"))
    for loc, number in ((("value",), value), (("high",), high)):
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            yield loc, float(number)
    if isinstance(values, list):
        for i, number in enumerate(values):
            if isinstance(number, (int, float)) and not isinstance(number, bool):
                yield ("values", i), float(number)


def rule_quoted_value_stated(catalog: Catalog) -> Iterator[Problem]:
    """A reported figure whose locator quotes numbers has one of them as its value (each
    locator read once per unit)."""
    read: dict[tuple[str, Unit], Stated] = {}
    for entry, loc, obj, _, _ in nested_models(catalog):
        if attribute(obj, "status") != Status.reported or (loc and loc[-1] in FLAGS):
            continue
        locator, unit = attribute(obj, "locator"), attribute(obj, "unit")
        if not isinstance(locator, str) or not isinstance(unit, Unit):
            continue
        if (found := read.get((locator, unit))) is None:
            found = read[locator, unit] = stated_in(locator, unit)
        if not found.numbers:
            continue
        for where, value in _values(obj):
            if not stated(value, found):
                yield catalog.problem(
                    entry.kind.name, entry.key, (*loc, *where),
                    f"{'high' if where[0] == 'high' else 'value'} {value:,.12g} is none of "
                    "the numbers its locator quotes "
                    f"({found.shown()})",
                    "check the digits against the quote (and the source); if the value is "
                    "computed from the quoted numbers, mark it derived and show the working in "
                    "the locator (\"... 27 × 8 = 216\")")
