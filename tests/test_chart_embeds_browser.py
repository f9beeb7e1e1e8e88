"""Embeds as a blogger's readers get them, in headless Chromium on the built site: the snippet
in a host page on another port whose CSP blocks every script shows the whole chart at 360, 768
and 1200 px (nothing clipped, no blank gap over 40 px); with JavaScript off in the frame the
dark snippet is dark; a frame sized by resize.js has no empty scroll-bar track; activating the
chart from the keyboard keeps the focus on the chart, which has an accessible name."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_chart_site import ReusedTab, chart_site_for, charted_algorithm
from helpers_charts import STATIC_DRAWING_JS
from test_charts_browser import CHART, TIMEOUT_MS, _Quiet, _serve, base_url  # noqa: F401

from tinkernomics.site.charts import spec as charts

pytestmark = [pytest.mark.build, pytest.mark.browser]

MAX_GAP_PX = 40
DARK_BG = "rgb(30, 32, 41)"  # charts.THEMES["dark"]["paper_bgcolor"] #1e2029
LIGHT_BG = "rgb(255, 255, 255)"

MEASURE = """() => {
  const frame = document.querySelector('.tn-chart__frame').getBoundingClientRect();
  const {vb, scale} = STATIC;
  const credit = document.querySelector('.tn-embed__credit').getBoundingClientRect();
  return {view: window.innerHeight, viewWidth: window.innerWidth,
          drawnWidth: vb.width * scale, drawnHeight: vb.height * scale,
          frameWidth: frame.width, frameBottom: frame.bottom, creditBottom: credit.bottom,
          scrollHeight: document.documentElement.scrollHeight,
          clientWidth: document.documentElement.clientWidth};
}"""
"""What the reader sees in the frame: the static chart's drawn size inside its box (it keeps
its proportions) and where the last line ends."""
MEASURE = MEASURE.replace("STATIC", STATIC_DRAWING_JS)


SHOWN_BACKGROUND = """(() => {
  let el = document.querySelector('.tn-embed__main');
  while (el) {
    const bg = getComputedStyle(el).backgroundColor;
    if (bg !== 'rgba(0, 0, 0, 0)') return bg;
    el = el.parentElement;
  }
  return null;
})()"""
"""The background the reader sees behind the chart: the nearest painted one."""


class _BlockScripts(_Quiet):
    """A host that forbids every script, like a blog platform that strips them."""

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", "script-src 'none'")
        super().end_headers()


def snippet_of(site: Path, page: str, base: str) -> str:
    """The embed code of the page's first chart: its box writes it in the browser, equal to
    the oEmbed response's html (tests/test_embedbox_browser.py, test_embeds_frames_browser)."""
    text = (site / page).read_text(encoding="utf-8")
    chart_id = html.unescape(text.split('data-tn-chart="', 1)[1].split('"', 1)[0])
    oembed = json.loads((site / "embed" / chart_id / "oembed.json").read_text("utf-8"))
    return str(oembed["html"]).replace(SUB_PATH_URL, base)


def loaded_frame(tab) -> object:
    """The embed's frame once its document and stylesheet have loaded.

    The credit line exists as soon as the frame's body is parsed, but a measure taken then can
    run before charts.css arrives (a slow CI host) and see the unstyled page, so wait for the
    frame's load event (and its fonts) first."""
    tab.frame_locator("iframe").locator(".tn-embed__credit").wait_for(timeout=TIMEOUT_MS)
    frame = tab.frames[1]
    frame.wait_for_load_state("load", timeout=TIMEOUT_MS)
    frame.evaluate("document.fonts.ready.then(() => true)")
    return frame


