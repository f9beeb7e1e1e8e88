"""How numbers are written (used by every step that writes a number: derive, the calculator).

One specification, as data: a ``Style`` says how many significant digits a number keeps, the
most decimals it shows, where it switches to an exponent, how many mantissa digits the exponent
form keeps and how ties round (on the exact binary value, as ``Decimal`` does). ``write`` is the
one engine; ``derive.format_number`` uses ``PAGE`` (or a ``digits`` variant of it) and the
calculator's ``formatting.fmt_number`` uses ``CALCULATOR``, which the calculator page ships
(``pagedata``: ``number_format``) for calculator.js to read: the thresholds are typed here only.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

ROUNDINGS = {"half_up": ROUND_HALF_UP, "half_even": ROUND_HALF_EVEN}
"""Tie rules on the exact binary value: ``half_up`` is JavaScript's ``toFixed``, ``half_even``
Python's ``format``."""


@dataclass(frozen=True)
class Style:
    significant: int
    """Significant digits kept in the plain form."""
    max_decimals: int | None
    """At most this many decimals (None: as many as the significant digits need)."""
    exp_below: float
    exp_from: float
    """Exponent form for sizes below ``exp_below`` or from ``exp_from`` up."""
    exp_digits: int
    """Mantissa decimals of the exponent form (``8.39e17``)."""
    exp_trim: bool
    """Trailing zeros of the mantissa dropped (``1.2e-5``, not ``1.20e-5``)."""
    rounding: str
    """A ``ROUNDINGS`` key."""

    def data(self) -> dict[str, Any]:
        """The style as JSON (the calculator page ships it)."""
        return asdict(self)


CALCULATOR = Style(significant=3, max_decimals=3, exp_below=1e-3, exp_from=1e15, exp_digits=2,
                   exp_trim=False, rounding="half_up")
"""The calculator's numbers (Python and calculator.js write them character for character)."""
PAGE = Style(significant=3, max_decimals=None, exp_below=1e-4, exp_from=1e15, exp_digits=2,
             exp_trim=True, rounding="half_even")
"""Numbers in the pages' prose and tables (``derive.format_number``)."""


def with_digits(style: Style, digits: int) -> Style:
    """The style keeping ``digits`` significant digits (``exp_digits`` one fewer); ``PAGE``'s
    are made once (``derive.format_number`` asks for one per number it writes)."""
    if style is PAGE and digits in _PAGE_DIGITS:
        return _PAGE_DIGITS[digits]
    return replace(style, significant=digits, exp_digits=digits - 1)


_PAGE_DIGITS = {d: replace(PAGE, significant=d, exp_digits=d - 1) for d in range(1, 18)}
"""``with_digits(PAGE, d)`` for the digits a page can ask for (1 to 17)."""
_EXACT = (float, int)
"""Types whose exact value ``as_integer_ratio`` gives (``_ratio``); others go by ``Decimal``."""
_MOST_DECIMALS = 1000
"""Above this many decimals (or digits) the ``Decimal`` reference writes the number."""


def _ratio(value: float) -> tuple[int, int] | None:
    """``|value|`` as an exact fraction ``p / q`` (None: not a finite float or int)."""
    if type(value) not in _EXACT or not math.isfinite(value):
        return None
    return abs(value).as_integer_ratio()


def _rounded(p: int, q: int, rounding: str) -> int:
    """``p / q`` (both positive) rounded to an integer: ties away from zero (``half_up``)
    or to even (``half_even``), on the exact value, as ``Decimal.quantize`` rounds."""
    whole, rest = divmod(p, q)
    twice = 2 * rest
    if twice > q or (twice == q and (rounding == "half_up" or whole % 2 == 1)):
        whole += 1
    return whole


def _point(digits: str, decimals: int) -> str:
    """Integer digits with a decimal point ``decimals`` from the right (zero-padded)."""
    if not decimals:
        return digits
    digits = digits.rjust(decimals + 1, "0")
    return f"{digits[:-decimals]}.{digits[-decimals:]}"


def fixed(value: float, decimals: int, rounding: str = "half_up") -> str:
    """``value`` with ``decimals`` decimals, rounded on its exact binary value (``toFixed``):
    by integer arithmetic on the exact fraction, character for character ``fixed_reference``."""
    if value == 0:
        value = 0.0  # JavaScript prints -0 as "0"
    exact = _ratio(value)
    if exact is None or rounding not in ROUNDINGS or not 0 <= decimals <= _MOST_DECIMALS:
        return fixed_reference(value, decimals, rounding)
    p, q = exact
    if q == 1:  # a whole number (most counts a page shows): nothing to round
        text = f"{p}.{'0' * decimals}" if decimals else str(p)
    else:
        text = _point(str(_rounded(p * 10 ** decimals, q, rounding)), decimals)
    return f"-{text}" if value < 0 else text


