"""Freshness feature (pipeline step 6, after the pages): the build date on every page.

``site_overrides/main.html`` ends every page's content with an empty ``PLACEHOLDER``; the
post-build pass (``postbuild.finish``, which reads and writes each page once) fills it with
the build date and the date the catalog last changed, so MkDocs and Zensical builds show the
same line. Both dates are reproducible, never the wall clock:
``SOURCE_DATE_EPOCH`` when set; else the newest commit of the project (the build) and of its
catalog folder (the data), from git; outside git, the newest catalog file
(``api.files.data_last_changed``).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tinkernomics.site.api.files import data_last_changed
from tinkernomics.site.build import Macro, SiteContext, catalog_dir

PLACEHOLDER = '<p class="tn-build-date" data-tn-build-date></p>'
"""What main.html writes at the end of every page's content."""


@dataclass(frozen=True)
class BuildDates:
    built: dt.date
    data: dt.date

    def html(self) -> str:
        return (f'<p class="tn-build-date" data-tn-build-date>Site built '
                f'<time datetime="{self.built.isoformat()}">{self.built.isoformat()}</time>'
                f' · catalog data as of <time datetime="{self.data.isoformat()}">'
                f"{self.data.isoformat()}</time></p>")


def _git_head_date(root: Path) -> dt.datetime | None:
    try:
        done = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%cI"],
                              capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip()
    if done.returncode != 0 or not text:
        return None
    return dt.datetime.fromisoformat(text).astimezone(dt.UTC)


def build_dates(root: Path, catalog: Path,
                environ: Mapping[str, str] | None = None) -> BuildDates:
    """The build's dates (UTC days): see the module docstring for where they come from."""
    env = os.environ if environ is None else environ
    data = data_last_changed(catalog, env)
    if env.get("SOURCE_DATE_EPOCH", "").strip():
        return BuildDates(data.date(), data.date())
    head = _git_head_date(root)
    built = max(head, data) if head is not None else data
    return BuildDates(built.date(), data.date())


def staleness_day(root: Path) -> dt.date:
    """The one day every price is judged stale on (the calculator, the algorithm pages' cost
    panels, the Ways to run page): the site's build day (``build_dates``: ``SOURCE_DATE_EPOCH``,
    else git), read once per build."""
    return _build_day(root, os.environ.get("SOURCE_DATE_EPOCH", ""))


@cache
def _build_day(root: Path, epoch: str) -> dt.date:  # epoch: part of the cache key
    return build_dates(root, catalog_dir(root)).built


def fill_page(page: str, dates: BuildDates) -> str:
    """``page`` with its placeholder filled (unchanged if it has none)."""
    return page.replace(PLACEHOLDER, dates.html()) if PLACEHOLDER in page else page


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """No macros: the date is written after the pages, in ``postbuild``'s pass (``fill_page``)."""
    return {}
