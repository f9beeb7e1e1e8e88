"""Plain YAML scalars -> Python values (pipeline step 1, used by ``yamlread``).

YAML 1.2 core-schema resolution (``1e-5`` is a float, ``no``/``on`` stay strings), with the
numbers a catalog never needs refused before Python converts them: a literal with more than
``MAX_DIGITS`` digits (``int()`` of 5,000 digits raises, and a 400-digit integer is no catalog
figure), a float literal that overflows to infinity (``1e400``), and integers written in another
base or with a leading zero (``0x7e8``, ``0o17``, ``012``: YAML 1.1 tools read ``012`` as ten, and
``year: 0x7e8`` hides 2024 from a reviewer). Those come back as a ``Refused`` value, which the
reader reports at the scalar's line:col. (``1_000`` is text in YAML 1.2: the models refuse it.)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

MAX_DIGITS = 30
"""Most digits a number literal may have. A float keeps about 17; no catalog figure needs more
than a few (write large numbers in scientific notation: 8e9)."""

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
         "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_INT_OCT = re.compile(r"^0o[0-7]+$")
_INT_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_TYPED_FIRST = frozenset("0123456789+-.~nNtTfF")
"""First characters of every plain scalar that is not a string (null, bool, number, inf, nan)."""
_DECIMAL = ("write the number in decimal, without leading zeros (YAML tools disagree on 012, "
            "and 0x or 0o numbers hide their value from a reader)")
_SHORTER = "write it with fewer digits; large numbers in scientific notation, e.g. 1.5e12"


@dataclass(frozen=True)
class Refused:
    """A plain scalar the reader refuses (a number too large), with what to tell the author."""

    message: str
    hint: str


def _too_many_digits(digits: int, kind: str) -> Refused:
    return Refused(f"number too {kind}: {digits} digits (at most {MAX_DIGITS})", _SHORTER)


def _integer(text: str, digits: str, base: int) -> int | Refused:
    if len(digits) > MAX_DIGITS:
        return _too_many_digits(len(digits), "large")
    return int(digits, base) * (-1 if text.startswith("-") else 1)



def _float(text: str) -> float | Refused:
    mantissa = re.split("[eE]", text, maxsplit=1)[0]
    digits = sum(char.isdigit() for char in mantissa)
    if digits > MAX_DIGITS:
        return _too_many_digits(digits, "long")
    value = float(text)
    if math.isinf(value):
        return Refused("number too large: it overflows a 64-bit float (the largest is about "
                       "1.8e308)", "check the exponent; catalog figures are far smaller")
    return value


def resolve_plain(text: str) -> Any:
    """YAML 1.2 core-schema resolution of a plain (unquoted) scalar; ``Refused`` for a number
    the catalog cannot hold."""
    if text and text[0] not in _TYPED_FIRST:  # fast path: most scalars are words
        return text
    if _NULL.match(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        digits = text.lstrip("+-")
        if len(digits) > 1 and digits.startswith("0"):
            return Refused(f"integer {text} has a leading zero", _DECIMAL)
        return _integer(text, digits, 10)
    if _INT_OCT.match(text) or _INT_HEX.match(text):
        return Refused(f"integer {text} is not written in decimal", _DECIMAL)
    if _FLOAT.match(text):
        return _float(text)
    if _INF.match(text):
        return float("-inf") if text.startswith("-") else float("inf")
    if _NAN.match(text):
        return float("nan")
    return text
