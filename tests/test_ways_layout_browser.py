"""Ways to run readable at 390 px and 1280 px (issue 44), in Chromium on the built site.

At 1280 px the comparison tables fit their column without a sideways scroll and every cell has
room (padding, not the 1 px the browser gives a table with no rules); at 390 px (a phone) each
way is a card: its name and its total first, inside the screen, and the page never scrolls
sideways. Free tiers come after every paid way. The Compare page's cards at 390 px keep every
cell labelled and inside the screen. Geometry only: no price is read.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

TABLES = """() => Array.from(document.querySelectorAll('table.tn-ways-table')).map(t => {
  const wrap = t.closest('.tn-table-wrap');
  return {scroll: wrap.scrollWidth, width: wrap.clientWidth,
    rows: Array.from(t.tBodies[0].rows).map(tr => {
      const name = tr.querySelector('th').getBoundingClientRect();
      const total = tr.querySelector('.tn-ways-total');
      const box = total ? total.getBoundingClientRect() : null;
      const cs = getComputedStyle(tr.querySelector('td'));
      return {key: tr.dataset.tnWay, free: tr.classList.contains('tn-ways-free'),
        nameTop: name.top, nameWidth: name.width, nameRight: name.right,
        total: box && {left: box.left, right: box.right, top: box.top, height: box.height,
                       label: getComputedStyle(total, '::before').content},
        pad: parseFloat(cs.paddingLeft), text: total ? total.textContent.trim() : ''};
    })};
})"""


def _open(browser: Any, site: str, path: str, width: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{site}/{path}")
    page.wait_for_load_state("load")
    return page


def test_at_1280_the_tables_fit_and_cells_have_room(browser: Any, site_server: str) -> None:
    page = _open(browser, site_server, "ways/", 1280)
    try:
        tables = page.evaluate(TABLES)
        assert tables
        for t in tables:
            assert t["scroll"] <= t["width"] + 1, "a Ways table scrolls sideways at 1280 px"
            assert all(r["pad"] >= 6 for r in t["rows"]), "cells without padding"
    finally:
        page.close()


def test_at_390_each_way_is_a_card_with_its_total_in_view(browser: Any, site_server: str) -> None:
    page = _open(browser, site_server, "ways/", 390)
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for t in page.evaluate(TABLES):
            for r in t["rows"]:
                assert r["nameWidth"] >= 250, f"{r['key']}: the name is squeezed"
                assert r["nameRight"] <= 390
                box = r["total"]
                assert box is not None and box["height"] > 0, f"{r['key']}: no total shown"
                assert box["left"] >= 0 and box["right"] <= 390, f"{r['key']}: total off-screen"
                assert box["top"] >= r["nameTop"], f"{r['key']}: total above its name"
                assert "Total" in box["label"], f"{r['key']}: the total is not labelled"
    finally:
        page.close()


def test_free_tiers_come_after_every_paid_way(browser: Any, site_server: str) -> None:
    page = _open(browser, site_server, "ways/", 1280)
    try:
        for t in page.evaluate(TABLES):
            rows = t["rows"]
            free = [i for i, r in enumerate(rows) if r["free"]]
            paid = [i for i, r in enumerate(rows) if not r["free"] and r["text"].startswith("$")]
            assert not free or not paid or min(free) > max(paid)
    finally:
        page.close()


def test_the_compare_cards_at_390_stay_on_screen(browser: Any, site_server: str) -> None:
    page = _open(browser, site_server, "compare/", 390)
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        cells = page.evaluate("""() => Array.from(document.querySelectorAll(
          '.tn-compare__table td')).map(td => [td.getBoundingClientRect().right,
          getComputedStyle(td, '::before').content])""")
        assert cells and all(right <= 390 for right, _ in cells)
        assert all(label not in ("none", "normal", '""') for _, label in cells)
    finally:
        page.close()
