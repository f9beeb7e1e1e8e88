"""Dates that cannot be right (pipeline step 3, a cross-entry rule).

A year, a publication date or the day a citation was checked never lies in the future. "The
future" starts the day after tomorrow (UTC): a contributor east of UTC may already write
tomorrow's date. A reference's ``year`` may differ from its ``date``'s (a conference paper has
the venue's year and its preprint's date; a page, its own year and the day of the snapshot). A
price list's ``effective`` date has rules of its own (``pricelists``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import Problem

SLACK = dt.timedelta(days=1)


def today() -> dt.date:
    """Today in UTC (tests replace this)."""
    return dt.datetime.now(dt.UTC).date()


def rule_dates_plausible(catalog: Catalog) -> Iterator[Problem]:
    """No algorithm or reference year, publication date or check date lies in the future."""
    latest = today() + SLACK
    for key, algo in catalog.algorithms.items():
        year = field_or_none(algo, "year")
        if isinstance(year, int) and year > latest.year:
            yield catalog.problem("algorithm", key, ("year",), f"year {year} is in the future",
                                  "the year the method was first published (paper or preprint)")
    for key, ref in catalog.references.items():
        yield from _reference_dates(catalog, key, ref, latest)


def _reference_dates(catalog: Catalog, key: str, ref: object,
                     latest: dt.date) -> Iterator[Problem]:
    year, date, checked = (field_or_none(ref, name) for name in ("year", "date", "checked"))
    if isinstance(checked, dt.date) and checked > latest:
        yield catalog.problem("reference", key, ("checked",),
                              f"checked on {checked.isoformat()}, a day still to come",
                              "the day you compared the citation with the source, YYYY-MM-DD")
    if isinstance(date, dt.date) and date > latest:
        yield catalog.problem("reference", key, ("date",),
                              f"date {date.isoformat()} is in the future",
                              "the publication date, or for a page that changes the day you "
                              "read it")
    if isinstance(year, int) and year > latest.year:
        yield catalog.problem("reference", key, ("year",), f"year {year} is in the future",
                              "the year the work was published")
