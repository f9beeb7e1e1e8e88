"""Issue 46 (and issue 40's resize.js item) in headless Chromium on the built site, served on
another origin than the host pages, in the frames bloggers really get:

- the embed page alone, swept over boxes from 300x300 to 800x900: nothing overlaps, nothing
  is clipped, the chart is never a strip (it drops the Share row, the legend, the caption);
  `make test` sweeps a grid that meets every step, the ``sweep`` group the finer one;
- every chart in a 400x480 Notion-style sandboxed frame, on a 720 px host with a strict
  policy (``default-src 'self'; frame-src <site>; script-src <site>``, the strict snippet)
  and in a 342 px fixed frame: nothing overlaps, a link opens a new tab, the height is right
  (the strict host's frame is sized by resize.js to the page's natural height); `make test`
  checks the comparison chart and one algorithm's, the ``sweep`` group the others;
- resize.js sizes only its own frames, within 150..4000 px.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_chart_site import ReusedTab
from helpers_charts import STATIC_DRAWING_JS
from test_charts_browser import TIMEOUT_MS, _Quiet, _serve, base_url  # noqa: F401
from test_embeds_browser import _with_policy

from tinkernomics.site.charts import embed
from tinkernomics.site.charts import spec as charts

pytestmark = [pytest.mark.build, pytest.mark.browser]

LAYOUT = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const shown = el => el && el.getClientRects().length > 0 &&
    el.getBoundingClientRect().height >= 1;
  const parts = [['caption', '.tn-chart__caption'], ['key', '.tn-chart__key'],
    ['chart', '.tn-chart__frame'], ['tools', '.tn-chart__tools'],
    ['credit', '.tn-embed__credit']];
  const boxes = parts.map(([name, sel]) => [name, document.querySelector(sel)])
    .filter(([, el]) => shown(el)).map(([name, el]) => {
      const r = el.getBoundingClientRect();
      return {name, top: r.top, bottom: r.bottom};
    });
  const figure = document.querySelector('.tn-embed .tn-chart').getBoundingClientRect();
  const {vb, sb, scale} = STATIC;
  return {boxes, view: innerHeight, figureBottom: figure.bottom,
          drawn: vb.height * scale, own: sb.width * vb.height / vb.width,
          classes: document.documentElement.className,
          scroll: document.documentElement.scrollHeight};
}"""
"""Where each visible part of the embed page is, and the static chart's drawn height against
its height at the full width of its box."""
LAYOUT = LAYOUT.replace("STATIC", STATIC_DRAWING_JS)
LAYOUT_NOW = LAYOUT.replace("async () => {", "() => {", 1).replace(
    "  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));\n", "", 1)
"""The same, read at once (with scripts off no animation frame comes; a read lays out)."""


def assert_laid_out(m: dict[str, Any], where: str) -> None:
    """Nothing overlaps or is cut off, and the chart keeps a usable size."""
    boxes = sorted(m["boxes"], key=lambda b: b["top"])
    for above, below in itertools.pairwise(boxes):
        assert above["bottom"] <= below["top"] + 0.5, (where, above, below, m["classes"])
    for box in boxes:
        assert box["bottom"] <= m["view"] + 0.5, (where, box, m)
        if box["name"] != "credit":
            assert box["bottom"] <= m["figureBottom"] + 0.5, (where, box, m)  # not clipped
    assert m["scroll"] <= m["view"] + 1, (where, m)
    assert m["drawn"] >= min(0.9 * m["own"], 0.5 * m["view"]), (where, m)  # never a strip


def chart_ids(site: Path) -> list[str]:
    return sorted(p.name for p in (site / "embed").iterdir() if (p / "index.html").is_file())


