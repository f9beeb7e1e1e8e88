"""The calculator's comparison of every way to run and its recipe export, in Chromium (issue 33).

The page is the real site built once per session; what it shows is checked against Python's
own computation of the same run (``derived.ways.compare`` at the site's data date,
``derived.recipe.export``), never against a typed price. Pinning lives in the link (``w``);
the recipe follows the form and copies to the clipboard; the Ways to run page's recipe blocks
have copy buttons too. The tests share one page (``tab``, test_calc_browser.SharedTab), reset and
navigated to each test's link; a link opened in a fresh tab gets a fresh context.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
from test_calc_browser import SharedTab
from test_recipe_export import SOURCES, config_fields

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import recipe, ways
from tinkernomics.derived.calculator import inputs
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site.api.files import data_last_changed
from tinkernomics.site.calculator.formatting import fmt_value
from tinkernomics.site.calculator.presets import preset_queries

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parent.parent
CLIPBOARD = {"permissions": ["clipboard-read", "clipboard-write"]}


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[SharedTab]:
    """The module's one page (the clipboard open to it, for the copy buttons)."""
    shared = SharedTab(browser, **CLIPBOARD)
    yield shared
    shared.close()


ROWS = """() => Array.from(document.querySelectorAll('#calc-ways ~ .tn-scroll tr[data-row]'))
  .map(tr => [tr.dataset.row, Array.from(tr.cells).map(c => c.textContent.trim())])"""
CODE = """() => Array.from(document.querySelectorAll('.tn-calc__code code'))
  .map(c => c.textContent)"""


def python_rows(catalog: Catalog, query: dict[str, str]) -> list[ways.Row]:
    """The rows ``compare`` lists for a link, at the site's data date (as the page judges)."""
    today = data_last_changed(REPO / "catalog").date()
    pinned = inputs.choose(catalog, query).ways
    return ways.compare(catalog, ways.run_totals(catalog, query), today, pinned=pinned or None)


def assert_rows_match(shown: list[list[Any]], expected: list[ways.Row]) -> None:
    """Same rows, cheapest first, each total as the page formats it; not-offered rows give the
    service's reason and stale rows say so."""
    assert [key for key, _ in shown] == [r.key for r in expected]
    for (_, cells), row in zip(shown, expected, strict=True):
        _, total, _, _, multiplies, date = cells
        assert total == (fmt_value("usd", row.total) if row.total is not None else "–"), row.key
        if row.not_offered:
            assert "not offered" in multiplies and row.not_offered in multiplies, row.key
        assert ("stale" in date) == bool(row.stale), row.key


@pytest.mark.parametrize("preset", [0, 2], ids=["default run", "distillation preset"])
def test_every_way_is_priced_for_the_run_on_screen(tab: SharedTab, site_server: str,
                                                    catalog: Catalog, preset: int) -> None:
    query = preset_queries(catalog)[preset]
    page = tab.open(site_server + "calculator/" + ("?" + urlencode(query) if preset else ""))
    shown = page.evaluate(ROWS)
    assert tab.errors == []
    expected = python_rows(catalog, query)
    assert len(expected) >= 5 and any(r.way == ways.TINKER for r in expected)
    assert_rows_match(shown, expected)
    if preset:  # the teacher: a managed service that runs none says so
        assert any(r.not_offered for r in expected)


def test_a_not_offered_row_follows_the_model(tab: SharedTab, site_server: str,
                                             catalog: Catalog) -> None:
    """Changing the model in the form re-prices every row, and a service whose models list
    lacks it says 'not offered' with its own words."""
    found = catalog.of("way")
    limited = next(w for w in found.values() if w.models is not None)
    other = next(m for m in catalog.models if m not in (limited.models or ()))
    page = tab.open(site_server + "calculator/")
    page.select_option('select[name="m"]', other)
    page.wait_for_function(f"() => location.search.includes('m={other}')")
    page.wait_for_selector("[data-tn-calc][data-tn-ready]")
    shown = page.evaluate(ROWS)
    search = page.evaluate("location.search")
    assert tab.errors == []
    query = dict(parse_qsl(search.lstrip("?")))
    expected = python_rows(catalog, query)
    assert any(r.way == limited.id and r.not_offered for r in expected)
    assert_rows_match(shown, expected)


