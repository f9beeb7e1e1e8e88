"""The compare view in Chromium on the built site (issue 31): GRPO beside DAPO, the selection
kept in the address and restored in a fresh tab, nothing cut off at 390 px, a comparison without
JavaScript; and the build date at the end of every page. The tests with JavaScript share one
page at the site's own URL (``site``: test_calc_browser.SharedTab, reset for each test); the
fresh tab and the page without JavaScript get contexts of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_security import Watch, html_pages, routed_site
from test_calc_browser import SharedTab

from tinkernomics.site.freshness.feature import PLACEHOLDER

pytestmark = [pytest.mark.build, pytest.mark.browser]

COMPARE = SUB_PATH_URL + "compare/"
ROOT = "[data-tn-compare]"
CUT_OFF = """() => {
  const page = document.scrollingElement;
  const cells = Array.from(
    document.querySelectorAll('.tn-compare__table th, .tn-compare__table td'));
  return {
    page: page.scrollWidth - page.clientWidth,
    cells: cells.filter(c => c.scrollWidth > c.clientWidth + 1)
      .map(c => c.textContent.slice(0, 40)),
    outside: cells.filter(c => c.getBoundingClientRect().right > window.innerWidth + 1).length,
  };
}"""
"""How far the page scrolls sideways, the cells whose content overflows them, and the cells
that end beyond the window's right edge."""


@pytest.fixture(scope="module")
def shared(browser: Any, built_site: BuiltSite) -> Iterator[tuple[SharedTab, Watch]]:
    """One page on the built site at its own URL (Playwright's default window, 1280 x 720)."""
    with routed_site(browser, built_site.root, SUB_PATH_URL) as (context, watch):
        yield SharedTab(context=context), watch


@pytest.fixture
def site(browser: Any, built_site: BuiltSite,
         shared: tuple[SharedTab, Watch]) -> tuple[Any, Path, SharedTab, Watch]:
    """The browser and the built folder (for contexts of a test's own), and the shared page
    with what it requested from the site counted from now."""
    tab, watch = shared
    watch.missing.clear()
    watch.foreign.clear()
    return browser, built_site.root, tab, watch


def _shown(page: Any) -> list[str]:
    page.wait_for_function("() => document.querySelector('[data-tn-compare]')"
                           ".hasAttribute('data-tn-shown')")
    return page.locator(ROOT).get_attribute("data-tn-shown").split()


def _headings(page: Any) -> list[str]:
    return [t.strip() for t in page.locator(f"{ROOT} thead th[data-tn-algo]").all_inner_texts()]


def test_grpo_beside_dapo_from_the_address(site: tuple[Any, Path, SharedTab, Watch]) -> None:
    _, _, tab, watch = site
    page = tab.reset(height=720)
    page.goto(COMPARE + "?a=dapo&a=grpo", wait_until="load")
    page.wait_for_function("() => (document.querySelector('[data-tn-compare]')"
                           ".getAttribute('data-tn-shown') || '') === 'dapo grpo'")
    assert _headings(page) == ["DAPO", "GRPO"]
    cells = page.evaluate(f"""() => Array.from(document.querySelectorAll('{ROOT} tbody tr'))
        .map(r => r.querySelectorAll('td').length)""")
    assert cells and all(n == 2 for n in cells)
    clipping = page.locator(f"{ROOT} tr[data-tn-row=clipping]").inner_text()
    assert "not in the catalog" in clipping  # the catalog has no clipping field: no value
    assert watch.missing == [] and watch.foreign == []


