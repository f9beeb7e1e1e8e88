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


def _values() -> list[float]:
    """Ties on the exact binary value, edges of the float range, and random floats of every
    size and sign (a fixed seed)."""
    import random
    import struct
    rng = random.Random(41)
    values = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.625, 9.995, 0.045, 1234.5,
              123456.5, 1e15, 999999999999999.9, 0.0005, 5e-324, 1.7976931348623157e308,
              -1e-300, 3, -12, 10**20]
    for _ in range(3000):
        values.append(rng.uniform(-1e6, 1e6))
        values.append(rng.randint(-10**6, 10**6) / rng.choice([2, 8, 1024, 10, 1000]))
        values.append(10 ** rng.uniform(-20, 20) * rng.choice([1, -1]))
        bits = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(bits):
            values.append(bits)
    return values


def test_fixed_and_exponential_match_decimal() -> None:
    """The integer-arithmetic engine writes what ``Decimal`` writes, ties included."""
    for value in _values():
        for rounding in numberformat.ROUNDINGS:
            for digits in (0, 1, 2, 3):
                assert numberformat.exponential(value, digits, rounding) == \
                    numberformat.exponential_reference(value, digits, rounding), value
                if abs(value) < 1e200:
                    assert numberformat.fixed(value, digits, rounding) == \
                        numberformat.fixed_reference(value, digits, rounding), value


def test_with_digits_of_page_is_the_replaced_style() -> None:
    for digits in (1, 2, 3, 4, 17, 20):
        style = numberformat.with_digits(numberformat.PAGE, digits)
        assert (style.significant, style.exp_digits) == (digits, digits - 1)
        assert style == numberformat.PAGE.__class__(**{
            **numberformat.PAGE.data(), "significant": digits, "exp_digits": digits - 1})


def test_group_puts_a_separator_every_three_digits() -> None:
    assert [numberformat.group(t) for t in ("", "7", "123", "1234", "-123456.789", "1234567",
                                            "-0.00", "12345678901")] == \
        ["", "7", "123", "1,234", "-123,456.789", "1,234,567", "-0.00", "12,345,678,901"]