def test_a_pinned_subset_lives_in_the_link(browser: Any, tab: SharedTab, site_server: str,
                                           catalog: Catalog) -> None:
    """Pin two lists (one superseded) in the form: the link carries exactly them; a fresh page
    at that link shows the same rows and boxes; an unknown id is dropped from the link."""
    found = catalog.of("way")
    newest = {w.id for w in ways.newest_by_series(found.values()).values()}
    old = next(wid for wid in found if wid not in newest)
    pick = sorted({old, next(iter(newest))})
    page = tab.open(site_server + "calculator/")
    page.eval_on_selector('[data-field="w"]', "box => { box.closest('details').open = true; }")
    page.eval_on_selector_all('input[name="w"]',
                              "boxes => boxes.forEach(b => { b.checked = false; })")
    for wid in pick:
        page.check(f'input[name="w"][value="{wid}"]')
    page.wait_for_function(f"() => location.search.includes('w={','.join(pick)}')")
    link = page.evaluate("location.href")
    first = page.evaluate(ROWS)
    errors = tab.errors
    fresh_tab = SharedTab(browser)  # a fresh tab: nothing of the first one but the link
    try:
        fresh = fresh_tab.open(link + ",nope")
        again = fresh.evaluate(ROWS)
        ticked = fresh.eval_on_selector_all('input[name="w"]:checked', "bs => bs.map(b => b.value)")
        kept = fresh.evaluate("location.search")
        errors += fresh_tab.errors
    finally:
        fresh_tab.close()
    assert errors == []
    assert {r.split(":")[0] for r, _ in first} - {ways.TINKER} == set(pick)
    assert again == first and ticked == pick
    assert dict(parse_qsl(kept.lstrip("?")))["w"] == ",".join(pick)  # 'nope' left out
    query = dict(parse_qsl(kept.lstrip("?")))
    assert_rows_match(again, python_rows(catalog, query))
    assert any("stale" in cells[5] for key, cells in again if key.startswith(old))


def python_recipe(catalog: Catalog, search: str) -> recipe.RecipeExport:
    out = recipe.export(catalog, estimate(catalog, dict(parse_qsl(search.lstrip("?")))))
    assert out is not None
    return out


@pytest.mark.parametrize("algorithm", ["grpo", "dapo", "opd"])
def test_the_recipe_is_pythons_and_names_only_cookbook_arguments(
        tab: SharedTab, site_server: str, catalog: Catalog, algorithm: str) -> None:
    """The page's command and config are ``recipe.export``'s for the link, every argument is a
    field of the recipe's config class at the pinned commit, and G changes it."""
    page = tab.open(site_server + f"calculator/?a={algorithm}&G=4")
    command, python = page.evaluate(CODE)
    expected = python_recipe(catalog, page.evaluate("location.search"))
    page.fill('input[name="G"]', "12")
    page.wait_for_function("() => location.search.includes('G=12')")
    changed, _ = page.evaluate(CODE)
    after = python_recipe(catalog, page.evaluate("location.search"))
    assert tab.errors == []
    assert (command, python) == (expected.command(), expected.python())
    assert changed == after.command() != command and "group_size=12" in changed
    pin, rec = recipe.pin(catalog), recipe.recipe_for(catalog, algorithm)
    assert pin is not None and rec is not None
    assert pin.commit in page_text_of(site_server, algorithm)
    fields = config_fields(SOURCES / pin.repository / pin.commit / rec.path, rec.config_class)
    names = {arg.split("=", 1)[0] for arg in command.splitlines()[0].split()[3:]}
    assert names and names <= fields, names - fields


@functools.cache
def page_text_of(site: str, algorithm: str) -> str:
    from urllib.request import urlopen

    with urlopen(site + f"calculator/algorithms/{algorithm}.json") as response:
        return str(response.read().decode("utf-8"))


def test_the_recipe_follows_the_algorithm_and_copies(tab: SharedTab, site_server: str,
                                                     catalog: Catalog) -> None:
    """Switching the algorithm changes the recipe (DAPO's clip thresholds appear); the copy
    button puts the command on the clipboard."""
    page = tab.open(site_server + "calculator/?a=grpo")
    page.evaluate("navigator.clipboard.writeText('')")  # nothing copied by an earlier test
    grpo, _ = page.evaluate(CODE)
    page.select_option('select[name="a"]', "dapo")
    page.wait_for_function("() => location.search.includes('a=dapo')")
    page.wait_for_selector("[data-tn-calc][data-tn-ready]")
    page.wait_for_function("() => document.querySelector('.tn-calc__code code')"
                           ".textContent.includes('loss_fn=ppo')")
    dapo, _ = page.evaluate(CODE)
    page.click(".tn-calc__copy-code")
    copied = page.evaluate("navigator.clipboard.readText()")
    label = page.text_content(".tn-calc__copy-code")
    assert tab.errors == []
    assert grpo != dapo and "loss_fn_config" in dapo and "loss_fn_config" not in grpo
    assert copied == dapo and label == "Copied"


def test_the_ways_page_recipes_have_copy_buttons(tab: SharedTab, site_server: str) -> None:
    """Every recipe block of the build-time Ways to run page has a copy button that copies it."""
    page = tab.reset()
    page.goto(site_server + "ways/")
    page.evaluate("navigator.clipboard.writeText('')")  # nothing copied by an earlier test
    page.wait_for_selector(".tn-recipe pre .md-code__button")
    blocks = page.locator(".tn-recipe pre")
    count = blocks.count()
    buttons = page.locator(".tn-recipe pre .md-code__button").count()
    blocks.first.hover()
    page.locator(".tn-recipe pre .md-code__button").first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    text = blocks.first.locator("code").text_content()
    assert count >= 2 and buttons == count
    assert copied.strip() == (text or "").strip() and copied.startswith("python -m ")
