"""Test helpers: a built site with an algorithm that has its own chart, whatever the catalog
holds today.

Tests never name the algorithm: ``chart_site_for`` takes the first fitted algorithm of the real
catalog (the session's ``built_site``); if the catalog has none, it builds the site once more
from a copy of the catalog in which one algorithm is given ``FIXTURE_FIT`` (nothing is skipped).

``ReusedTab``: one browser tab the chart and embed browser tests navigate in turn.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest_site import REPO_ROOT, BuiltSite, run_mkdocs_build
from helpers_calc import real_catalog

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import spec as charts

_FIGURE = ("    unit: {unit}\n    status: reported\n    source: scalerl_khatri\n"
           "    locator: 'Table 1 (appendix A.13), \"a test fixture''s row\"'\n")
FIXTURE_FIT = ("scalerl:\n  model: 8B dense model (test fixture)\n"
               "  dataset: Polaris-53K maths (test fixture)\n"
               + "".join(f"  {name}:\n    value: {value}\n" + _FIGURE.format(unit=unit)
                         for name, value, unit in (("A", 61.0, "percent"),
                                                   ("B", 1.92, "dimensionless"),
                                                   ("C_mid", 2542, "gb200_hours"))))
"""A sourced ScaleRL fit, given to an algorithm of a catalog copy that has none."""


@dataclass(frozen=True)
class ChartSite:
    """A built site and an algorithm whose page carries its own chart."""

    site: BuiltSite
    algorithm: str

    @property
    def page(self) -> str:
        return f"algorithms/{self.algorithm}/index.html"

    @property
    def chart_id(self) -> str:
        return charts.algorithm_chart_id(self.algorithm)


def fitted_ids(catalog: Catalog) -> list[str]:
    return list(charts.fitted_algorithms(catalog))


def catalog_with_a_fit(dest: Path) -> tuple[Path, str]:
    """A copy of the real catalog at ``dest`` whose first algorithm without a fit gets
    ``FIXTURE_FIT``; returns the copy and that algorithm's id."""
    shutil.copytree(REPO_ROOT / "catalog", dest)
    for path in sorted((dest / "algorithms").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if not re.search(r"(?m)^scalerl:", text):
            path.write_text(text.rstrip("\n") + "\n" + FIXTURE_FIT, encoding="utf-8")
            return dest, path.stem
    raise AssertionError("every algorithm has a fit, yet none is charted")


def charted_algorithm(site: Path) -> str:
    """An algorithm the built ``site`` has a chart for (the first embed folder's)."""
    folders = sorted(p.name for p in (site / "embed").glob(f"{charts.ALGORITHM_PREFIX}*")
                     if p.name != charts.COMPARISON_ID and p.is_dir())
    assert folders, f"no algorithm chart in {site}"
    return folders[0].removeprefix(charts.ALGORITHM_PREFIX)


def chart_site_for(built_site: BuiltSite, tmp: Path) -> ChartSite:
    """The real site and its first fitted algorithm; else a site built from
    ``catalog_with_a_fit``."""
    fitted = fitted_ids(real_catalog())
    if fitted:
        return ChartSite(built_site, fitted[0])
    catalog, algorithm = catalog_with_a_fit(tmp / "catalog")
    done = run_mkdocs_build(tmp / "site", catalog=catalog)
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"mkdocs build of {catalog} failed:\n{log[-6000:]}"
    return ChartSite(BuiltSite(tmp / "site", log), algorithm)


DEFAULT_VIEWPORT = {"width": 1280, "height": 720}
"""Playwright's viewport for a context made without one."""


class ReusedTab:
    """One tab in one browser context, navigated by several tests in turn (a fresh context per
    test costs a new renderer each time). ``fresh`` hands it to a test blank, at the viewport
    and colour scheme the test asks for, with the storage of the page it leaves cleared;
    listeners the test added through ``on`` and routes it added to the page are removed when
    it is done. The context's HTTP cache is kept: use a fresh context for a check whose point
    is a first visit. Material's search worker builds an empty index (``NO_SEARCH_INDEX``):
    no check here searches."""

    def __init__(self, browser: Any, **options: Any) -> None:
        from helpers_browser import NO_SEARCH_INDEX

        self.context = browser.new_context(**options)
        self.context.add_init_script(NO_SEARCH_INDEX)
        self.page = self.context.new_page()
        self._listeners: list[tuple[str, Callable[..., Any]]] = []

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        """``page.on``, undone when the test's ``fresh`` block ends."""
        self.page.on(event, handler)
        self._listeners.append((event, handler))

    @contextmanager
    def fresh(self, viewport: dict[str, int] | None = None,
              color_scheme: str = "light") -> Iterator[Any]:
        page = self.page
        page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); }"
                      " catch (e) { /* about:blank and file: pages may have none */ } }")
        page.goto("about:blank")  # the previous test's page is gone before anything listens
        page.set_viewport_size(viewport or DEFAULT_VIEWPORT)
        page.emulate_media(color_scheme=color_scheme)
        try:
            yield page
        finally:
            for event, handler in self._listeners:
                page.remove_listener(event, handler)
            self._listeners.clear()
            page.unroute_all(behavior="ignoreErrors")

    def close(self) -> None:
        self.context.close()
