"""``tinkernomics estimate --ways --recipe``: the comparison and the recipe as data and text
(pipeline step 6, command line). The numbers come from ``derived.ways`` and ``derived.recipe``;
this module only gathers and prints them (``cli._estimate_parser`` calls it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import recipe as recipes
from tinkernomics.derived import ways as waysmod
from tinkernomics.derived.calculator.estimate import estimate


def extras(catalog: Catalog, query: Mapping[str, str], *, ways: bool = False,
           recipe: bool = False, today: dt.date | None = None) -> dict[str, Any]:
    """``{"ways": [...], "recipe": {...}}`` for the flags set."""
    found: dict[str, Any] = {}
    if ways:
        run = waysmod.run_totals(catalog, query)
        found["ways"] = waysmod.as_json(waysmod.compare(catalog, run, today or dt.date.today()))
    if recipe:
        found["recipe"] = recipes.as_json(recipes.export(catalog, estimate(catalog, query)))
    return found


def _row_text(row: dict[str, Any]) -> str:
    total = "" if row["total"] is None else f"${row['total']:,.2f}"
    why = (row["not_offered"] and f"not offered: {row['not_offered']}") or row["missing"] or ""
    flag = f"  [stale: {row['stale']}]" if row["stale"] else ""
    return f"  {row['key']:36} {row['basis']:14} {total:>14}  {row['dated']}{flag} {why}"


def print_extras(found: dict[str, Any]) -> None:
    if "ways" in found:
        print("\nways to run (cheapest first):")
        for row in found["ways"]:
            print(_row_text(row))
    if "recipe" in found:
        rec = found["recipe"]
        if rec is None:
            print("\nrecipe: the cookbook pin has no recipe for this algorithm")
            return
        print(f"\nrecipe (tinker-cookbook {rec['commit'][:12]}, {rec['path']}):")
        print(rec["command"])
        for warning in rec["warnings"]:
            print(f"# note: {warning}")
