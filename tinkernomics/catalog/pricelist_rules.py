"""Price lists that would silently do nothing (pipeline step 3, cross-entry rules), beside the
date and jump rules of ``pricelists``:

- a list whose every price equals the list before it (what ``make new`` writes before any edit)
  changes nothing, yet as the newest it would become the calculator's default under a new date;
- a list dated before the newest one but added after it goes into the history, and the
  calculator keeps the newest list's prices: the cut never applies. "Added after" is read from
  the entries themselves, so the rule works on a fresh clone, in CI and on fixtures alike (no git
  history needed): either its date with day and month swapped (2026-01-12 for 2026-12-01) falls
  after the newest list and not in the future, or its source is dated after the newest list took
  effect (a page read in December cannot be the first record of prices older than July's list);
- so that the second test can run, a list's source gives its ``date`` (the day the page showed
  these prices, or its publication date).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from tinkernomics.catalog import dates
from tinkernomics.catalog.dates import SLACK
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.pricelists import PRICE_FIELDS, dated_lists
from tinkernomics.catalog.problems import Problem


def _prices(plist: Any) -> tuple[object, ...]:
    rows = sorted((field_or_none(r, "model") or "", field_or_none(r, "variant") or "",
                   *(field_or_none(r, name) for name in PRICE_FIELDS))
                  for r in field_or_none(plist, "rows") or [])
    extras = tuple(field_or_none(field_or_none(plist, name), "value")
                   for name in ("storage_usd_per_gb_month", "cached_prefill_discount"))
    return (*rows, extras)


def rule_price_list_changes_something(catalog: Catalog) -> Iterator[Problem]:
    """A list differs from the list before it in at least one price."""
    for (_, old_key, old), (_, key, new) in pairwise(dated_lists(catalog)):
        if _prices(old) != _prices(new):
            continue
        yield catalog.problem(
            "price_list", key, ("rows",),
            f"every price equals {old_key}'s: this list changes nothing, yet it would become "
            "the calculator's default under a new date",
            "edit the prices that changed (make new copies the newest list for you to edit), or "
            "delete this file; if the provider confirmed the old prices, update `checked` of "
            f"the source of {old_key} instead", key=True)


def _swapped(day: dt.date) -> dt.date | None:
    if day.day > 12 or day.day == day.month:
        return None
    return dt.date(day.year, day.day, day.month)


def _source_date(catalog: Catalog, plist: Any) -> dt.date | None:
    ref = catalog.references.get(str(field_or_none(plist, "source") or ""))
    date = field_or_none(ref, "date") if ref is not None else None
    return date if isinstance(date, dt.date) else None


def rule_price_list_not_backdated(catalog: Catalog) -> Iterator[Problem]:
    """A list older than the newest was not added after it (a day/month swap, a backdate)."""
    dated = dated_lists(catalog)
    if not dated:
        return
    newest, newest_key, _ = dated[-1]
    latest = dates.today() + SLACK
    for effective, key, plist in dated[:-1]:
        what = (f"effective {effective.isoformat()} puts this list before the newest, "
                f"{newest_key}: it goes into the history and the calculator keeps {newest_key}'s "
                "prices")
        swapped = _swapped(effective)
        source_date = _source_date(catalog, plist)
        if swapped is not None and newest < swapped <= latest:
            day = swapped.isoformat()
            yield catalog.problem(
                "price_list", key, ("effective",), f"{what}; day and month swapped?",
                f"if the prices apply from {day}, write effective: {day}, id: \"{day}\" and name "
                f"the file {day}.yaml")
        elif source_date is not None and source_date > newest:
            yield catalog.problem(
                "price_list", key, ("effective",),
                f"{what}, yet its source is dated {source_date.isoformat()}, after {newest_key}",
                f"if these prices apply now, date the list the day they took effect (after "
                f"{newest_key}); if they are older prices found later, cite a copy of the page "
                "from that time (an archived snapshot, dated when it was taken)")


def rule_price_list_source_dated(catalog: Catalog) -> Iterator[Problem]:
    """A price list's source reference gives its date (what the backdate rule reads)."""
    for _, key, plist in dated_lists(catalog):
        source = str(field_or_none(plist, "source") or "")
        ref = catalog.references.get(source)
        if ref is None or "date" in catalog.entry("reference", source).model.model_fields_set:
            continue
        yield catalog.problem(
            "reference", source, ("id",),
            f"price list {key} cites this reference, which gives no date",
            "add date: YYYY-MM-DD, the day the page showed these prices (a snapshot) or its "
            "publication date: validate compares it with the newest list's date")
