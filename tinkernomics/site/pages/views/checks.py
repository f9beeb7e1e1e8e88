"""Reference check dates for the Data quality page (pipeline step 6, a view model).

Each reference records when someone last checked it against its source (``checked``). This
view lists them, oldest check first, and flags a check as stale when it is more than
``STALE_AFTER_DAYS`` older than the catalog's most recent check. The comparison date comes from
the catalog, never from the wall clock, so the same catalog always builds the same page.
"""

from __future__ import annotations

from dataclasses import dataclass

from tinkernomics.site.pages.views.core import DATA_QUALITY, REFERENCES, Links, SiteIndex

STALE_AFTER_DAYS = 365
"""A check older than this many days (before the newest check in the catalog) is stale."""


@dataclass(frozen=True)
class CheckRow:
    ref_id: str
    title: str
    href: str
    checked: str
    age_days: int | None
    stale: bool


@dataclass(frozen=True)
class ChecksView:
    as_of: str
    stale_after_days: int
    rows: list[CheckRow]

    @property
    def stale_count(self) -> int:
        return sum(1 for row in self.rows if row.stale)

    @property
    def unchecked_count(self) -> int:
        return sum(1 for row in self.rows if row.age_days is None)


def reference_checks(index: SiteIndex) -> ChecksView:
    """Every reference with its check date and age, stale and unchecked ones first."""
    links = Links(DATA_QUALITY)
    refs = index.catalog.references
    dates = [ref.checked for ref in refs.values() if ref.checked is not None]
    as_of = max(dates, default=None)
    rows = []
    for ref_id in index.ref_order:
        ref = refs[ref_id]
        age = (as_of - ref.checked).days if as_of and ref.checked else None
        rows.append(CheckRow(
            ref_id=ref_id, title=ref.title, href=links.to(REFERENCES, ref_id),
            checked=ref.checked.isoformat() if ref.checked else "",
            age_days=age, stale=age is None or age > STALE_AFTER_DAYS))
    rows.sort(key=lambda r: (not r.stale, r.checked or "", r.ref_id))
    return ChecksView(as_of=as_of.isoformat() if as_of else "",
                      stale_after_days=STALE_AFTER_DAYS, rows=rows)

