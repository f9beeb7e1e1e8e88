"""One number formatter (issue 41): ``derive.format_number`` and the calculator's
``fmt_number`` are styles of ``numberformat.write``; their ties and thresholds differ only as
the styles say."""

from __future__ import annotations

import math

from tinkernomics.derived import derive, numberformat
from tinkernomics.site.calculator.formatting import fmt_number


def test_styles_differ_only_as_declared() -> None:
    assert fmt_number(1234.5) == "1,235"  # half up (toFixed)
    assert derive.format_number(1234.5) == "1,234"  # half even (Python's format)
    assert fmt_number(0.00012345) == "1.23e-4"
    assert derive.format_number(0.00012345) == "0.000123"
    assert derive.format_number(3e-7) == "3e-7"  # mantissa trimmed
    assert fmt_number(3e-7) == "3.00e-7"
    assert derive.format_number(1234.5678, digits=4) == "1,235"
    assert derive.format_number(12.3456, digits=4) == "12.35"


def test_write_reads_its_style() -> None:
    style = numberformat.Style(significant=2, max_decimals=None, exp_below=1.0, exp_from=100.0,
                               exp_digits=1, exp_trim=False, rounding="half_up")
    assert [numberformat.write(v, style) for v in (0.5, 12.34, 250.0, 0.0)] == \
        ["5.0e-1", "12", "2.5e2", "0"]


def test_format_number_names_non_finite() -> None:
    assert derive.format_number(math.inf) == "∞"
    assert derive.format_number(math.nan) == "n/a"