@pytest.fixture(scope="module", name="built_site")
def charted_site(built_site: BuiltSite, tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The session's site; built again with a fixture fit if no algorithm of the catalog has a
    chart (``base_url`` serves this one)."""
    return chart_site_for(built_site, tmp_path_factory.mktemp("chart-site")).site


def page_of(site: Path, which: str) -> str:
    """The comparison's page, or the page of an algorithm the site has a chart for."""
    if which == "comparison":
        return "algorithms/index.html"
    return f"algorithms/{charted_algorithm(site)}/index.html"


@pytest.fixture
def host(tmp_path: Path) -> Iterator[tuple[Path, Callable[..., str]]]:
    servers: list[ThreadingHTTPServer] = []

    def serve(body: str, *, block_scripts: bool) -> str:
        folder = tmp_path / f"host{len(servers)}"
        folder.mkdir()
        (folder / "index.html").write_text(
            "<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' "
            "content='width=device-width'><title>post</title></head><body style='margin:0'>"
            f"<p>Before the chart.</p>{body}<p id='after'>After the chart.</p></body></html>",
            encoding="utf-8")
        handler = _BlockScripts if block_scripts else _Quiet
        server = _serve(folder, handler)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield tmp_path, serve
    for server in servers:
        server.shutdown()


@pytest.fixture(scope="module")
def tabs(browser) -> Iterator[ReusedTab]:
    """The tab every test here with JavaScript on uses in turn."""
    tab = ReusedTab(browser)
    yield tab
    tab.close()


@pytest.fixture(scope="module")
def no_js_tabs(browser) -> Iterator[ReusedTab]:
    """A tab in a context with JavaScript off, for the theme checks."""
    tab = ReusedTab(browser, java_script_enabled=False)
    yield tab
    tab.close()


@pytest.mark.parametrize("width", [360, pytest.param(768, marks=pytest.mark.sweep), 1200])
@pytest.mark.parametrize("chart", ["comparison", "algorithm"])
def test_snippet_on_a_host_that_blocks_scripts_shows_the_whole_chart(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host, width: int,  # noqa: F811
        chart: str) -> None:
    _, serve = host
    page = page_of(built_site.root, chart)
    url = serve(snippet_of(built_site.root, page, base_url), block_scripts=True)
    with tabs.fresh({"width": width, "height": 1000}) as tab:
        blocked: list[str] = []
        tabs.on("console", lambda m: "Content Security Policy" in m.text
                and blocked.append(m.text))
        tab.goto(url)
        frame = loaded_frame(tab)
        assert blocked, "the host's CSP did not block resize.js"
        m = frame.evaluate(MEASURE)
        assert m["scrollHeight"] <= m["view"] + 1  # nothing below the fold of the frame
        assert m["creditBottom"] <= m["view"] + 1  # the last line is inside the frame
        assert m["view"] - m["creditBottom"] <= MAX_GAP_PX  # no blank band under it
        assert m["frameWidth"] - m["drawnWidth"] <= MAX_GAP_PX  # chart not shrunk to fit
        assert m["drawnWidth"] >= min(width, 960) - 60


@pytest.mark.parametrize(("theme", "system", "background"), [
    ("dark", "light", DARK_BG), ("light", "dark", LIGHT_BG), ("auto", "dark", DARK_BG),
    ("auto", "light", LIGHT_BG)])
def test_theme_holds_with_javascript_off_in_the_frame(
        no_js_tabs: ReusedTab, base_url: str, built_site: BuiltSite, host,  # noqa: F811
        theme: str, system: str, background: str) -> None:
    _, serve = host
    snippet = snippet_of(built_site.root, "algorithms/index.html", base_url)
    pinned = "" if theme == "auto" else f"#theme={theme}"  # as the snippet's theme menu writes
    snippet = snippet.replace("?theme=auto", f"?theme={theme}{pinned}")
    url = serve(snippet, block_scripts=True)
    with no_js_tabs.fresh(color_scheme=system) as tab:
        tab.goto(url)
        frame = loaded_frame(tab)
        shown = frame.evaluate(SHOWN_BACKGROUND)
        assert shown == background
        picture = frame.evaluate(
            "[...document.querySelectorAll('.tn-chart__pic')]"
            ".find(p => p.getClientRects().length > 0).className")
        wanted = "dark" if background == DARK_BG else "light"
        assert picture.endswith(f"--{wanted}")  # the static chart follows the page


def test_sized_frame_has_no_empty_scroll_bar_track(tabs: ReusedTab, base_url: str,  # noqa: F811
                                                   built_site: BuiltSite, host) -> None:
    _, serve = host
    url = serve(snippet_of(built_site.root, "algorithms/index.html", base_url),
                block_scripts=False)
    with tabs.fresh({"width": 900, "height": 900}) as tab:
        tab.goto(url)
        tab.frame_locator("iframe").locator(".tn-chart--armed").wait_for(timeout=TIMEOUT_MS)
        tab.wait_for_function("() => document.querySelector('iframe').getAttribute('scrolling') "
                              "=== 'no' && document.querySelector('iframe').style.height",
                              timeout=TIMEOUT_MS)
        m = tab.frames[1].evaluate(MEASURE)
        assert m["clientWidth"] == m["viewWidth"]  # no scroll bar takes a track
        assert abs(m["view"] - m["creditBottom"] - 10) <= 2  # sized to the content


def test_keyboard_activation_keeps_focus_on_the_named_chart(tabs: ReusedTab,
                                                            base_url: str) -> None:  # noqa: F811
    with tabs.fresh({"width": 1200, "height": 900}) as tab:
        tab.goto(base_url + "algorithms/")
        button = tab.locator(f"{CHART} [data-tn-activate]")
        button.scroll_into_view_if_needed()
        button.focus()
        tab.keyboard.press("Enter")
        tab.wait_for_selector(f"{CHART}.tn-chart--ready .scatterlayer .trace",
                              timeout=TIMEOUT_MS)
        focused = tab.evaluate("[document.activeElement.className, "
                               "document.activeElement.getAttribute('role'), "
                               "document.activeElement.getAttribute('aria-label')]")
        assert "tn-chart__plot" in focused[0].split() and focused[1] == "img"
        assert focused[2].startswith("ScaleRL convergence fits by algorithm")


def test_phone_width_keeps_a_usable_plot_area(tabs: ReusedTab, base_url: str) -> None:  # noqa: F811
    with tabs.fresh({"width": 360, "height": 800}) as tab:
        tab.goto(base_url + f"embed/{charts.COMPARISON_ID}/?theme=light")
        tab.locator("[data-tn-activate]").click()
        tab.wait_for_selector(".tn-chart--ready .scatterlayer .trace", timeout=TIMEOUT_MS)
        gd = "document.querySelector('.tn-chart__plot')"
        size = tab.evaluate(f"[Number({gd}.querySelector('.draglayer .nsewdrag')"
                            f".getAttribute('height')), {gd}.getBoundingClientRect().height, "
                            f"{gd}.layout.font.size]")
        assert size[0] >= 0.45 * size[1]  # the plot area keeps about half the frame or more
        assert size[2] < 13  # the narrow overrides apply
        top = tab.evaluate("document.querySelector('.xtitle, .x2title') && "
                           "Math.min(...[...document.querySelectorAll('.g-x2title text')]"
                           ".map(t => t.getBoundingClientRect().top))")
        assert top is None or top >= 0  # the top axis title is not clipped
