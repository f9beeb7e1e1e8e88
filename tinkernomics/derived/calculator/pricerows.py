"""A price list's row for a model (pipeline step 5): which row prices a chosen model and
variant, and the row's figure key. ``inputs`` re-exports both (``inputs.price_row``,
``inputs.row_key``), where the estimate and the page read them.
"""

from __future__ import annotations

from tinkernomics.catalog import models as m


def price_row(plist: m.PriceList, model: str, variant: str) -> m.PriceRow | None:
    """The row for ``model`` and ``variant``; the plain row, else the first, when absent."""
    rows = [r for r in plist.rows if r.model == model]
    for wanted in (variant, ""):
        for row in rows:
            if (row.variant or "") == wanted:
                return row
    return rows[0] if rows else None


def row_key(plist: m.PriceList, row: m.PriceRow) -> str:
    return f"prices:{plist.id}:{row.model}{row.variant or ''}"