def fixed_reference(value: float, decimals: int, rounding: str = "half_up") -> str:
    """``fixed`` by ``Decimal`` (the definition the tests hold ``fixed`` to)."""
    if value == 0:
        value = 0.0
    with localcontext() as ctx:
        ctx.prec = 2000
        quantum = Decimal(1).scaleb(-decimals)
        return f"{Decimal(value).quantize(quantum, rounding=ROUNDINGS[rounding]):f}"


def _at_least(p: int, q: int, exponent: int) -> bool:
    """``p / q >= 10 ** exponent``."""
    return p >= q * 10 ** exponent if exponent >= 0 else p * 10 ** -exponent >= q


def _scaled(p: int, q: int, shift: int) -> tuple[int, int]:
    """``p / q * 10 ** shift`` as a fraction."""
    return (p * 10 ** shift, q) if shift >= 0 else (p, q * 10 ** -shift)


def exponential(value: float, digits: int, rounding: str = "half_up") -> str:
    """``value.toExponential(digits)`` without the '+': e.g. ``8.39e17``; by integer
    arithmetic, character for character ``exponential_reference``."""
    exact = _ratio(value)
    if (exact is None or value == 0 or rounding not in ROUNDINGS
            or not 0 <= digits <= _MOST_DECIMALS):
        return exponential_reference(value, digits, rounding)
    p, q = exact
    exponent = math.floor(math.log10(abs(value)))
    while not _at_least(p, q, exponent):
        exponent -= 1
    while _at_least(p, q, exponent + 1):
        exponent += 1
    mantissa = _rounded(*_scaled(p, q, digits - exponent), rounding)
    if mantissa >= 10 ** (digits + 1):
        exponent += 1
        mantissa = _rounded(*_scaled(p, q, digits - exponent), rounding)
    return f"{'-' if value < 0 else ''}{_point(str(mantissa), digits)}e{exponent}"


def exponential_reference(value: float, digits: int, rounding: str = "half_up") -> str:
    """``exponential`` by ``Decimal`` (the definition the tests hold ``exponential`` to)."""
    with localcontext() as ctx:
        ctx.prec = 2000
        d = Decimal(value)
        sign, d = ("-" if d < 0 else ""), abs(d)
        if d == 0:
            return f"{sign}{fixed(0.0, digits)}e0"
        quantum, mode = Decimal(1).scaleb(-digits), ROUNDINGS[rounding]
        exponent = d.adjusted()
        mantissa = d.scaleb(-exponent).quantize(quantum, rounding=mode)
        if mantissa >= 10:
            exponent += 1
            mantissa = d.scaleb(-exponent).quantize(quantum, rounding=mode)
        return f"{sign}{mantissa:f}e{exponent}"


def group(text: str) -> str:
    """Thousands separators in the integer part of a plain decimal string (most numbers a
    page shows have three digits or fewer before the point: returned as they are)."""
    point = text.find(".")
    if (len(text) if point < 0 else point) <= 3:  # "-99" too: a sign and two digits
        return text
    sign = "-" if text.startswith("-") else ""
    whole, dot, frac = text[len(sign):].partition(".")
    head = len(whole) % 3 or 3  # the leftmost group holds one to three digits
    groups = [whole[:head], *(whole[i:i + 3] for i in range(head, len(whole), 3))]
    return sign + ",".join(groups) + dot + frac


def trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def write(value: float, style: Style) -> str:
    """``value`` in ``style``: thousands separators, trailing zeros dropped; zero is ``0``."""
    if value == 0:
        return "0"
    size = abs(value)
    if size >= style.exp_from or size < style.exp_below:
        text = exponential(value, style.exp_digits, style.rounding)
        if not style.exp_trim:
            return text
        mantissa, _, exponent = text.partition("e")
        return f"{trim(mantissa)}e{exponent}"
    decimals = max(0, style.significant - 1 - math.floor(math.log10(size)))
    if style.max_decimals is not None:
        decimals = min(decimals, style.max_decimals)
    return group(trim(fixed(value, decimals, style.rounding)))
