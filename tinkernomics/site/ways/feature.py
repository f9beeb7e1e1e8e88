"""Ways to run feature (pipeline step 6): the ``ways_page()`` macro (docs/ways.md).

The page lists every way to run an RL job besides Tinker (``offers``: each dated list with its
prices, date, source and locator, free tier, gaps, stale label) and, computed at build time,
the calculator's default run and each preset priced on every one of them, with the
tinker-cookbook recipe of each run (``runs``). Staleness is judged on the site's build day
(``freshness.staleness_day``: ``SOURCE_DATE_EPOCH``, else git), the day the calculator judges
on too, never the wall clock, so the same commit builds the same page.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.ways import STALE_MONTHS
from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.calculator.presets import RUNS, preset_queries
from tinkernomics.site.freshness.feature import staleness_day
from tinkernomics.site.pages.feature import md_text, site_index
from tinkernomics.site.pages.figures import PARTIALS
from tinkernomics.site.pages.rawhtml import raw_block
from tinkernomics.site.pages.views import Links, SiteIndex
from tinkernomics.site.pages.views.kinds import WAYS
from tinkernomics.site.ways import offers, pin, runs

ENV = Environment(
    loader=ChoiceLoader([PackageLoader("tinkernomics.site.ways", "templates"),
                         PackageLoader("tinkernomics.site.pages", "templates")]),
    autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
)
ENV.globals.update(PARTIALS)
ENV.filters["mdtext"] = md_text  # _partials.html's heading macro
ENV.filters["raw"] = lambda html: Markup(raw_block(str(html)) + "\n")

_BLANK_RUNS = re.compile(r"\n{3,}")
DEFAULT_LABEL = "The calculator's default run"


def calculator_runs(catalog: Catalog) -> list[tuple[str, dict[str, str]]]:
    """The calculator's default run and each preset (price list pinned), with their labels."""
    queries = preset_queries(catalog)
    return [(f"{DEFAULT_LABEL}: {label}" if i == 0 else label, q)
            for i, ((label, _), q) in enumerate(zip(RUNS, queries, strict=True))]


def ways_html(index: SiteIndex, run_list: Sequence[tuple[str, Mapping[str, str]]],
              today: dt.date) -> str:
    """The page body: the comparisons, then every offer."""
    links = Links(WAYS)
    html = ENV.get_template("ways.html").render(
        runs=runs.run_views(index, run_list, today, links),
        offers=offers.offer_views(index, today, links), pins=pin.pin_views(index, links),
        today=today.isoformat(),
        stale_months=STALE_MONTHS)
    return _BLANK_RUNS.sub("\n\n", html).strip() + "\n"


def macros(ctx: SiteContext) -> dict[str, Macro]:
    def ways_page() -> str:
        return ways_html(site_index(ctx), calculator_runs(ctx.catalog),
                          staleness_day(ctx.root))

    return {"ways_page": ways_page}
