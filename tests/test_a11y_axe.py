"""axe-core (npm, tests/package.json) in Debian's Chromium against the built site, light and
dark: no serious or critical violation on any page type, and the two names Material leaves
out (search dialog, progress bar) are there. The site is served from a loopback port under the
sub-path it is built for (the browser's cache works there, unlike in a routed context), and one
tab per scheme serves every test. The sweep's tabs give Material's search worker an empty index
(``NO_SEARCH_INDEX``: its lunr build is work in a worker, off the page axe reads); the search
dialog's check opens its own tab with the real index, whose results it reads."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import (
    BLOCKING_IMPACTS,
    PAGE_TYPES,
    SCHEMES,
    axe_results,
    axe_violations,
    open_served,
    served_site,
    start_axe,
)
from helpers_browser import NO_SEARCH_INDEX, wait_scripts_ready
from helpers_site import load_theme

pytestmark = [pytest.mark.build, pytest.mark.browser, pytest.mark.sweep]

COLOUR_RULES = ["color-contrast", "link-in-text-block"]
"""The axe rules a palette can change (it changes colours only): the second scheme runs these,
the first every WCAG 2.x A/AA rule and best practice."""
PAGES = [*PAGE_TYPES.values(), "algorithms/dapo/", "hardware/", "references/",
         "further-reading/", "contributing/", "contributing/fields/"]


@dataclass
class Checked:
    """What axe-core found on every page in one colour scheme."""

    found: list[tuple[Any, ...]] = field(default_factory=list)
    palettes: set[str | None] = field(default_factory=set)
    foreign: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def tabs(browser: Any, built_site: BuiltSite) -> Iterator[dict[str, tuple[Any, list[str]]]]:
    """One tab per colour scheme (its own context: the system scheme is the context's), with
    axe-core in every document, on the built site served from a loopback port under its
    sub-path; each tab's list collects requests outside the site. The sweep navigates these
    tabs (their search worker gets an empty index); the search dialog's test opens its own."""
    with served_site(built_site.root, SUB_PATH_URL) as base:
        opened = {scheme: open_served(browser, base, scheme=scheme, axe=True,
                                      init_script=NO_SEARCH_INDEX)
                  for scheme in sorted(SCHEMES)}
        try:
            yield {scheme: (page, foreign, base) for scheme, (page, foreign) in opened.items()}
        finally:
            for page, _ in opened.values():
                page.context.close()


@pytest.fixture(scope="module")
def checked(tabs: dict[str, tuple[Any, list[str], str]]) -> dict[str, Checked]:
    """Every page in both schemes, the two side by side (one context each, so each scheme's
    page loads and axe runs in its own renderer while the other's does too: two cores); every
    rule in the first scheme, the colour rules in the other."""
    results = {scheme: Checked() for scheme in tabs}
    first = "light"  # the default palette
    for path in PAGES:
        for page, _, base in tabs.values():
            page.goto(base + path, wait_until="commit")
        for scheme, (page, _, _) in tabs.items():
            page.wait_for_load_state("load")
            wait_scripts_ready(page)  # the index's rows appear after the load event
            results[scheme].palettes.add(
                page.evaluate("document.body.getAttribute('data-md-color-scheme')"))
            start_axe(page, rules=None if scheme == first else COLOUR_RULES)
        for scheme, (page, _, _) in tabs.items():
            results[scheme].found += [
                (path or "home", v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]],
                 v["nodes"][0]["failureSummary"][:300])
                for v in axe_results(page) if v["impact"] in BLOCKING_IMPACTS]
    for scheme, (_, foreign, _) in tabs.items():
        results[scheme].foreign = list(foreign)
    return results


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_no_serious_or_critical_axe_violation(checked: dict[str, Checked], scheme: str) -> None:
    result = checked[scheme]
    assert result.palettes <= {SCHEMES[scheme], None}, result.palettes  # None: embed page
    assert SCHEMES[scheme] in result.palettes
    assert not result.foreign, result.foreign[:3]
    assert not result.found, "\n".join(map(str, result.found))


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_open_search_with_results_has_no_serious_violation(
        browser: Any, tabs: dict[str, tuple[Any, list[str], str]], scheme: str) -> None:
    """The search dialog, opened from the keyboard ("/"), showing results with marked matches
    (a fresh tab in the scheme, on the real search index)."""
    _, _, base = tabs[scheme]
    page, _ = open_served(browser, base, scheme=scheme, axe=True)
    try:
        page.goto(base + "algorithms/", wait_until="load")
        page.keyboard.press("/")
        page.keyboard.type("grpo")
        page.wait_for_selector(".md-search-result__item mark", timeout=15_000)
        # Colour contrast is measured on final colours: wait out the results' fade-in (on a
        # busy machine axe could otherwise read a half-faded .md-search-result__meta as low
        # contrast). Time-based animations only: scroll cues run as long as they can.
        page.wait_for_function(
            "() => document.getAnimations().filter(a => a.timeline instanceof DocumentTimeline)"
            ".every(a => a.playState !== 'running')", timeout=15_000)
        found = [(v["id"], [n["target"] for n in v["nodes"][:3]])
                 for v in axe_violations(page) if v["impact"] in BLOCKING_IMPACTS]
    finally:
        page.context.close()
    assert not found


def test_material_dialog_and_progress_bar_are_named(built_site: BuiltSite) -> None:
    html = (built_site.root / "index.html").read_text(encoding="utf-8")
    dialog = load_theme().SEARCH_DIALOG  # the markup the header labels (theme adapter, rule 7)
    assert f'<div class="md-search" data-md-component="search" {dialog[:-1]} ' \
           'aria-label="Search">' in html
    assert 'role="progressbar" aria-label="Loading the page"' in html
