"""The calculator's list of the figures it used names a Tinker price row as readers know it.

Issue 44: the inputs list printed "Tinker 2026-07-17: qwen3-8b: $0.195 / $0.6 / $0.44" (a
catalog id and a price written unlike the Ways page's $0.60). A property of every price row of
the catalog, with expectations read off the entries themselves (no figure of today's).
"""

from __future__ import annotations

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator.figures import shared_figures


def test_price_rows_name_the_model_and_write_prices_as_the_source_does(catalog: Catalog) -> None:
    figures = {f.key: f for f in shared_figures(catalog)}
    seen = 0
    for plist in catalog.price_lists.values():
        for row in plist.rows:
            rows = [f for f in figures.values() if f.label.endswith(
                catalog.models[row.model].name + (row.variant or ""))
                and plist.id in f.label]
            assert rows, f"no figure for {row.model} in {plist.id}"
            shown = rows[0].text
            for price in (row.prefill, row.sample, row.train):
                assert derive.format_money(price) in shown
            seen += 1
    assert seen