@pytest.fixture(scope="module")
def tabs(browser) -> Iterator[ReusedTab]:
    tab = ReusedTab(browser)
    yield tab
    tab.close()


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """A host page on its own origin: ``body``, an optional policy header, ``head`` and other
    ``files`` beside it."""
    servers = []

    def serve(body: str, policy: str = "", head: str = "",
              files: dict[str, str] | None = None) -> str:
        folder = tmp_path / f"host{len(servers)}"
        folder.mkdir()
        (folder / "index.html").write_text(
            f"<!doctype html><html><head><meta charset='utf-8'><title>post</title>{head}"
            f"</head><body><p>Before.</p>{body}<p>After.</p></body></html>", encoding="utf-8")
        for name, text in (files or {}).items():
            (folder / name).write_text(text, encoding="utf-8")
        server = _serve(folder, type("Host", (_Quiet,), {"end_headers": _with_policy(policy)}))
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()


def _sweep_ids(site: Path) -> list[str]:
    ids = chart_ids(site)
    own = [i for i in ids if i != charts.COMPARISON_ID][:1]
    return [i for i in ids if i == charts.COMPARISON_ID] + own


TWO, REST = "two", "rest"
CHART_GROUPS = [pytest.param(TWO, id=TWO), pytest.param(REST, id=REST, marks=pytest.mark.sweep)]
"""The checks of every chart run, in `make test`, on the comparison chart and one algorithm's
(``_sweep_ids``: the two kinds of chart, drawn by the same code as the rest); the other charts
of the catalog are the ``sweep`` group's (`make test-sweep`, which .ci/run runs too)."""


def charts_of(site: Path, group: str) -> list[str]:
    two = _sweep_ids(site)
    return two if group == TWO else [i for i in chart_ids(site) if i not in two]


GRIDS = [pytest.param(((300, 400, 560, 800), (300, 360, 420, 480, 560, 720, 900)), id="steps"),
         pytest.param(((300, 342, 400, 480, 560, 640, 720, 800),
                       (300, 360, 420, 480, 560, 640, 720, 800, 900)), id="every-size",
                      marks=pytest.mark.sweep)]
"""Frame sizes (widths, heights): in `make test` a grid that still meets every step from nothing
dropped to the caption dropped (the test asserts it saw them all), the finer grid in the sweep."""


