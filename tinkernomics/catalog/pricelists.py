"""Rules for dated price lists (pipeline step 3, cross-entry rules).

The commonest data pull request is "the prices changed": a new dated list beside the old ones.
The newest list becomes the calculator's default at once, so what would silently break the site
is refused here, each at its file:line:col with what to write:

- ``effective`` is the file's id, no two lists share it, and it is not in the future (a list
  dated ahead would become the default before its prices apply);
- a price more than ``JUMP_FACTOR`` times away from the same row in the previous list is a typo
  until the row says why it changed (``change_note``);
- the newest list prices every model the site's own defaults and presets name (passed in as
  ``price_row`` needs: ``model``, ``model:variant``, or ``model@list`` for a pinned list).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from itertools import pairwise
from typing import Any

from tinkernomics.catalog.dates import SLACK, today
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import Problem

JUMP_FACTOR = 5.0
"""A price this many times higher or lower than the previous list's is taken for a typo."""
PRICE_FIELDS = ("prefill", "sample", "train")
PRICE_ROW_NEED = "price_row"
"""The need kind: a row the newest (or a named) price list must have."""


def dated_lists(catalog: Catalog) -> list[tuple[dt.date, str, Any]]:
    """(effective, id, list) of every list with a valid date, oldest first."""
    found = []
    for key, plist in catalog.price_lists.items():
        effective = field_or_none(plist, "effective")
        if isinstance(effective, dt.date):
            found.append((effective, key, plist))
    return sorted(found, key=lambda item: (item[0], item[1]))


def rule_price_list_dates(catalog: Catalog) -> Iterator[Problem]:
    """A price list's date is its id, is not in the future, and is no other list's date."""
    latest = today() + SLACK
    seen: dict[dt.date, str] = {}
    for effective, key, _ in dated_lists(catalog):
        day = effective.isoformat()
        if key != day:
            yield catalog.problem("price_list", key, ("effective",),
                                  f"effective {day} differs from the list's id {key!r}",
                                  f"name the file {day}.yaml and set id: \"{day}\" (the list's id "
                                  "is its date)")
        if effective > latest:
            yield catalog.problem("price_list", key, ("effective",),
                                  f"effective {day} is in the future: the newest list becomes the "
                                  "calculator's default at once",
                                  "add the list on the day its prices apply")
        if effective in seen:
            yield catalog.problem("price_list", key, ("effective",),
                                  f"{seen[effective]!r} has the same date {day}",
                                  "one list per date: merge the two lists into one file")
        seen.setdefault(effective, key)


def _row_key(row: Any) -> tuple[str, str]:
    return field_or_none(row, "model") or "", field_or_none(row, "variant") or ""


def rule_price_jumps(catalog: Catalog) -> Iterator[Problem]:
    """A price more than JUMP_FACTOR times away from the previous list's is explained or fixed."""
    dated = dated_lists(catalog)
    for (_, old_key, old), (_, key, new) in pairwise(dated):
        before = {_row_key(r): r for r in (field_or_none(old, "rows") or [])}
        for index, row in enumerate(field_or_none(new, "rows") or []):
            previous = before.get(_row_key(row))
            if previous is None or field_or_none(row, "change_note"):
                continue
            yield from _jumps(catalog, key, old_key, index, row, previous)


def _jumps(catalog: Catalog, key: str, old_key: str, index: int, row: Any,
           previous: Any) -> Iterator[Problem]:
    for name in PRICE_FIELDS:
        now, then = field_or_none(row, name), field_or_none(previous, name)
        if not isinstance(now, int | float) or not isinstance(then, int | float):
            continue
        if now > 0 and then > 0 and max(now / then, then / now) <= JUMP_FACTOR:
            continue
        if now == then:
            continue
        yield catalog.problem(
            "price_list", key, ("rows", index, name),
            f"{name} {now} is more than {JUMP_FACTOR:g}x away from {then} in {old_key}",
            f"check for a typo (a digit or decimal point); if the price really changed, add "
            f"change_note: with what the source says, e.g. change_note: \"{name} price cut "
            f"announced on ...\"")


def price_rows_missing(catalog: Catalog, needs: Iterable[tuple[str, str, str]]
                       ) -> Iterator[Problem]:
    """The newest list (or the list a need pins) has a row for each model the site names."""
    dated = dated_lists(catalog)
    if not dated:
        return
    newest = dated[-1][1]
    named_by: dict[str, list[str]] = {}
    for kind, wanted, who in needs:
        if kind == PRICE_ROW_NEED:
            named_by.setdefault(wanted, []).append(who)
    for wanted, whos in named_by.items():
        priced, _, pinned = wanted.partition("@")
        list_id = pinned or newest
        plist = catalog.price_lists.get(list_id)
        if plist is None:  # a missing pinned list is reported as a missing entry
            continue
        model, _, variant = priced.partition(":")
        rows = {(m, v.lstrip(":")) for m, v in map(_row_key, field_or_none(plist, "rows") or [])}
        if (model, variant) in rows:
            continue
        shown = f"{model} (variant :{variant})" if variant else model
        hint = ("copy its row from the previous list with the new prices, or check the "
                "provider's page: a model it dropped must leave the site's defaults first")
        yield catalog.problem("price_list", list_id, ("rows",),
                              f"no row for {shown}, which {' and '.join(whos)} "
                              + ("prices" if pinned else "prices with the newest list"), hint)
