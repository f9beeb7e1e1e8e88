"""Scroll cues on wide tables (issue 31), in the built site in Chromium. On a 390 px phone every
table box wider than the screen (the algorithms index, hardware, Tinker prices, the calculator's
cost tables) fades at the edge where columns hide and says "scroll →" until the reader reaches
the end (drawn by the box's wrapper, .tn-scroll, from the box's scroll position); the box that
scrolls is the named, focusable one (Material's own table wrapper no longer scrolls inside it),
and nothing else widens the page. On a desktop a table that fits shows no
cue and takes no room for one. Pages are chosen by what they hold, not by today's numbers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import open_served, reset_storage, served_site
from helpers_browser import NO_SEARCH_INDEX, wait_scripts_ready
from playwright.sync_api import Error as PlaywrightError

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
PAGES = ("algorithms/", "hardware/", "tinker/", "calculator/")
BOXES = ".tn-table-wrap, .tn-calc__scroll"

CUES_JS = """async (sel) => {
    const frames = () => new Promise(r => requestAnimationFrame(() =>
        requestAnimationFrame(() => requestAnimationFrame(r))));
    const out = [];
    for (const b of [...document.querySelectorAll(sel)].filter(b => b.checkVisibility())) {
        // on screen, as a reader sees it (a box off screen may skip its rows' layout:
        // content-visibility), then a frame for its scroll-driven animations
        b.scrollIntoView({block: 'nearest'});
        await frames();
        // the cue is drawn by the box's wrapper (.tn-scroll), from the box's scroll position
        const cue = b.parentElement.matches('.tn-scroll') ? b.parentElement : b;
        const hint = getComputedStyle(cue, '::before'), veil = getComputedStyle(cue, '::after');
        const right = veil.backgroundSize.split(',').pop().trim();
        out.push({
            label: b.getAttribute('aria-label') || b.className,
            wide: b.scrollWidth > b.clientWidth + 1,
            focusable: b.getAttribute('tabindex') === '0' && !!b.getAttribute('aria-label'),
            fade: veil.backgroundImage.includes('gradient') && !right.startsWith('0px'),
            hint: hint.content.includes('scroll') && hint.opacity === '1'
                && parseFloat(hint.height) > 0,
            room: parseFloat(hint.height) || 0,
            inner: [...b.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 1
                && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)).length,
        });
    }
    return out;
}"""
"""Every scroll box shown on the page, with what its cue shows."""

PAGE_WIDTH_JS = """() => ({
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    wide: [...document.querySelectorAll('article *')].filter(e =>
        e.getBoundingClientRect().right > document.documentElement.clientWidth + 1
        && !e.closest('.tn-table-wrap, .tn-calc__scroll, .md-typeset__scrollwrap,'
                      + ' .tn-formula__math, .tn-math, pre, .tn-chart__table-wrap'))
        .slice(0, 3).map(e => e.tagName + '.' + e.className),
})"""


def boxes(page: Any) -> list[dict[str, Any]]:
    # A scroll-driven animation applies on the next frame: wait two frames, not a fixed time.
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => "
                  "requestAnimationFrame(() => done())))")
    return page.evaluate(CUES_JS, BOXES)


@dataclass
class Tab:
    page: Any
    base: str


@pytest.fixture(scope="module")
def tab(browser, built_site: BuiltSite) -> Iterator[Tab]:
    """One tab for every test of this module, on the built site served from a loopback port
    under its sub-path (Material's search worker gets an empty index: nothing here searches):
    :func:`open_page` loads a page afresh in it."""
    with served_site(built_site.root, SUB_PATH_URL) as base:
        page, _ = open_served(browser, base, size=(PHONE["width"], PHONE["height"]),
                              init_script=NO_SEARCH_INDEX)
        yield Tab(page, base)
        page.context.close()


def open_page(tab: Tab, path: str, viewport: dict[str, int] = PHONE) -> Any:
    """``path`` loaded in the module's tab at ``viewport``, its storage emptied first (the page
    starts as in a fresh tab)."""
    page = tab.page
    reset_storage(page)
    if page.viewport_size != viewport:
        page.set_viewport_size(viewport)
    page.goto(tab.base + path)
    page.wait_for_load_state("load")
    wait_scripts_ready(page)  # the calculator's tables; the index's rows (after the load event)
    return page


KEYBOARD_PAGES = ("algorithms/", "hardware/", "tinker/")
"""Pages whose wide table box is scrolled from the keyboard."""
FOCUS_WIDE_JS = """() => [...document.querySelectorAll('.tn-table-wrap')]
    .find(b => b.scrollWidth > b.clientWidth + 1).focus()"""
WHOLE_TABLE_JS = """() => { const b = document.activeElement;
    return b.scrollWidth + 1 >= b.querySelector('table').getBoundingClientRect().width; }"""
"""The focused box scrolls the whole table (not a few pixels around an inner scroller)."""


@dataclass
class Seen:
    """One fresh phone load of a page, read as the tests read it: its scroll boxes, read twice
    (the second read after every box has been on screen), the page's width, and, on
    ``KEYBOARD_PAGES``, what the keyboard did with the first wide box (read last: it scrolls
    that box): the error that stopped it, or whether the focused box spans the whole table."""

    boxes: list[dict[str, Any]]
    boxes_again: list[dict[str, Any]]
    width: dict[str, Any]
    keyboard_error: str | None = None
    whole_table: bool | None = None


class Phone:
    """Each page at phone size, loaded once (in the module's tab) for every test that reads
    it as loaded, the first time one asks (:class:`Seen`)."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.seen: dict[str, Seen] = {}

    def __call__(self, path: str) -> Seen:
        if path not in self.seen:
            page = open_page(self.tab, path)
            seen = Seen(boxes(page), boxes(page), page.evaluate(PAGE_WIDTH_JS))
            if path in KEYBOARD_PAGES:
                try:
                    page.evaluate(FOCUS_WIDE_JS)
                    page.keyboard.press("ArrowRight")
                    page.wait_for_function("() => document.activeElement.scrollLeft > 0")
                    seen.whole_table = page.evaluate(WHOLE_TABLE_JS)
                except PlaywrightError as error:
                    seen.keyboard_error = str(error)
            self.seen[path] = seen
        return self.seen[path]


@pytest.fixture(scope="module")
def phone(tab: Tab) -> Phone:
    return Phone(tab)


SWEPT = ("tinker/",)
"""The longest page to read at phone size (its many price tables), `make test-sweep`'s (.ci/run
runs it too): the other pages hold the same table boxes."""


def kept(paths: tuple[str, ...]) -> list[Any]:
    """``paths`` as parameters, ``SWEPT`` ones in the sweep group."""
    return [pytest.param(p, marks=pytest.mark.sweep) if p in SWEPT else p for p in paths]


@pytest.mark.parametrize("path", kept(PAGES))
def test_wide_tables_show_a_cue_at_390_px(phone: Phone, path: str) -> None:
    seen = phone(path)
    wide = [b for b in seen.boxes if b["wide"]]
    assert wide, f"{path}: no table wider than a phone: pick another page"
    assert [b["label"] for b in wide if not (b["fade"] and b["hint"])] == []
    assert [b["label"] for b in seen.boxes_again if b["inner"]] == [], "a scroller inside the box"
    state = seen.width
    assert state["overflow"] <= 0 and state["wide"] == [], state


@pytest.mark.parametrize("path", kept(KEYBOARD_PAGES))
def test_the_box_that_scrolls_is_keyboard_reachable_and_named(phone: Phone, path: str) -> None:
    """Focused, the first wide box scrolls on ArrowRight, and it scrolls the whole table."""
    seen = phone(path)
    wide = [b for b in seen.boxes if b["wide"]]
    assert wide and all(b["focusable"] for b in wide), wide
    assert seen.keyboard_error is None, seen.keyboard_error
    assert seen.whole_table


def test_the_calculators_cost_tables_are_keyboard_reachable(phone: Phone) -> None:
    wide = [b for b in phone("calculator/").boxes if b["wide"]]
    assert wide and all(b["focusable"] for b in wide), wide


def test_the_hint_goes_at_the_end(tab: Tab) -> None:
    page = open_page(tab, "algorithms/")
    box = page.locator(".tn-algorithms .tn-table-wrap")
    box.scroll_into_view_if_needed()  # its rows are laid out once it nears the screen
    page.wait_for_function("""() => { const b = document.querySelector(
        '.tn-algorithms .tn-table-wrap'); return b.scrollWidth > b.clientWidth + 1; }""")
    box.evaluate("(b) => { b.scrollLeft = b.scrollWidth; }")
    [after] = [b for b in boxes(page) if b["label"] == box.get_attribute("aria-label")]
    assert not after["hint"] and not after["fade"]
    assert after["room"] > 0, "the hint's line must stay: the table would jump while scrolling"


def test_a_table_that_fits_shows_no_cue(tab: Tab) -> None:
    page = open_page(tab, "hardware/", DESKTOP)
    fits = [b for b in boxes(page) if not b["wide"]]
    assert fits, "no table fits a desktop on hardware/"
    assert all(not b["hint"] and not b["fade"] and b["room"] == 0 for b in fits), fits
