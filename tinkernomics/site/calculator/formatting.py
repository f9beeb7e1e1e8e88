"""Number formatting of the calculator (pipeline step 6: calculator feature).

``fmt_value(kind, value)`` shows a quantity in its graph format (``graph.FORMATS``).
calculator.js formats character for character the same way (tests/test_calc_browser.py checks
it): both round half up on the exact binary value (Python ``Decimal``, JavaScript
``toFixed``/``toExponential``). A missing value shows as an en dash.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

BYTES_PER_GB = 1e9
PERCENT = 100.0
_BIG = 1e15


def _fixed(value: float, decimals: int) -> str:
    """``value.toFixed(decimals)``: exact binary value, ties away from zero."""
    if value == 0:
        value = 0.0  # JavaScript prints -0 as "0"
    with localcontext() as ctx:
        ctx.prec = 2000
        quantum = Decimal(1).scaleb(-decimals)
        return f"{Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP):f}"


def _exponential(value: float, digits: int) -> str:
    """``value.toExponential(digits)`` without the '+': e.g. ``8.39e17``."""
    with localcontext() as ctx:
        ctx.prec = 2000
        d = Decimal(value)
        sign, d = ("-" if d < 0 else ""), abs(d)
        if d == 0:
            return f"{sign}{_fixed(0.0, digits)}e0"
        quantum = Decimal(1).scaleb(-digits)
        exponent = d.adjusted()
        mantissa = d.scaleb(-exponent).quantize(quantum, rounding=ROUND_HALF_UP)
        if mantissa >= 10:
            exponent += 1
            mantissa = d.scaleb(-exponent).quantize(quantum, rounding=ROUND_HALF_UP)
        return f"{sign}{mantissa:f}e{exponent}"


def _group(text: str) -> str:
    """Thousands separators in the integer part of a plain decimal string."""
    sign = "-" if text.startswith("-") else ""
    body = text[len(sign):]
    whole, dot, frac = body.partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return sign + ",".join(groups) + dot + frac


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def fmt_number(value: float) -> str:
    """About three significant digits, thousands separators, exponent outside [1e-3, 1e15)."""
    if value == 0:
        return "0"
    size = abs(value)
    if size >= _BIG or size < 1e-3:
        return _exponential(value, 2)
    decimals = 0 if size >= 100 else 1 if size >= 10 else 2 if size >= 1 else 3
    return _group(_trim(_fixed(value, decimals)))


def fmt_count(value: float) -> str:
    return _exponential(value, 3) if abs(value) >= _BIG else _group(_fixed(value, 0))


def fmt_usd(value: float) -> str:
    """``$1,234`` from a thousand dollars up, else cents: ``$12.34``."""
    if abs(value) >= _BIG:
        return "$" + _exponential(value, 2)
    text = _group(_fixed(value, 0 if abs(value) >= 1000 else 2))
    return "-$" + text[1:] if text.startswith("-") else "$" + text


def fmt_value(kind: str, value: float | None) -> str:
    """A number in one of the FORMATS kinds; ``None`` (not applicable) as an en dash."""
    if value is None:
        return "–"
    if kind == "count":
        return fmt_count(value)
    if kind == "gb":
        return fmt_number(value / BYTES_PER_GB) + " GB"
    if kind == "flops":
        return _exponential(value, 2)
    if kind == "hours":
        return fmt_number(value)
    if kind == "percent":
        return fmt_number(value * PERCENT) + "%"
    if kind == "ratio":
        return fmt_number(value) + "×"
    if kind == "number":
        return fmt_number(value)
    return fmt_usd(value)


