"""One number formatter (issue 41): calculator.js writes numbers by the style the page ships
(``numberformat.CALCULATOR`` as ``number_format``), character for character as Python does.

The same numbers go through Python's ``formatting.fmt_number`` and the page's
``tnCalculator.format.number``; then the page is given another style (its shipped data
rewritten, as test_calc_rename_browser does for keys) and follows it, so no threshold is typed in
the script.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from test_calc_browser import SharedTab, open_calculator
from test_calc_rename_browser import _DATA

from tinkernomics.derived import numberformat
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.calculator.formatting import fmt_number

pytestmark = pytest.mark.browser

TIES = [0.125, 1234.5, 2.675, 0.0015, 999.95, 1e15 - 1, 1e15, 1e-3, -0.0005, 123456.5,
        99.99999999999999, 9.995, 0.00012345, 5.0, -7.25, 1e-4, 0.99995, 12.345, 1e20, -3e-7]
"""Ties, thresholds and both exponent sides."""
OTHER = numberformat.Style(significant=4, max_decimals=1, exp_below=1e-2, exp_from=1e6,
                           exp_digits=3, exp_trim=True, rounding="half_up")


def numbers() -> list[float]:
    rng = random.Random(41)
    found = list(TIES)
    for _ in range(400):
        value = rng.choice((1, -1)) * 10 ** rng.uniform(-6, 17)
        found += [value, round(value, rng.randint(0, 4))]
    return found


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[SharedTab]:
    shared = SharedTab(browser)
    yield shared
    shared.close()


def _written(page: Any, values: list[float]) -> list[str]:
    return list(page.evaluate("(xs) => xs.map(window.tnCalculator.format.number)", values))


def test_page_writes_numbers_as_python(tab: SharedTab, site_server: str) -> None:
    values = numbers()
    page, errors = open_calculator(tab, site_server, {})
    assert _written(page, values) == [fmt_number(v) for v in values]
    assert errors == []


def test_page_follows_shipped_style(tab: SharedTab, site_server: str, built_site: Any) -> None:
    html = (built_site.root / "calculator" / "index.html").read_text(encoding="utf-8")

    def restyle(match: Any) -> str:
        d = json.loads(match.group(2))
        d["number_format"] = OTHER.data()
        return match.group(1) + template_json(d, sort_keys=True) + match.group(3)

    values = numbers()
    page, errors = open_calculator(tab, site_server, {}, html=_DATA.sub(restyle, html))
    assert _written(page, values) == [numberformat.write(v, OTHER) for v in values]
    assert errors == []
