"""Home leads readers to the calculator (issue 31): the card says what the calculator answers,
with counts from the catalog it was built from, and links the calculator and the compare view.
View model and template on the fixture catalog; the built site in Chromium: the card's links
open the calculator and the compare view, on a 390 px phone and on a desktop (one page at the
site's own URL, test_calc_browser.SharedTab, reset and sized for each)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_security import Watch, routed_site
from test_calc_browser import SharedTab

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived.derive import conversion_factor
from tinkernomics.site.calculator import pagedata
from tinkernomics.site.compare import view as compare_view
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages.views import SiteIndex, build_index, home_cards
from tinkernomics.site.pages.views import references as home

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def index(valid_catalog_dir: Path) -> SiteIndex:
    catalog = load_valid_catalog(valid_catalog_dir)
    return build_index(catalog, conversion_factor(catalog))


def test_the_pages_home_links_are_the_pages_the_features_write() -> None:
    assert home.CALCULATOR_PAGE == pagedata.CALCULATOR
    assert home.COMPARE_PAGE == compare_view.PAGE


def test_the_first_card_is_the_calculator_with_catalog_counts(index: SiteIndex) -> None:
    card = home_cards(index)[0]
    assert card.lead and card.href == "calculator/"
    assert "calculator" in card.title.lower()
    catalog = index.catalog
    assert f"{len(catalog.algorithms)} algorithms" in card.text
    assert f"{len(catalog.models)} models" in card.text
    assert "cost" in card.text and "Tinker bill" in card.text
    assert [link.href for link in card.more] == ["calculator/", "compare/"]
    assert sum(c.lead for c in home_cards(index)) == 1


def test_the_home_template_draws_the_card_and_its_links(index: SiteIndex) -> None:
    html = pages.render("home.html", cards=home_cards(index))
    lead = html.split('class="tn-cards__lead"')[1].split("</li>")[0]
    assert 'href="calculator/"' in lead and 'href="compare/"' in lead
    assert 'class="md-button md-button--primary" href="calculator/"' in lead


@pytest.fixture(scope="module")
def shared(browser: Any, built_site: BuiltSite) -> Iterator[tuple[SharedTab, Watch]]:
    with routed_site(browser, built_site.root, SUB_PATH_URL, viewport=PHONE) as (context, watch):
        yield SharedTab(context=context), watch


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_home_links_the_calculator_and_the_compare_view(shared: tuple[SharedTab, Watch],
                                                        viewport: dict[str, int]) -> None:
    tab, watch = shared
    page = tab.reset(**viewport)
    watch.missing.clear()
    watch.foreign.clear()
    page.goto(SUB_PATH_URL)
    card = page.locator(".tn-cards__lead")
    assert card.is_visible()
    box = card.bounding_box()
    assert box is not None and box["x"] + box["width"] <= viewport["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    card.get_by_role("link", name="Compare algorithms side by side").click()
    page.wait_for_url(SUB_PATH_URL + "compare/")
    page.go_back()
    page.locator(".tn-cards__lead").get_by_role("link", name="Open the calculator").click()
    page.wait_for_url(SUB_PATH_URL + "calculator/")
    page.wait_for_selector("[data-tn-calc]", state="attached")
    assert not watch.missing and not watch.foreign