def test_a_choice_is_kept_in_the_address_and_restored_in_a_fresh_tab(
        site: tuple[Any, Path, SharedTab, Watch]) -> None:
    browser, root, tab, _ = site
    page = tab.reset(height=720)
    page.goto(COMPARE, wait_until="load")
    _shown(page)
    selects = page.locator(f"{ROOT} select[name=a]")
    selects.nth(0).select_option("grpo")
    selects.nth(1).select_option("dapo")
    for i in range(2, selects.count()):
        selects.nth(i).select_option("")
    page.wait_for_function("() => document.querySelector('[data-tn-compare]')"
                           ".getAttribute('data-tn-shown') === 'grpo dapo'")
    url = page.url
    assert url.endswith("compare/?a=grpo&a=dapo")
    with routed_site(browser, root, SUB_PATH_URL) as (context, _):  # a fresh tab
        fresh = SharedTab(context=context).page
        fresh.goto(url, wait_until="load")
        fresh.wait_for_function("() => document.querySelector('[data-tn-compare]')"
                                ".getAttribute('data-tn-shown') === 'grpo dapo'")
        assert _headings(fresh) == ["GRPO", "DAPO"]
        values = [fresh.locator(f"{ROOT} select[name=a]").nth(i).input_value() for i in (0, 1)]
        assert values == ["grpo", "dapo"]


@pytest.mark.parametrize("query", ["?a=grpo&a=dapo", "?a=grpo&a=dapo&a=ppo&a=vapo"])
def test_nothing_is_cut_off_at_390_px(site: tuple[Any, Path, SharedTab, Watch],
                                      query: str) -> None:
    _, _, tab, _ = site
    page = tab.reset(width=390, height=844)
    page.goto(COMPARE + query, wait_until="load")
    page.wait_for_function("(n) => (document.querySelector('[data-tn-compare]')"
                           ".getAttribute('data-tn-shown') || '').split(' ').length === n",
                           arg=query.count("a="))
    found = page.evaluate(CUT_OFF)
    assert found == {"page": 0, "cells": [], "outside": 0}
    # each algorithm's cell is labelled with its name where the columns stack
    label = page.evaluate("() => getComputedStyle(document.querySelector("
                          "'.tn-compare__table td'), '::before').content")
    assert label.strip('"') in {"GRPO", "DAPO"}


def test_without_javascript_the_featured_algorithms_are_compared(
        site: tuple[Any, Path, SharedTab, Watch]) -> None:
    browser, root, _, _ = site
    with routed_site(browser, root, SUB_PATH_URL, java_script_enabled=False) as (context, _):
        page = context.new_page()
        page.goto(COMPARE + "?a=vapo&a=gspo", wait_until="load")
        headings = _headings(page)
        assert len(headings) >= 2
        assert page.locator(f"{ROOT} tbody tr").first.locator("td").count() == len(headings)
        assert page.locator(".tn-compare__noscript").is_visible()
        assert not page.locator(f"{ROOT} form").is_visible()  # it would do nothing


def test_algorithm_pages_and_the_index_link_the_compare_view(built_site: BuiltSite) -> None:
    grpo = (built_site.root / "algorithms" / "grpo" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../compare/?a=grpo&amp;a=dapo"' in grpo
    index = (built_site.root / "algorithms" / "index.html").read_text(encoding="utf-8")
    assert 'href="../compare/"' in index


def test_every_page_shows_the_build_date(built_site: BuiltSite) -> None:
    # 404.html is Material's own template, which replaces the content block: no date there
    pages = [p for p in html_pages(built_site.root)
             if p.name != "404.html" and "md-content" in p.read_text(encoding="utf-8")]
    assert len(pages) > 30
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert PLACEHOLDER not in text, path
        assert 'data-tn-build-date>Site built <time datetime="' in text, path


def test_status_and_price_dates_are_visible_text(site: tuple[Any, Path, SharedTab, Watch]) -> None:
    _, _, tab, _ = site
    page = tab.reset(width=390, height=844)
    page.goto(SUB_PATH_URL + "tinker/", wait_until="load")
    lists = page.locator(".tn-pricelist").all()
    assert lists
    for plist in lists:
        line = plist.locator(".tn-asof")
        assert line.is_visible()
        text = line.inner_text()
        assert "Prices as of" in text
        assert any(s in text for s in ("reported", "unverified", "derived"))
    page.goto(SUB_PATH_URL + "algorithms/grpo/", wait_until="load")
    badges = [b for b in page.locator(".tn-badge").all()  # not those folded away as history
              if b.evaluate("e => !e.closest('details:not([open])')")]
    assert badges
    for badge in badges[:10]:
        badge.scroll_into_view_if_needed()
        assert badge.is_visible() and badge.inner_text().strip() in {"unverified", "derived"}
