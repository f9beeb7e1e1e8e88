"""Freshness feature (pipeline step 6, after the pages): the build date on every page.

``site_overrides/main.html`` ends every page's content with an empty ``PLACEHOLDER``; the
post-build pass (``postbuild.finish``, which reads and writes each page once) fills it with
the build date and the date the catalog last changed, so MkDocs and Zensical builds show the
same line. Both dates are reproducible, never the wall clock:
``SOURCE_DATE_EPOCH`` when set; else the newest commit of the project (the build) and of its
catalog folder (the data), from git; outside git, the newest catalog file
(``api.files.data_last_changed``).

A build reads them once (``of_build``; issue 47): the pages' pass (the MkDocs hooks), the API's
``last_changed``, the price panels' staleness day and the post-build pass each asked, and each
ask ran git twice or, outside git, listed and stat-ed every catalog file (0.2 s at 1,000
algorithms). What was read is held for the build only: ``new_build`` drops it when a build starts
(MkDocs' ``on_pre_build``) and the post-build pass, the last step of every build, when it ends.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
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


def build_dates(root: Path, catalog: Path, environ: Mapping[str, str] | None = None, *,
                data: dt.datetime | None = None) -> BuildDates:
    """The build's dates (UTC days): see the module docstring for where they come from;
    ``data``: when the data last changed, if already read."""
    env = os.environ if environ is None else environ
    data = data_last_changed(catalog, env) if data is None else data
    if env.get("SOURCE_DATE_EPOCH", "").strip():
        return BuildDates(data.date(), data.date())
    head = _git_head_date(root)
    built = max(head, data) if head is not None else data
    return BuildDates(built.date(), data.date())


@dataclass(frozen=True)
class BuildRead:
    """What a build reads of its dates: when the data last changed (to the second, the API's
    ``last_changed``) and the two days pages print."""

    data_changed: dt.datetime
    dates: BuildDates


_BUILD: dict[tuple[str, str, str], BuildRead] = {}
"""This build's dates by (project root, catalog folder, ``SOURCE_DATE_EPOCH``); see the module
docstring."""


def of_build(root: Path) -> BuildRead:
    """The dates of the build of the project at ``root``, read at its first ask."""
    env, catalog = os.environ, catalog_dir(root)
    key = (str(root.resolve()), str(catalog), env.get("SOURCE_DATE_EPOCH", "").strip())
    found = _BUILD.get(key)
    if found is None:
        data = data_last_changed(catalog, env)
        found = _BUILD[key] = BuildRead(data, build_dates(root, catalog, env, data=data))
    return found


def new_build() -> None:
    """Forget the last build's dates (a build starts, or the last one ended)."""
    _BUILD.clear()


def staleness_day(root: Path) -> dt.date:
    """The one day every price is judged stale on (the calculator, the algorithm pages' cost
    panels, the Ways to run page): the site's build day (``build_dates``: ``SOURCE_DATE_EPOCH``,
    else git), read once per build (``of_build``)."""
    return of_build(root).dates.built


def fill_page(page: str, dates: BuildDates) -> str:
    """``page`` with its placeholder filled (unchanged if it has none)."""
    return page.replace(PLACEHOLDER, dates.html()) if PLACEHOLDER in page else page


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """No macros: the date is written after the pages, in ``postbuild``'s pass (``fill_page``)."""
    return {}
