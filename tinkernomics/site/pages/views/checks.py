"""Reference check dates for the Data quality page (pipeline step 6, a view model).

Each reference records when someone last checked it against its source (``checked``). This
view lists them, oldest check first, and flags a check as stale when it is more than
``STALE_AFTER_DAYS`` older than the catalog's most recent check. The comparison date comes from
the catalog, never from the wall clock, so the same catalog always builds the same page.

Every stale or missing check is listed, then the ``CURRENT_SHOWN`` current checks that will go
stale first; the other current ones are counted, with the range of their dates, so the page does
not grow with the catalog (at 2,000 references the full table was two thirds of the page). Each
reference's date stays in the API (``references.json``, field ``checked``).

The same view carries the reported values without a ``locator`` (``catalog.locators``), one
row per value with its entry and field: validate requires a locator only in the ScaleRL blocks,
so this list is where the rest is tracked.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tinkernomics.catalog.locators import missing_locators
from tinkernomics.site.pages.views.core import DATA_QUALITY, REFERENCES, Links, SiteIndex
from tinkernomics.site.pages.views.kinds import entry_anchor, entry_label, entry_page

STALE_AFTER_DAYS = 365
"""A check older than this many days (before the newest check in the catalog) is stale."""
CURRENT_SHOWN = 100
"""Current checks listed after the stale ones (the oldest first): the real catalog's all."""


@dataclass(frozen=True)
class CheckRow:
    ref_id: str
    title: str
    href: str
    checked: str
    age_days: int | None
    stale: bool


@dataclass(frozen=True)
class LocatorRow:
    """A reported value without a locator: the entry it belongs to and its field."""

    entry: str
    href: str
    field: str


@dataclass(frozen=True)
class ChecksView:
    as_of: str
    stale_after_days: int
    rows: list[CheckRow]
    """Every reference: stale and unchecked first, then by check date (oldest first)."""
    api_href: str = ""
    """The API's references collection, where every check date is."""
    current_shown: int = CURRENT_SHOWN
    missing_locators: tuple[LocatorRow, ...] = ()
    """Reported values without a locator, in catalog order."""

    @property
    def shown(self) -> list[CheckRow]:
        """The rows the table lists: every stale one, then the first ``current_shown``."""
        stale = [row for row in self.rows if row.stale]
        return stale + self._current[: self.current_shown]

    @property
    def not_shown(self) -> list[CheckRow]:
        """Current checks the table leaves out (counted under it), oldest first."""
        return self._current[self.current_shown:]

    @cached_property
    def _current(self) -> list[CheckRow]:
        """The current checks, oldest first (derived once: the page reads three views of it)."""
        return [row for row in self.rows if not row.stale]

    @property
    def not_shown_count(self) -> str:
        """How many the table leaves out, as the page says it: "1,980 references are",
        "1 reference is"."""
        n = len(self.not_shown)
        return f"{n:,} reference is" if n == 1 else f"{n:,} references are"

    @property
    def stale_count(self) -> int:
        return sum(1 for row in self.rows if row.stale)


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
                      stale_after_days=STALE_AFTER_DAYS, rows=rows,
                      api_href=links.to("api/v2") + "references.json",
                      missing_locators=locator_rows(index, links))


def locator_rows(index: SiteIndex, links: Links) -> tuple[LocatorRow, ...]:
    """One row per reported value without a locator, linked to its entry's page."""
    rows = []
    for item in missing_locators(index.catalog):
        kind, key = item.entry.kind.name, item.entry.key
        rows.append(LocatorRow(entry=entry_label(kind, item.entry.model),
                               href=links.to(entry_page(kind, key), entry_anchor(kind, key)),
                               field=item.field))
    return tuple(rows)

