"""axe-core (npm, tests/package.json) in Debian's Chromium against the built site, light and
dark: no serious or critical violation on any page type, and the two names Material leaves
out (search dialog, progress bar) are there."""

from __future__ import annotations

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import BLOCKING_IMPACTS, PAGE_TYPES, SCHEMES, axe_violations, open_site

pytestmark = [pytest.mark.build, pytest.mark.browser]

PAGES = [*PAGE_TYPES.values(), "algorithms/dapo/", "hardware/", "references/",
         "further-reading/", "contributing/", "contributing/fields/"]


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_no_serious_or_critical_axe_violation(browser, built_site: BuiltSite,
                                              scheme: str) -> None:
    page, foreign = open_site(browser, built_site.root, SUB_PATH_URL, scheme=scheme)
    found, palettes = [], set()
    for path in PAGES:
        page.goto(SUB_PATH_URL + path, wait_until="load")
        palettes.add(page.evaluate("document.body.getAttribute('data-md-color-scheme')"))
        for v in axe_violations(page):
            if v["impact"] in BLOCKING_IMPACTS:
                found.append((path or "home", v["id"], v["impact"],
                              [n["target"] for n in v["nodes"][:3]],
                              v["nodes"][0]["failureSummary"][:300]))
    page.context.close()
    assert palettes <= {SCHEMES[scheme], None}, palettes  # None: the embed page has no palette
    assert SCHEMES[scheme] in palettes
    assert not foreign, foreign[:3]
    assert not found, "\n".join(map(str, found))


def test_material_dialog_and_progress_bar_are_named(built_site: BuiltSite) -> None:
    html = (built_site.root / "index.html").read_text(encoding="utf-8")
    assert '<div class="md-search" data-md-component="search" role="dialog" ' \
           'aria-label="Search">' in html
    assert 'role="progressbar" aria-label="Loading the page"' in html
