"""Number formatting of the calculator (pipeline step 6: calculator feature).

``fmt_value(kind, value)`` shows a quantity in its graph format (``graph.FORMATS``).
calculator.js formats character for character the same way, reading the style
``numberformat.CALCULATOR`` from the page (tests/test_numberformat_browser.py checks it): both
round half up on the exact binary value (Python ``Decimal``, JavaScript ``toFixed`` and
``toExponential``). A missing value shows as an en dash.
"""

from __future__ import annotations

from tinkernomics.derived import numberformat
from tinkernomics.derived.derive import format_money
from tinkernomics.derived.numberformat import exponential as _exponential
from tinkernomics.derived.numberformat import fixed as _fixed
from tinkernomics.derived.numberformat import group as _group

BYTES_PER_GB = 1e9
PERCENT = 100.0
_BIG = numberformat.CALCULATOR.exp_from


def fmt_number(value: float) -> str:
    """About three significant digits, thousands separators, exponent outside [1e-3, 1e15)
    (``numberformat.CALCULATOR``, which calculator.js reads from the page)."""
    return numberformat.write(value, numberformat.CALCULATOR)


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
    if kind == "rate":  # a catalog price as stated: $2, $0.60, $6.225 (calculator.js fmtRate)
        return format_money(value)
    return fmt_usd(value)


