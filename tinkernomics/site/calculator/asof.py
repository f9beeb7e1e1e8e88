"""How fresh an estimate's prices are (pipeline step 6: calculator feature).

Every Tinker bill the site shows says the date of its price list, and warns when that list is
stale: a newer list exists in the catalog, or it is over ``ways.STALE_MONTHS`` months older than
the day the site was built (``derived.ways.staleness``, the rule the Ways to run page applies).
The build day is ``site.freshness``'s (``SOURCE_DATE_EPOCH``, else git), never the wall clock
(``freshness.staleness_day``).

The algorithm pages' cost panels and the calculator's static estimate get the view here
(``templates/asof.html``); the calculator page ships each list's date as a text
(``price.<name>``) and a result block whose cases read the graph's ``ways.tinker.newer`` and
``ways.tinker.old`` (``waysgraph``), so a list the reader picks is judged in the browser by the
same rule.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models import PriceList
from tinkernomics.derived import ways
from tinkernomics.derived.calculator.tree import to_tree


def price_texts(plist: PriceList) -> dict[str, str]:
    """A price list's texts the page's templates read as ``{price.<name>:text}``."""
    return {"effective": plist.effective.isoformat(), "title": plist.title}


def view(catalog: Catalog, price_list: str, today: dt.date) -> dict[str, Any]:
    """The date of one list and why it is stale ('' if it is not; ``newer``: the newer list's
    date when that is why), for ``asof.html``."""
    plist, latest = catalog.price_lists[price_list], ways.newest_price_list(catalog)
    stale = ways.staleness(plist.effective, latest, today)
    return {"date": plist.effective.isoformat(), "title": plist.title, "stale": stale,
            "newer": latest.isoformat() if stale and latest > plist.effective else "",
            "today": today.isoformat(), "months": ways.STALE_MONTHS}


def stale_block(catalog: Catalog, today: dt.date) -> dict[str, Any]:
    """The calculator's warning above the result when the chosen list is stale."""
    head = ('<p class="tn-calc__stale" role="note"><strong>Stale prices.</strong> This Tinker '
            "bill uses the list of {price.effective:text}")
    newer = ways.newest_price_list(catalog).isoformat()
    return {"type": "text", "id": "", "title": "", "flags": [],
            "when": to_tree("ways.tinker.newer + ways.tinker.old > 0"),
            "cases": [
                [to_tree("ways.tinker.newer"), head + f"; a newer list ({newer}) is in the "
                 "catalog: choose it under “Tinker price list”.</p>"],
                [None, head + f", over {ways.STALE_MONTHS} months before this site was built "
                 f"({today.isoformat()}): Tinker may have changed its prices since.</p>"]]}
