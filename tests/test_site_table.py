"""The algorithms index table on the real catalog: complete without JavaScript (every row, every
column, in the HTML), and with it sortable and filterable, also after instant navigation."""

from __future__ import annotations

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_browser import NO_SEARCH_INDEX
from helpers_table import (
    clear_filters,
    count_text,
    filter_by,
    filter_name,
    sort_by,
    visible_rows,
    wait_table_ready,
    years,
)
from test_site_browser import VIEWPORTS, Served

from tinkernomics.catalog.entries import Catalog

pytestmark = [pytest.mark.build, pytest.mark.browser]


@pytest.fixture
def served(built_site: BuiltSite) -> Served:
    return Served(built_site.root)


def test_without_javascript_the_first_screen_shows_the_table(browser, served: Served,
                                                             catalog: Catalog) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  java_script_enabled=False)
    context.route("**/*", served.handle)
    page = context.new_page()
    page.goto(SUB_PATH_URL + "algorithms/")
    rows = page.locator(".tn-algorithms table tbody tr")
    assert rows.count() == len(catalog.algorithms)
    first = rows.first.bounding_box()
    assert first is not None and first["y"] + first["height"] < 900, "first row below the fold"
    assert page.locator(".tn-algorithms table tbody tr").first.is_visible()
    assert not page.locator("form.tn-filters").is_visible()  # no dead controls without JS
    context.close()


def test_sorting_and_filtering_work_and_survive_instant_navigation(browser, served: Served,
                                                                   catalog: Catalog) -> None:
    page = served.open(browser, "default", VIEWPORTS["desktop"])
    page.context.add_init_script(NO_SEARCH_INDEX)  # no check here searches
    page.goto(SUB_PATH_URL)
    page.evaluate("window.tnSamePage = true")
    page.locator("article a[href$='algorithms/']").first.click()  # instant navigation
    wait_table_ready(page)
    assert page.evaluate("window.tnSamePage === true"), "instant navigation did a full load"
    assert page.locator("form.tn-filters").count() == 1
    every = visible_rows(page)
    assert len(every) == len(catalog.algorithms)

    up = sort_by(page, "year")
    assert years(up) == sorted(years(every))
    down = sort_by(page, "year")
    assert years(down) == sorted(years(every), reverse=True)
    names = [r["name"] for r in sort_by(page, "name")]
    assert names == sorted(names)

    high = filter_by(page, "memory", "high")
    wanted = {f"row-{a.id}" for a in catalog.algorithms.values()
              if a.memory_profile.value == "high"}
    assert {r["id"] for r in high} == wanted and wanted
    assert count_text(page) == f"{len(wanted)} of {len(catalog.algorithms)} algorithms"
    fitted = filter_by(page, "fit", "yes")
    assert {r["id"] for r in fitted} == {f"row-{a.id}" for a in catalog.algorithms.values()
                                         if a.memory_profile.value == "high" and a.scalerl}
    clear_filters(page)
    losses = filter_by(page, "loss", "cispo")
    assert {r["id"] for r in losses} == {f"row-{a.id}" for a in catalog.algorithms.values()
                                         if "cispo" in a.tinker_losses}
    clear_filters(page)
    assert [r["id"] for r in filter_name(page, "grpo")] and all(
        "grpo" in r["name"] for r in visible_rows(page))
    assert len(clear_filters(page)) == len(catalog.algorithms)
    page.context.close()
    assert not served.errors, served.errors
