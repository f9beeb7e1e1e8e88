"""Scroll cues on wide tables (issue 31), in the built site in Chromium. On a 390 px phone every
table box wider than the screen (the algorithms index, hardware, Tinker prices, the calculator's
cost tables) fades at the edge where columns hide and says "scroll →" until the reader reaches
the end; the box that scrolls is the named, focusable one (Material's own table wrapper no longer
scrolls inside it), and nothing else widens the page. On a desktop a table that fits shows no
cue and takes no room for one. Pages are chosen by what they hold, not by today's numbers."""

from __future__ import annotations

from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_security import routed_site

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
        const hint = getComputedStyle(b, '::before'), veil = getComputedStyle(b, '::after');
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


def open_page(context: Any, path: str) -> Any:
    page = context.new_page()
    page.goto(SUB_PATH_URL + path)
    page.wait_for_load_state("load")
    if path == "calculator/":
        page.wait_for_selector("[data-tn-calc][data-tn-ready]")
    return page


@pytest.fixture(scope="module")
def phone(browser, built_site: BuiltSite) -> Any:
    with routed_site(browser, built_site.root, SUB_PATH_URL, viewport=PHONE) as (context, _):
        yield context


@pytest.mark.parametrize("path", PAGES)
def test_wide_tables_show_a_cue_at_390_px(phone: Any, path: str) -> None:
    page = open_page(phone, path)
    wide = [b for b in boxes(page) if b["wide"]]
    assert wide, f"{path}: no table wider than a phone: pick another page"
    assert [b["label"] for b in wide if not (b["fade"] and b["hint"])] == []
    assert [b["label"] for b in boxes(page) if b["inner"]] == [], "a scroller inside the box"
    state = page.evaluate(PAGE_WIDTH_JS)
    assert state["overflow"] <= 0 and state["wide"] == [], state
    page.close()


@pytest.mark.parametrize("path", ("algorithms/", "hardware/", "tinker/"))
def test_the_box_that_scrolls_is_keyboard_reachable_and_named(phone: Any, path: str) -> None:
    page = open_page(phone, path)
    wide = [b for b in boxes(page) if b["wide"]]
    assert wide and all(b["focusable"] for b in wide), wide
    page.evaluate("""() => [...document.querySelectorAll('.tn-table-wrap')]
        .find(b => b.scrollWidth > b.clientWidth + 1).focus()""")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.activeElement.scrollLeft > 0")
    # the focused box scrolls the whole table (not a few pixels around an inner scroller)
    assert page.evaluate("""() => { const b = document.activeElement;
        return b.scrollWidth + 1 >= b.querySelector('table').getBoundingClientRect().width; }""")
    page.close()


def test_the_calculators_cost_tables_are_keyboard_reachable(phone: Any) -> None:
    page = open_page(phone, "calculator/")
    wide = [b for b in boxes(page) if b["wide"]]
    page.close()
    assert wide and all(b["focusable"] for b in wide), wide


def test_the_hint_goes_at_the_end(phone: Any) -> None:
    page = open_page(phone, "algorithms/")
    box = page.locator(".tn-algorithms .tn-table-wrap")
    box.scroll_into_view_if_needed()  # its rows are laid out once it nears the screen
    page.wait_for_function("""() => { const b = document.querySelector(
        '.tn-algorithms .tn-table-wrap'); return b.scrollWidth > b.clientWidth + 1; }""")
    box.evaluate("(b) => { b.scrollLeft = b.scrollWidth; }")
    [after] = [b for b in boxes(page) if b["label"] == box.get_attribute("aria-label")]
    assert not after["hint"] and not after["fade"]
    assert after["room"] > 0, "the hint's line must stay: the table would jump while scrolling"
    page.close()


def test_a_table_that_fits_shows_no_cue(browser, built_site: BuiltSite) -> None:
    with routed_site(browser, built_site.root, SUB_PATH_URL, viewport=DESKTOP) as (context, _):
        page = open_page(context, "hardware/")
        fits = [b for b in boxes(page) if not b["wide"]]
        assert fits, "no table fits a desktop on hardware/"
        assert all(not b["hint"] and not b["fade"] and b["room"] == 0 for b in fits), fits
