"""One calculator link key's declaration (pipeline step 5): ``Input``, the number patterns a
link's numbers must match, and the rules ``valid`` and ``ranged`` that read one number.

``inputs.INPUTS`` declares every key of a link with ``Input``; ``inputs.choose`` reads a query
by them, ``checkargs`` refuses a bad command-line value by them, and the page ships them
(``pagedata``: ``link_inputs`` and the patterns) so calculator.js reads the same declarations.
Nothing here names a key: the keys themselves are declared in ``inputs``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

INT_PATTERN = r"[0-9]{1,12}"
NUM_PATTERN = r"[0-9]{1,12}(\.[0-9]{1,12})?"
"""Whole and decimal query numbers, matched against the whole value (no signs, no exponents)."""
_PATTERNS = {"int": re.compile(INT_PATTERN), "num": re.compile(NUM_PATTERN)}
NUMBER_KINDS = tuple(_PATTERNS)


@dataclass(frozen=True)
class Input:
    """One query key of a calculator link: the one declaration Python and calculator.js read
    (``pagedata`` ships ``link_inputs``; nothing about a key is typed in JavaScript)."""

    key: str
    kind: str
    """``int`` or ``num`` (a number: ``NUMBER_KINDS``), ``choice`` (an id or listed value),
    ``flag`` (``1``/``0``) or ``list`` (a comma list of ``options`` ids)."""
    name: str = ""
    """The graph input a number sets (``run.steps``)."""
    lo: float = 0.0
    hi: float = 0.0
    """A valid number is clamped into [lo, hi]; an invalid one (not a plain number of its kind:
    ``-5``, ``1e308``, ``NaN``, ``2.5`` for a whole number) is marked on the page, dropped from
    the link and replaced by the default."""
    default: float | None = None
    typical: str = ""
    """The algorithm's figure (a key of ``typical(algo)``) that is the default; missing (and
    marked) when the algorithm has none. The page ships each algorithm's under the input's
    ``name`` (``pagedata.algorithm_data``)."""
    dependents: tuple[str, ...] = ()
    """Keys a change of this one clears (they default again from the new choice)."""
    keeps: tuple[str, ...] = ()
    """Keys a change of this one keeps while the new choice can use them: a kept key whose
    ``when`` held before the change and holds no more after it is dropped from the link, and
    the page names it (what applies is each key's ``when``, never a list in calculator.js)."""
    pin: str = ""
    """``Choice`` field written into every link, even when it is the default."""
    sets: str = ""
    """The ``Choice`` field a choice or flag key sets (``model``...): Python and calculator.js
    find a key by it (``key``), never by its spelling."""
    flag: tuple[str, Any] = ("", None)
    """A graph input that is 1 where the ``sets`` field of the choice equals the value, else 0
    (``("run.lora", True)``); ``estimate.environment`` and calculator.js set it alike."""
    shows: str = ""
    """The quantity the form field shows when the link does not set it (else the input)."""
    per: float = 1.0
    fmt: str = "plain"
    """The field shows ``shows / per``, written as ``plain`` (as is) or ``number`` (rounded)."""
    when: str = ""
    """An expression over the estimate: where 0, the form hides the field."""
    options: tuple[tuple[str, str], ...] = ()
    """A ``list`` key's allowed ids, each with the graph input it sets: ``<name>.<suffix>`` is
    1 for an id the link lists, else 0, and ``<name>.any`` is 1 when it lists a valid one. Its
    form boxes show the quantities ``<shows>.<suffix>``; ids not offered leave the link."""


def number(key: str, name: str, kind: str, lo: float, hi: float, default: float | None,
            **extra: Any) -> Input:
    return Input(key, kind, name, lo, hi, default, **extra)



def valid(raw: str, kind: str) -> bool:
    """A number the link may carry: a plain number of its kind (``NUMBER_KINDS``)."""
    return _PATTERNS[kind].fullmatch(raw) is not None


def ranged(raw: str | None, spec: Input) -> float | None:
    """A valid number (``valid``) clamped to [lo, hi]; None if absent or invalid."""
    if raw is None or not valid(raw, spec.kind):
        return None
    return min(max(float(raw), spec.lo), spec.hi)
