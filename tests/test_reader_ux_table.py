"""The algorithms index keeps its filters and sort order in the page address, and counts in plain
words (issue 31): "All N algorithms", "k of N algorithms". The built site in Chromium at its own
URL (strict Content-Security-Policy): a filtered, sorted index reloads the same rows in a fresh
tab, comes back after a visit to an algorithm's page, ignores values the page does not offer,
and keeps other parameters. Properties of the real catalog only, never its numbers.

The tests share one page at the site's own URL (``site``: test_calc_browser.SharedTab, reset
for each test); a fresh tab and the page without JavaScript get contexts of their own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_security import Watch, routed_site
from helpers_table import (
    count_text,
    filter_by,
    filter_name,
    sort_by,
    visible_rows,
    wait_table_ready,
)
from test_calc_browser import SharedTab

from tinkernomics.catalog.entries import Catalog

INDEX = SUB_PATH_URL + "algorithms/"
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def shared(browser: Any, built_site: BuiltSite) -> Iterator[tuple[SharedTab, Watch]]:
    """One page on the built site at its own URL, in a desktop window."""
    with routed_site(browser, built_site.root, SUB_PATH_URL, viewport=DESKTOP) as (context, watch):
        yield SharedTab(context=context), watch


@pytest.fixture
def site(shared: tuple[SharedTab, Watch]) -> tuple[SharedTab, Watch]:
    """The shared page, reset, with what happened in its context counted from now."""
    tab, watch = shared
    tab.reset()
    watch.dialogs.clear()
    watch.foreign.clear()
    watch.missing.clear()
    return tab, watch


def opened(page: Any, url: str) -> Any:
    page.goto(url)
    wait_table_ready(page)
    return page


def query(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def form_values(page: Any) -> dict[str, str]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        'form.tn-filters select, form.tn-filters input')].map(c => [c.name, c.value]))""")


def test_the_count_reads_in_plain_words(browser, built_site: BuiltSite, catalog: Catalog,
                                        site: tuple[SharedTab, Watch]) -> None:
    total = len(catalog.algorithms)
    high = sum(1 for a in catalog.algorithms.values() if a.memory_profile.value == "high")
    assert 0 < high < total
    page = opened(site[0].page, INDEX)
    assert count_text(page) == f"All {total} algorithms"
    filter_by(page, "memory", "high")
    assert count_text(page) == f"{high} of {total} algorithms"
    filter_name(page, "zzz-no-such-name")
    assert count_text(page) == f"0 of {total} algorithms"
    with routed_site(browser, built_site.root, SUB_PATH_URL, viewport=DESKTOP,
                     java_script_enabled=False) as (context, _):
        page = context.new_page()
        page.goto(INDEX)
        assert count_text(page) == f"All {total} algorithms"


def test_filters_and_sort_round_trip_through_the_address(browser, built_site: BuiltSite,
                                                         catalog: Catalog,
                                                         site: tuple[SharedTab, Watch]) -> None:
    tab, watch = site
    page = opened(tab.page, INDEX + "?keep=1")
    filter_by(page, "critic", "no")
    sort_by(page, "year")
    sort_by(page, "year")  # descending
    chosen = filter_name(page, "o")
    assert chosen and len(chosen) < len(catalog.algorithms)
    address, values = page.url, form_values(page)
    assert query(page) == {"keep": ["1"], "critic": ["no"], "sort": ["-year"], "name": ["o"]}
    assert "q" not in query(page)  # ?q= would open Material's search
    assert page.evaluate("window.__tn_violations") == []
    assert not watch.missing and not watch.foreign
    with routed_site(browser, built_site.root, SUB_PATH_URL, viewport=DESKTOP) as (context, _):
        # a fresh tab: no history, no storage
        fresh = opened(SharedTab(context=context).page, address)
        assert visible_rows(fresh) == chosen
        assert form_values(fresh) == values
        assert fresh.locator("th[data-sort='year']").get_attribute("aria-sort") == "descending"
        assert fresh.url == address


def test_filters_survive_a_visit_to_an_algorithm_and_the_back_button(
        site: tuple[SharedTab, Watch]) -> None:
    page = opened(site[0].page, INDEX)
    page.evaluate("window.tnSamePage = true")
    chosen = filter_by(page, "memory", "high")
    text = count_text(page)
    page.locator(f"#{chosen[0]['id']} th a").click()  # Material's instant navigation
    page.wait_for_url("**/algorithms/*/")
    # Material changes the address before it swaps the page in: wait for the index to go, or
    # the wait below could match its table, which the swap then replaces
    page.wait_for_selector(".tn-algorithms", state="detached")
    page.go_back()
    page.wait_for_function("() => location.search.includes('memory=high') && !!document"
                           ".querySelector('.tn-algorithms table[data-tn-ready]')")
    assert page.evaluate("window.tnSamePage === true"), "the back button reloaded the page"
    assert visible_rows(page) == chosen and count_text(page) == text
    assert form_values(page)["memory"] == "high"


def test_values_the_page_does_not_offer_are_ignored(catalog: Catalog,
                                                    site: tuple[SharedTab, Watch]) -> None:
    hostile = "?memory=%3Cimg%20src%3Dx%3E&critic=maybe&sort=-nonsense&year=%22&other=%3Cb%3E"
    tab, watch = site
    page = opened(tab.page, INDEX + hostile)
    assert len(visible_rows(page)) == len(catalog.algorithms)
    assert count_text(page) == f"All {len(catalog.algorithms)} algorithms"
    assert not any(v for k, v in form_values(page).items())
    assert page.locator("th[aria-sort]").count() == 0
    assert query(page) == {"other": ["<b>"]}  # what is not the table's stays as it was
    assert page.evaluate("window.__tn_violations") == []
    assert not watch.dialogs


FRAMES_JS = """() => {
    // From the page's start: the rows shown in each frame until the table is ready, and every
    // write to the count (a live region: each write is read out to screen-reader users).
    window.tnFrames = []; window.tnCountWrites = 0;
    const shown = () => [...document.querySelectorAll('.tn-algorithms tbody tr')]
        .filter(r => r.getClientRects().length).length;
    const watch = () => {
        const count = document.querySelector('.tn-algorithms__count');
        if (!count) return requestAnimationFrame(watch);
        new MutationObserver(m => { window.tnCountWrites += m.length; })
            .observe(count, {childList: true, characterData: true, subtree: true});
        const frame = () => {
            window.tnFrames.push(shown());
            if (!document.querySelector('.tn-algorithms table[data-tn-ready]'))
                requestAnimationFrame(frame);
        };
        frame();
    };
    requestAnimationFrame(watch);
}"""


def test_rows_appear_a_few_a_frame_and_the_count_is_said_once(
        catalog: Catalog, site: tuple[SharedTab, Watch]) -> None:
    """With JavaScript the rows are shown over several frames once the page is idle (no single
    task styles the whole table), every row in the end, and the count, a live region, is not
    rewritten while they appear."""
    page = site[0].context.new_page()
    try:
        page.add_init_script(f"({FRAMES_JS})()")
        opened(page, INDEX)
        frames = page.evaluate("window.tnFrames")
        writes = page.evaluate("window.tnCountWrites")
        rows = len(visible_rows(page))
    finally:
        page.close()
    total = len(catalog.algorithms)
    assert rows == total
    seen = sorted(set(frames))
    assert seen[0] < total and len([n for n in seen if 0 < n < total]) >= 2, frames
    assert writes == 0, "the count was rewritten while the rows appeared"