@pytest.mark.parametrize("grid", GRIDS)
def test_embed_page_degrades_without_overlap_from_300x300_to_800x900(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite,  # noqa: F811
        grid: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    seen: set[str] = set()
    widths, heights = grid
    for chart_id in _sweep_ids(built_site.root):
        with tabs.fresh({"width": 800, "height": 900}) as tab:
            tab.goto(base_url + f"embed/{chart_id}/")
            tab.locator(".tn-chart--armed").wait_for(timeout=TIMEOUT_MS)
            for width in widths:
                for height in heights:
                    tab.set_viewport_size({"width": width, "height": height})
                    m = tab.evaluate(LAYOUT)
                    assert_laid_out(m, f"{chart_id} {width}x{height}")
                    seen.add(" ".join(c for c in m["classes"].split() if "fit-" in c))
    # the sweep saw every step, from nothing dropped to the caption dropped
    assert {"", "tn-fit-1 tn-fit-2 tn-fit-3"} <= seen, seen


def test_without_a_script_in_the_frame_nothing_overlaps(
        browser, base_url: str, built_site: BuiltSite) -> None:  # noqa: F811
    """A sandbox without allow-scripts: the frame's height alone (media rules) drops the Share
    row and the description; nothing overlaps or is clipped, the chart is never a strip."""
    tab = ReusedTab(browser, java_script_enabled=False)
    try:
        for chart_id in _sweep_ids(built_site.root):
            with tab.fresh({"width": 800, "height": 900}) as page:
                page.goto(base_url + f"embed/{chart_id}/")
                for width in (300, 342, 400, 560, 800):
                    for height in (300, 420, 480, 600, 900):
                        page.set_viewport_size({"width": width, "height": height})
                        m = page.evaluate(LAYOUT_NOW)
                        assert_laid_out(m, f"{chart_id} {width}x{height} no script")
    finally:
        tab.close()


NOTION_SANDBOX = "allow-scripts allow-popups allow-popups-to-escape-sandbox allow-forms"
"""Notion-style embed blocks (with or without allow-same-origin: both are tested)."""


def _frame(tab) -> Any:
    tab.frame_locator("iframe").locator(".tn-chart--armed").wait_for(timeout=TIMEOUT_MS)
    frame = tab.frames[1]
    frame.wait_for_load_state("load", timeout=TIMEOUT_MS)
    frame.evaluate("document.fonts.ready.then(() => true)")
    return frame


def _answer_ok(route: Any) -> None:
    route.fulfill(body="ok", content_type="text/plain")


def _link_opens_a_new_tab(tab, selector: str = ".tn-embed__credit a") -> str:
    """Click a link of the embed: a new tab opens (the site's URL answered here) at its URL."""
    pattern = SUB_PATH_URL + "**"
    tab.context.route(pattern, _answer_ok)
    tab.context.route("**/data.csv", _answer_ok)  # shown, not downloaded, in the new tab
    try:
        with tab.context.expect_page(timeout=TIMEOUT_MS) as opened:
            tab.frame_locator("iframe").locator(selector).first.click()
        popup = opened.value
        popup.wait_for_load_state("domcontentloaded", timeout=TIMEOUT_MS)
        url = popup.url
        popup.close()
    finally:
        tab.context.unroute(pattern, _answer_ok)
        tab.context.unroute("**/data.csv", _answer_ok)
    return url


@pytest.mark.parametrize("group", CHART_GROUPS)
@pytest.mark.parametrize("same_origin", [True, False])
def test_every_chart_in_a_notion_style_sandboxed_frame(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host,  # noqa: F811
        same_origin: bool, group: str) -> None:
    sandbox = NOTION_SANDBOX + (" allow-same-origin" if same_origin else "")
    for chart_id in charts_of(built_site.root, group):
        src = f"{base_url}embed/{chart_id}/?theme=auto"
        url = host(f'<iframe src="{src}" width="400" height="480" sandbox="{sandbox}" '
                   'frameborder="0"></iframe>')
        with tabs.fresh({"width": 800, "height": 900}) as tab:
            tab.goto(url)
            assert_laid_out(_frame(tab).evaluate(LAYOUT), f"{chart_id} notion")
            assert _link_opens_a_new_tab(tab) == SUB_PATH_URL + charts_page(built_site, chart_id)
            data = _link_opens_a_new_tab(tab, ".tn-embed__credit a[href$='data.csv']")
            assert data.endswith(f"embed/{chart_id}/data.csv")


def charts_page(site: BuiltSite, chart_id: str) -> str:
    data = json.loads((site.root / "embed" / chart_id / "data.json").read_text("utf-8"))
    return str(data["page"]).removeprefix(SUB_PATH_URL)


def _strict_snippet(tabs: ReusedTab, site: Path, chart_id: str, base: str) -> str:
    """The strict snippet as the chart's page writes it in its embed box (charts.js, once the
    box is opened)."""
    with tabs.fresh({"width": 1280, "height": 900}) as tab:
        tab.goto(base + charts_page(BuiltSite(site, ""), chart_id))
        box = tab.locator(f"#chart-{chart_id}.tn-chart--armed")
        box.wait_for(timeout=TIMEOUT_MS)
        box.locator(".tn-chart__embed summary").click()
        area = box.locator('textarea[aria-label^="Embed code without inline style for "]')
        area.first.wait_for(state="attached", timeout=TIMEOUT_MS)
        return area.first.input_value().replace(SUB_PATH_URL, base)


@pytest.mark.parametrize("group", CHART_GROUPS)
def test_every_chart_on_a_720_px_host_with_a_strict_policy(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host,  # noqa: F811
        group: str) -> None:
    origin = base_url.split("/", 3)
    site = f"{origin[0]}//{origin[2]}"
    policy = f"default-src 'self'; frame-src {site}; script-src {site}"
    for chart_id in charts_of(built_site.root, group):
        snippet = _strict_snippet(tabs, built_site.root, chart_id, base_url)
        assert "style" not in snippet
        url = host(f"<main>{snippet}</main>", policy, files={"host.css": "main{width:720px}"},
                   head="<link rel='stylesheet' href='host.css'>")
        with tabs.fresh({"width": 900, "height": 900}) as tab:
            refused: list[str] = []
            tabs.on("console", lambda m, found=refused: "Content Security Policy" in m.text
                    and found.append(m.text))
            tab.goto(url)
            frame = _frame(tab)
            tab.wait_for_function("() => document.querySelector('iframe').style.height",
                                  timeout=TIMEOUT_MS)
            m = frame.evaluate(LAYOUT)
            assert_laid_out(m, f"{chart_id} strict")
            assert "tn-fit-" not in m["classes"]  # sized to the whole page: nothing dropped
            credit = next(b for b in m["boxes"] if b["name"] == "credit")
            assert 0 <= m["view"] - credit["bottom"] <= 16, m  # no blank band under it
            width = tab.evaluate("document.querySelector('iframe').offsetWidth")
            assert width == 720
            assert not refused, refused
            assert _link_opens_a_new_tab(tab).startswith(SUB_PATH_URL)


@pytest.mark.parametrize("group", CHART_GROUPS)
def test_every_chart_in_a_342_px_fixed_frame(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host,  # noqa: F811
        group: str) -> None:
    for chart_id in charts_of(built_site.root, group):
        src = f"{base_url}embed/{chart_id}/?theme=auto"
        height = json.loads((built_site.root / "embed" / chart_id / "oembed.json")
                            .read_text("utf-8"))["height"]
        url = host(f'<iframe src="{src}" width="342" height="{height}" frameborder="0">'
                   "</iframe>")
        with tabs.fresh({"width": 800, "height": 900}) as tab:
            tab.goto(url)
            m = _frame(tab).evaluate(LAYOUT)
            assert_laid_out(m, f"{chart_id} 342 px")
            assert m["view"] == height
            assert _link_opens_a_new_tab(tab).startswith(SUB_PATH_URL)


NO_BORDER = 'style="border:0"'
EVIL = """<!doctype html><script>
parent.postMessage({type: 'tinkernomics:height', height: 5000000}, '*');
setInterval(function () {
  parent.postMessage({type: 'tinkernomics:height', height: 5000000}, '*');
}, 100);
</script>"""


def test_resize_js_sizes_only_its_own_frames_within_bounds(
        tabs: ReusedTab, base_url: str, built_site: BuiltSite, host) -> None:  # noqa: F811
    src = f"{base_url}embed/{charts.COMPARISON_ID}/?theme=auto"
    url = host(f'<iframe id="embed" src="{src}" width="100%" height="300" {NO_BORDER}></iframe>'
               f'<iframe id="evil" src="evil.html" width="300" height="100" {NO_BORDER}></iframe>'
               f'<script src="{base_url}embed/resize.js" async></script>',
               files={"evil.html": EVIL})
    with tabs.fresh({"width": 800, "height": 900}) as tab:
        tab.goto(url)
        tab.wait_for_function("() => document.getElementById('embed').style.height",
                              timeout=TIMEOUT_MS)
        tab.wait_for_timeout(500)
        assert tab.evaluate("document.getElementById('evil').offsetHeight") == 100
        # Every height resize.js gives the frame (the embed answers each with its own again).
        tab.evaluate("""() => { window.__heights = [];
          const frame = document.getElementById('embed');
          new MutationObserver(() => window.__heights.push(frame.style.height))
            .observe(frame, {attributes: true, attributeFilter: ['style']}); }""")
        embed_frame = next(f for f in tab.frames if f.url.startswith(src.split("?")[0]))
        for height in (5000000, 3):
            embed_frame.evaluate("h => parent.postMessage({type: 'tinkernomics:height', "
                                 "height: h}, '*')", height)
        tab.wait_for_function("() => ['4000px', '150px'].every(h => window.__heights.includes(h))",
                              timeout=TIMEOUT_MS)
        heights = [float(h.removesuffix("px")) for h in tab.evaluate("window.__heights")]
        assert min(heights) >= 150 and max(heights) <= 4000, heights


def test_one_height_is_the_oembed_height(built_site: BuiltSite) -> None:
    """The oEmbed file, the iframe attribute of its html and the embed box agree."""
    for chart_id in chart_ids(built_site.root):
        data = json.loads((built_site.root / "embed" / chart_id / "oembed.json")
                          .read_text("utf-8"))
        assert f'height="{data["height"]}"' in data["html"]
        assert data["width"] == embed.FALLBACK_WIDTH_PX


SNIPPETS = """() => Object.fromEntries([...document.querySelectorAll('.tn-chart__embed textarea')]
  .map(a => [a.getAttribute('aria-label').split(' for ')[0].split(' of ')[0], a.value]))"""


def test_the_theme_menu_rewrites_every_snippet(tabs: ReusedTab, base_url: str,  # noqa: F811
                                               built_site: BuiltSite) -> None:
    with tabs.fresh({"width": 1280, "height": 900}) as tab:
        tab.goto(base_url + "algorithms/")
        tab.locator(".tn-chart__embed summary").first.click()
        tab.locator(".tn-chart__embed textarea").first.wait_for(timeout=TIMEOUT_MS)  # fetched
        auto = tab.evaluate(SNIPPETS)
        tab.locator(".tn-chart__theme").first.select_option("dark")
        dark = tab.evaluate(SNIPPETS)
        image = dark["Image HTML"]
        assert image.count("<source ") == 1 and "chart-narrow-dark.png" in image
        assert '/chart-dark.png"' in image.split("<img", 1)[1]
        assert "/chart-dark.png)" in dark["Image Markdown"]
        assert "?theme=dark#theme=dark" in dark["Embed code"]
        assert "?theme=dark#theme=dark" in dark["Embed code without inline style"]
        assert dark["Embed address"].endswith("?theme=dark#theme=dark")
        assert dark["Caption"] == auto["Caption"] and dark["BibTeX"] == auto["BibTeX"]
        tab.locator(".tn-chart__bg").first.check()
        assert "&bg=transparent" in tab.evaluate(SNIPPETS)["Embed address"]
        tab.locator(".tn-chart__bg").first.uncheck()
        tab.locator(".tn-chart__theme").first.select_option("light")
        light = tab.evaluate(SNIPPETS)["Image HTML"]
        assert light.count("<source ") == 1 and "chart-narrow.png" in light
        tab.locator(".tn-chart__theme").first.select_option("auto")
        assert tab.evaluate(SNIPPETS) == auto  # back where it started


def test_a_host_page_tells_the_embed_its_theme(tabs: ReusedTab, base_url: str,  # noqa: F811
                                               built_site: BuiltSite, host) -> None:
    """Without resize.js, a host (a Notion-style app, a themed blog) posts its scheme to the
    frame; the embed follows it, not the reader's system setting."""
    src = f"{base_url}embed/{charts.COMPARISON_ID}/?theme=auto"
    url = host(f'<iframe src="{src}" width="400" height="480" sandbox="{NOTION_SANDBOX}" '
               "></iframe>")
    with tabs.fresh({"width": 800, "height": 900}, color_scheme="light") as tab:
        tab.goto(url)
        frame = _frame(tab)
        scheme = "document.documentElement.getAttribute('data-md-color-scheme')"
        assert frame.evaluate(scheme) == "default"
        tab.evaluate("document.querySelector('iframe').contentWindow.postMessage("
                     "{type: 'tinkernomics:color-scheme', value: 'dark'}, '*')")
        frame.wait_for_function(f"() => {scheme} === 'slate'", timeout=TIMEOUT_MS)
        tab.evaluate("document.querySelector('iframe').contentWindow.postMessage("
                     "{type: 'tinkernomics:color-scheme', value: 'light'}, '*')")
        frame.wait_for_function(f"() => {scheme} === 'default'", timeout=TIMEOUT_MS)
