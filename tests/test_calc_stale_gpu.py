"""The stale-GPU-price warning names the rental row the estimate prices with (issue 44): the
median (``default_rental``), judged by its date (a range by its end), never the first row."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import Status, Unit
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.calculator import wayslayout
from tinkernomics.site.pages.views import Links

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "valid"
TODAY = dt.date(2026, 12, 6)


def _row(provider: str, date: str, value: float) -> m.RentalPrice:
    return m.RentalPrice.model_validate({"provider": provider, "date": date, "price": {
        "value": value, "unit": Unit.usd_per_gpu_hour, "status": Status.reported,
        "source": "x"}})


def _warnings(rows: list[m.RentalPrice]) -> str:
    hw = load_valid_catalog(FIXTURE).hardware["h100"].model_copy(update={"rental_prices": rows})
    catalog: Any = SimpleNamespace(hardware={"h100": hw})
    block = wayslayout.stale_gpu_price_block(catalog, TODAY, Links("calculator/"))
    return " ".join(text for _, text in block["cases"])


def test_a_stale_first_row_is_not_blamed_when_the_median_is_current() -> None:
    rows = [_row("Old index", "2026-03", 2.35), _row("Median cloud", "2025-09 to 2026-10", 2.69),
            _row("Dear", "2026-11", 9.0)]
    assert _warnings(rows) == ""


def test_a_stale_median_is_named() -> None:
    rows = [_row("Fresh", "2026-11", 1.0), _row("Median cloud", "2026-02", 2.0),
            _row("Dear", "2026-01", 9.0)]
    text = _warnings(rows)
    assert "Median cloud" in text and "2026-02" in text and "Fresh" not in text
