"""The "Embed this chart" box as a blogger copies from it, in headless Chromium on the built
site: for one chart, every snippet's text for each theme of the menu, with and without a
transparent background, equals what the Python side builds for that chart (``embed``,
``share``, ``cite``) — the contract the box keeps however it is shipped to the page."""

from __future__ import annotations

import json
from pathlib import Path

import helpers_cite as cite
import helpers_embedbox as box
import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import axe_violations, open_site
from helpers_calc import real_catalog
from helpers_chart_site import ReusedTab, charted_algorithm
from test_charts_browser import TIMEOUT_MS, base_url  # noqa: F401

from tinkernomics.site.charts import embed, share
from tinkernomics.site.charts import spec as charts

pytestmark = [pytest.mark.build, pytest.mark.browser]

SNIPPETS = """() => Object.fromEntries([...document.querySelectorAll('.tn-chart__embed textarea')]
  .map(a => [a.getAttribute('aria-label').split(' for ')[0].split(' of ')[0], a.value]))"""


@pytest.fixture(scope="module")
def tabs(browser) -> ReusedTab:
    tab = ReusedTab(browser)
    yield tab
    tab.close()


def _chart(site: Path, chart_id: str) -> charts.Chart:
    """The chart as the build made it (its date read from its data file)."""
    data = json.loads((site / "embed" / chart_id / "data.json").read_text("utf-8"))
    return charts.build_chart(real_catalog(), chart_id,
                              date=data.get("date") or "")


def _clear(text: str, theme: str, amp: str) -> str:
    return text.replace(f"?theme={theme}", f"?theme={theme}{amp}bg=transparent")


def expected(chart: charts.Chart, theme: str, transparent: bool) -> dict[str, str]:
    """Every snippet of the box for ``theme``, built by the Python side."""
    base = SUB_PATH_URL
    size = share.png_size(chart, SUB_PATH_URL)
    out = {"Embed code": embed.embed_snippet(chart, base, theme),
           "Embed code without inline style": box.strict_snippet(chart, base, theme),
           "Embed address": embed.embed_src(chart, base, theme),
           "Image HTML": box.html_snippet(chart, base, size, theme),
           "Image Markdown": box.markdown_snippet(chart, base, theme),
           "Caption": box.caption_text(chart, base),
           "Citation": cite.cite_text(chart, base),
           "BibTeX": cite.bibtex(chart, base)}
    if transparent:
        for key in ("Embed code", "Embed code without inline style"):
            out[key] = _clear(out[key], theme, "&amp;")
        out["Embed address"] = _clear(out["Embed address"], theme, "&")
    return out


def test_every_snippet_for_every_theme_and_background(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite) -> None:  # noqa: F811
    algorithm = charted_algorithm(built_site.root)
    chart = _chart(built_site.root, charts.ALGORITHM_PREFIX + algorithm)
    with tabs.fresh({"width": 1280, "height": 900}) as tab:
        tab.goto(base_url + f"algorithms/{algorithm}/")
        tab.locator(".tn-chart--armed").first.wait_for(timeout=TIMEOUT_MS)
        tab.locator(".tn-chart__embed summary").first.click()
        for transparent in (False, True):
            tab.locator(".tn-chart__bg").first.set_checked(transparent)
            for theme in ("light", "dark", "auto"):
                tab.locator(".tn-chart__theme").first.select_option(theme)
                seen = tab.evaluate(SNIPPETS)
                assert seen == expected(chart, theme, transparent), (theme, transparent)


def test_the_open_box_is_axe_clean_and_works_without_script(
        browser, base_url: str, built_site: BuiltSite) -> None:  # noqa: F811
    """Open, with the hosts charts.js writes, the box has no axe violation (the page none
    serious); a reader without
    JavaScript finds the embed address as a link in it."""
    algorithm = charted_algorithm(built_site.root)
    page, foreign = open_site(browser, built_site.root, SUB_PATH_URL, axe=True)
    try:
        page.goto(SUB_PATH_URL + f"algorithms/{algorithm}/", wait_until="load")
        page.locator(".tn-chart__embed summary").first.click()
        page.locator(".tn-chart__embed textarea").first.wait_for(timeout=TIMEOUT_MS)
        found = [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
                 for v in axe_violations(page)
                 if v["impact"] in ("serious", "critical")  # as test_a11y_axe; or in the box:
                 or any("tn-chart" in str(n["target"]) for n in v["nodes"])]
    finally:
        page.context.close()
    assert not found and not foreign
    tab = ReusedTab(browser, java_script_enabled=False)
    try:
        with tab.fresh({"width": 1280, "height": 900}) as plain:
            plain.goto(base_url + f"algorithms/{algorithm}/")
            plain.locator(".tn-chart__embed summary").first.click()
            link = plain.locator(".tn-chart__embed-plain a").first
            assert link.is_visible()
            href = link.get_attribute("href") or ""
            assert href.endswith(f"embed/{charts.ALGORITHM_PREFIX}{algorithm}/?theme=auto")
            assert plain.locator(".tn-chart__embed textarea").count() == 0
    finally:
        tab.close()
