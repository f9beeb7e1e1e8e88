"""Issue 32 in headless Chromium on the built site, served on another origin than its site URL:
the oEmbed html as WordPress's sanitiser leaves it (sandboxed, no style) and the full snippet
on a ``style-src 'self'`` host show the chart at 95% or more of its natural height at 390 and
1280 px; in WordPress's sandbox the credit link leaves the frame (through WordPress's host
script, or in the frame itself without it) and WordPress's script sizes the frame; the copy
button falls back to a selected field; theme ``auto`` follows the host's ``color-scheme``
and ``bg=transparent`` shows the host; the embed page is axe clean; ``/algorithms/`` makes
no failed request when served elsewhere than its site URL."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import axe_violations, open_site
from helpers_chart_site import ReusedTab
from helpers_charts import STATIC_DRAWING_JS
from test_chart_embeds_browser import DARK_BG, SHOWN_BACKGROUND, loaded_frame, snippet_of
from test_charts_browser import (  # noqa: F401
    TIMEOUT_MS,
    _answer,
    _Quiet,
    _serve,
    base_url,
)
from test_embeds_files import wordpress_sanitised

from tinkernomics.site.charts import spec as charts

pytestmark = [pytest.mark.build, pytest.mark.browser]

CHART_ID = charts.COMPARISON_ID
NATURAL = """() => {
  const frame = document.querySelector('.tn-chart__frame');
  const ratio = getComputedStyle(frame).aspectRatio.split('/').map(parseFloat);
  const box = frame.getBoundingClientRect();
  const {vb, scale} = STATIC;
  const credit = document.querySelector('.tn-embed__credit').getBoundingClientRect();
  return {natural: box.width * ratio[1] / ratio[0], drawn: vb.height * scale,
          view: innerHeight, creditBottom: credit.bottom};
}"""
"""The chart's drawn height against its height at its own aspect ratio (the frame's width)."""
NATURAL = NATURAL.replace("STATIC", STATIC_DRAWING_JS)

WP_HOST_SCRIPT = """<script>
window.addEventListener('message', function (e) {
  var d = e.data; if (!d || !d.secret) return;
  var f = document.querySelector('iframe[data-secret="' + d.secret + '"]'); if (!f) return;
  if (d.message === 'height') f.height = Math.min(1000, Math.max(200, parseInt(d.value, 10)));
  if (d.message === 'link') {
    var s = new URL(f.src), t = new URL(d.value);
    if (s.host === t.host && document.activeElement === f) top.location.href = d.value;
  }
});
</script>"""
"""What WordPress's wp-embed.js does with an embed's messages (height clamped 200-1000; a link
followed on the same host as the frame, when the frame has the focus)."""


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Callable[..., str]]:
    servers = []

    def serve(body: str, policy: str = "", head: str = "") -> str:
        folder = tmp_path / f"host{len(servers)}"
        folder.mkdir()
        (folder / "index.html").write_text(
            f"<!doctype html><html><head><meta charset='utf-8'><title>post</title>{head}"
            f"</head><body style='margin:0'><p>Before.</p>{body}<p>After.</p></body></html>",
            encoding="utf-8")
        handler = type("Host", (_Quiet,), {"end_headers": _with_policy(policy)})
        server = _serve(folder, handler)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()


@pytest.fixture(scope="module")
def tabs(browser) -> Iterator[ReusedTab]:
    """The tab the tests here use in turn (the axe check has its own: axe is an init script)."""
    tab = ReusedTab(browser)
    yield tab
    tab.close()


def _with_policy(policy: str) -> Callable[..., None]:
    def end_headers(self) -> None:
        if policy:
            self.send_header("Content-Security-Policy", policy)
        _Quiet.end_headers(self)
    return end_headers


def wordpress_html(site: Path, base: str, secret: str = "s3cr3tABC1") -> str:
    oembed = json.loads((site / "embed" / CHART_ID / "oembed.json").read_text(encoding="utf-8"))
    return wordpress_sanitised(oembed["html"].replace(SUB_PATH_URL, base), secret)


def _eventually(tab, check: Callable[[], bool], seconds: float = 15) -> bool:
    """Poll ``check``, letting Playwright process its events between tries (a time.sleep
    would not: the frames' URLs would never change)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        tab.wait_for_timeout(100)
    return check()


def _assert_whole_chart(frame) -> None:
    m = frame.evaluate(NATURAL)
    assert m["drawn"] >= 0.95 * m["natural"], m
    assert m["creditBottom"] <= m["view"] + 1, m


@pytest.mark.parametrize("width", [390, 1280])
def test_wordpress_sanitised_embed_shows_the_whole_chart(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host,  # noqa: F811
        width: int) -> None:
    body = wordpress_html(built_site.root, base_url)
    assert "style=" not in body and 'sandbox="allow-scripts"' in body
    url = host(body, "style-src 'self'; script-src 'none'")
    with tabs.fresh({"width": width, "height": 1000}) as tab:
        tab.goto(url)
        _assert_whole_chart(loaded_frame(tab))


@pytest.mark.parametrize("width", [390, 1280])
def test_snippet_on_a_style_src_self_host_shows_the_whole_chart(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host,  # noqa: F811
        width: int) -> None:
    snippet = snippet_of(built_site.root, "algorithms/index.html", base_url)
    url = host(snippet, "style-src 'self'; script-src 'none'")
    with tabs.fresh({"width": width, "height": 1000}) as tab:
        refused: list[str] = []
        tabs.on("console", lambda m: "style-src" in m.text and refused.append(m.text))
        tab.goto(url)
        frame = loaded_frame(tab)
        assert refused, "the host's CSP did not refuse the snippet's inline styles"
        _assert_whole_chart(frame)


def _site_routed(tab, site: Path) -> None:
    """The embed at the site URL it was built for (its links point there), from the folder
    (a route of the tab's own, which ``ReusedTab.fresh`` removes afterwards)."""
    tab.route(SUB_PATH_URL + "**", lambda route: _answer(route, site))


def test_in_wordpress_the_host_script_sizes_the_frame_and_follows_the_credit_link(
        tabs: ReusedTab, built_site: BuiltSite, host) -> None:
    url = host(wordpress_html(built_site.root, SUB_PATH_URL), head=WP_HOST_SCRIPT)
    with tabs.fresh({"width": 800, "height": 1000}) as tab:
        _site_routed(tab, built_site.root)
        tab.goto(url)
        frame = loaded_frame(tab)
        assert _eventually(tab, lambda: abs((m := frame.evaluate(NATURAL))["view"]
                                       - m["creditBottom"] - 10) <= 3)  # sized to its content
        with tab.expect_navigation(timeout=TIMEOUT_MS):
            tab.frame_locator("iframe").locator(".tn-embed__credit a").first.click()
        assert tab.url == SUB_PATH_URL + "algorithms/"


def test_without_a_host_script_the_credit_link_opens_in_the_sandboxed_frame(
        tabs: ReusedTab, built_site: BuiltSite, host) -> None:
    url = host(wordpress_html(built_site.root, SUB_PATH_URL), "script-src 'none'")
    with tabs.fresh({"width": 800, "height": 1000}) as tab:
        _site_routed(tab, built_site.root)
        tab.goto(url)
        loaded_frame(tab)
        tab.frame_locator("iframe").locator(".tn-chart--armed").wait_for(timeout=TIMEOUT_MS)
        tab.frame_locator("iframe").locator(".tn-embed__credit a").first.click()
        assert _eventually(tab, lambda: any(f.url == SUB_PATH_URL + "algorithms/"
                                       for f in tab.frames)), [f.url for f in tab.frames]


def test_copy_falls_back_to_a_selected_field_in_a_sandbox(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host) -> None:  # noqa: F811
    # Tall enough for the Share row (no host script sizes the frame here).
    frame = re.sub(r'height="\d+"', 'height="1000"', wordpress_html(built_site.root, base_url))
    url = host(frame, "script-src 'none'")
    with tabs.fresh({"width": 800, "height": 1000}) as tab:
        tab.goto(url)
        frame = tab.frame_locator("iframe")
        frame.locator(".tn-chart--armed").wait_for(timeout=TIMEOUT_MS)
        frame.locator("[data-tn-copy-link]").click()
        field = frame.locator(".tn-chart__copy-fallback")
        field.wait_for(timeout=TIMEOUT_MS)
        assert field.input_value().endswith("#chart-" + CHART_ID)
        assert field.evaluate("f => document.activeElement === f && f.selectionEnd > 0")


@pytest.mark.parametrize("query", ["", "&amp;bg=transparent"])
def test_theme_auto_follows_the_host_color_scheme(tabs: ReusedTab, base_url: str,  # noqa: F811
                                                  built_site: BuiltSite, host,
                                                  query: str) -> None:
    snippet = snippet_of(built_site.root, "algorithms/index.html", base_url)
    snippet = snippet.replace("?theme=auto", "?theme=auto" + query)
    url = host(snippet, head="<style>html{color-scheme:dark;background:#123456}</style>")
    with tabs.fresh(color_scheme="light") as tab:
        tab.goto(url)
        frame = loaded_frame(tab)
        frame.wait_for_function("() => document.documentElement"
                                ".getAttribute('data-md-color-scheme') === 'slate'",
                                timeout=TIMEOUT_MS)
        shown = frame.evaluate(SHOWN_BACKGROUND)
        assert shown == (None if query else DARK_BG)


def test_theme_auto_follows_a_host_whose_script_loads_after_the_frame_spoke(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host) -> None:  # noqa: F811
    """The snippet loads resize.js async, beside its frame: when the frame has posted its height
    before the script runs (here the script is added only once the frame has drawn), the script
    asks it again, so the frame is sized and follows the host's scheme all the same."""
    snippet = snippet_of(built_site.root, "algorithms/index.html", base_url)
    frame_only, script = snippet.split("<script", 1)
    script_url = script.split('src="', 1)[1].split('"', 1)[0]
    url = host(frame_only, head="<style>html{color-scheme:dark;background:#123456}</style>")
    with tabs.fresh(color_scheme="light") as tab:
        tab.goto(url)
        frame = loaded_frame(tab)
        tab.frame_locator("iframe").locator(".tn-chart--armed").wait_for(timeout=TIMEOUT_MS)
        assert frame.evaluate("document.documentElement.getAttribute('data-md-color-scheme')") \
            == "default"  # no host script yet: the frame follows the system (light)
        tab.add_script_tag(url=script_url)
        frame.wait_for_function("() => document.documentElement"
                                ".getAttribute('data-md-color-scheme') === 'slate'",
                                timeout=TIMEOUT_MS)
        assert tab.evaluate("document.querySelector('iframe').getAttribute('scrolling')") == "no"


def test_embed_page_is_axe_clean(browser, built_site: BuiltSite) -> None:
    page, foreign = open_site(browser, built_site.root, SUB_PATH_URL, axe=True)
    page.goto(SUB_PATH_URL + f"embed/{CHART_ID}/", wait_until="load")
    found = [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
             for v in axe_violations(page)]
    headings = page.evaluate("document.querySelectorAll('h1').length")
    images = page.evaluate("[...document.querySelectorAll('[role=img], img')]"
                           ".filter(e => e.getClientRects().length).length")
    page.context.close()
    assert not found
    assert headings == 1 and images == 1 and not foreign


def test_algorithms_served_on_another_origin_makes_no_failed_request(
        tabs: ReusedTab, base_url: str) -> None:  # noqa: F811
    assert not base_url.startswith(SUB_PATH_URL)
    with tabs.fresh({"width": 1280, "height": 900}) as tab:
        failed: list[str] = []
        foreign: list[str] = []
        tabs.on("requestfailed", lambda r: failed.append(r.url))
        tabs.on("request", lambda r: not r.url.startswith(base_url) and foreign.append(r.url))
        tab.goto(base_url + "algorithms/", wait_until="networkidle")
        tab.wait_for_timeout(500)
        assert not failed and not foreign, (failed, foreign)
        assert html.unescape(tab.content()).count("alternate oembed") == 1
