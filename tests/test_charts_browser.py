"""Charts in headless Chromium on the built site (served under a sub-path, as on Pages):
the comparison chart draws its curves, without console errors; it is redrawn after instant
navigation away and back; the palette toggle re-themes it; it resizes with the window and
draws at the right width when a hidden (tab) container is shown; a page
without charts (and a chart page before the reader interacts) loads no plotly.js; without
JavaScript the static chart and the parameter table are there; the embed page works in an
iframe on another origin and the iframe's height follows its content."""

from __future__ import annotations

import io
import json
import mimetypes
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest_site import REPO_ROOT, SUB_PATH_URL, BuiltSite
from helpers_browser import NO_SEARCH_INDEX, start_server
from helpers_calc import real_catalog
from helpers_chart_site import ReusedTab
from helpers_security import file_for

from tinkernomics.site.charts import spec as charts

pytestmark = [pytest.mark.build, pytest.mark.browser]

SUB_PATH = "tinker-nomics"
CHART = f"#chart-{charts.COMPARISON_ID}"
LOADED = ("i => (i.complete ? Promise.resolve() : new Promise(r => i.addEventListener("
          "'load', r, {once: true}))).then(() => i.naturalWidth > 0 && i.currentSrc.endsWith(")
"""JS, completed by a quoted file name and ``))``: an image, once loaded, shows that file."""
PLOTLY = "assets/vendor/plotly.min.js"
TIMEOUT_MS = 30_000
GD = f"document.querySelector('{CHART} .tn-chart__plot')"


def legend_curves(selector: str) -> str:
    """JS: the legend's curve entries, not the titles heading each setting (charts.settings)."""
    return (f"[...document.querySelectorAll({selector!r})]"
            ".filter(t => !(t.__data__ && t.__data__[0] && t.__data__[0].groupTitle)).length")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


class _LocalSitemap(_Quiet):
    """Serves sitemap.xml with the local origin in place of the site URL.

    Material's instant navigation only intercepts links listed in the sitemap, after giving
    the sitemap's URLs the page's protocol and host name but NOT its port: a site built for
    https://example.org/... and served on 127.0.0.1:<port> would fall back to full page loads.
    """

    local_base = ""

    def send_head(self):
        if not self.path.endswith("/sitemap.xml"):
            return super().send_head()
        path = Path(self.translate_path(self.path))
        body = path.read_text(encoding="utf-8").replace(SUB_PATH_URL, self.local_base).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def _serve(directory: Path, handler: type[_Quiet] = _Quiet) -> ThreadingHTTPServer:
    return start_server(directory, handler)


@pytest.fixture(scope="module")
def base_url(built_site: BuiltSite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("chart-served")
    (root / SUB_PATH).symlink_to(built_site.root, target_is_directory=True)
    handler = type("Handler", (_LocalSitemap,), {})
    server = _serve(root, handler)
    handler.local_base = f"http://127.0.0.1:{server.server_address[1]}/{SUB_PATH}/"
    yield handler.local_base
    server.shutdown()


@pytest.fixture(scope="module")
def fitted_count() -> int:
    catalog = real_catalog()
    return sum(1 for a in catalog.algorithms.values() if a.scalerl is not None)


def _answer(route, site_root: Path) -> None:
    path = file_for(site_root, SUB_PATH_URL, route.request.url)
    if path is None:
        route.fulfill(status=404, body="not found")
        return
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    route.fulfill(status=200, path=path, content_type=kind)


class Session:
    """One page reused by the site tests, with what it logged and requested."""

    def __init__(self, browser, site_root: Path) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.add_init_script(NO_SEARCH_INDEX)  # no check here searches
        self.context.add_init_script(
            f"localStorage.setItem('/{SUB_PATH}/.__palette', JSON.stringify({{index: 0, "
            "color: {media: '', scheme: 'default', primary: 'indigo', accent: 'indigo'}}));")
        # The pages run at the site URL they were built for, answered from the built folder,
        # as on the published site: their Content-Security-Policy allows that origin only.
        self.context.route(SUB_PATH_URL + "**", lambda route: _answer(route, site_root))
        self.page = self.context.new_page()
        self.base = SUB_PATH_URL
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: m.type in ("error", "warning")
                     and self.errors.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda err: self.errors.append(f"pageerror: {err}"))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def plotly_requests(self) -> list[str]:
        return [u for u in self.requests if u.endswith(PLOTLY)]

    def upgrade(self) -> None:
        """Scroll to the chart, point at it (the reader's intent) and wait for Plotly."""
        self.page.locator(CHART).scroll_into_view_if_needed()
        self.page.locator(f"{CHART} .tn-chart__frame").hover()
        self.wait_ready()

    def on_chart_page(self) -> None:
        """The algorithms page with its chart drawn, as the first test leaves the tab; loaded
        and drawn here when a test runs without it (alone, or in another pytest-xdist worker
        under ``--dist load``)."""
        drawn = self.page.locator(f"{CHART}.tn-chart--ready .scatterlayer .trace")
        if self.page.url.endswith("/algorithms/") and drawn.count() > 0:
            return
        self.page.goto(self.base + "algorithms/", wait_until="load")
        self.upgrade()

    def wait_ready(self) -> None:
        self.page.wait_for_selector(f"{CHART}.tn-chart--ready .scatterlayer .trace",
                                    timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def session(browser, built_site: BuiltSite) -> Iterator[Session]:
    s = Session(browser, built_site.root)
    yield s
    s.context.close()


@pytest.fixture(scope="module")
def plain(browser) -> Iterator[ReusedTab]:
    """A tab without routes or init scripts, for the host pages and exported pages."""
    tab = ReusedTab(browser, accept_downloads=True)
    yield tab
    tab.close()


def test_comparison_chart_is_static_first_then_draws_its_curves(session: Session,
                                                                fitted_count: int) -> None:
    page = session.page
    page.goto(session.base + "algorithms/", wait_until="load")
    static = page.locator(f"{CHART} .tn-chart__pic--light img")  # the chart's file, loaded
    static.scroll_into_view_if_needed()  # lazy: fetched as it nears the screen
    assert static.is_visible() and static.evaluate(
        LOADED + "'/embed/scalerl-comparison/chart.svg'))")
    assert page.locator(f"{CHART} .tn-chart__fallback svg").count() == 0
    assert session.plotly_requests() == []  # no interaction yet: no plotly.js
    session.upgrade()
    assert len(session.plotly_requests()) == 1
    data = page.evaluate(f"{GD}.data.map(t => t.name)")
    curves = [name for name in data if not name.endswith((" C_mid", " asymptote A"))
              and name != "H100-equivalent axis"]
    assert len(curves) == fitted_count
    assert page.locator(f"{CHART} .scatterlayer .trace").count() == len(data)
    assert page.evaluate(legend_curves(f"{CHART} .legend .traces")) == fitted_count
    # each curve drew data.json's points, which spec.json names instead of holding (issue 47)
    drawn = page.evaluate(f"{GD}.data.filter(t => t.mode === 'lines' && !t.line.dash)"
                          ".map(t => [t.x, t.y, t.customdata])")
    series = page.evaluate("fetch('../embed/scalerl-comparison/data.json')"
                           ".then(r => r.json()).then(d => d.series)")
    assert drawn == [[[p[k] for p in s["points"]] for k in ("gb200_hours", "reward",
                                                            "h100_equivalent_hours")]
                     for s in series]
    assert all(len(x) == charts.CURVE_POINTS for x, _, _ in drawn)
    assert not page.locator(f"{CHART} .tn-chart__fallback").is_visible()
    assert session.errors == []


def test_palette_toggle_rethemes_the_chart_without_reload(session: Session) -> None:
    session.on_chart_page()
    page = session.page
    page.evaluate("window.__sameDocument = true")
    colours = f"[{GD}.layout.paper_bgcolor, {GD}.layout.font.color]"  # public: gd.layout
    light, dark = charts.THEMES["light"], charts.THEMES["dark"]
    assert page.evaluate(colours) == [light["paper_bgcolor"], light["font.color"]]
    page.locator("label.md-header__button[for='__palette_1']").first.click()
    page.wait_for_function(f"() => {GD}.layout.paper_bgcolor === '{dark['paper_bgcolor']}'",
                           timeout=TIMEOUT_MS)
    assert page.evaluate(colours) == [dark["paper_bgcolor"], dark["font.color"]]
    page.locator("label.md-header__button[for='__palette_0']").first.click()
    page.wait_for_function(f"() => {GD}.layout.paper_bgcolor === '{light['paper_bgcolor']}'",
                           timeout=TIMEOUT_MS)
    assert page.evaluate("window.__sameDocument") is True
    assert session.errors == []


def test_chart_resizes_with_the_window(session: Session) -> None:
    session.on_chart_page()
    page = session.page
    width = f"Number({GD}.querySelector('svg.main-svg').getAttribute('width'))"  # as drawn
    wide = page.evaluate(width)
    page.set_viewport_size({"width": 480, "height": 900})
    page.wait_for_function(f"() => {width} < {wide} - 100", timeout=TIMEOUT_MS)
    box = page.evaluate(f"{GD}.getBoundingClientRect().width")
    assert abs(page.evaluate(width) - box) <= 2
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_function(f"() => {width} === {wide}", timeout=TIMEOUT_MS)


def test_instant_navigation_away_and_back_redraws_the_chart(session: Session,
                                                            fitted_count: int) -> None:
    session.on_chart_page()
    page = session.page
    page.evaluate("window.__sameDocument = true")
    page.locator("nav.md-nav--primary a.md-nav__link[href$='formulas/']").first.click()
    page.wait_for_url("**/formulas/")
    page.wait_for_function("() => document.querySelector('article h1') && "
                           "!document.querySelector('[data-tn-chart]')", timeout=TIMEOUT_MS)
    page.go_back()
    page.wait_for_url("**/algorithms/")
    page.locator(CHART).scroll_into_view_if_needed()
    session.wait_ready()  # plotly.js is loaded now: the chart upgrades when it comes into view
    assert page.evaluate("window.__sameDocument") is True  # instant navigation, no reload
    assert page.evaluate(f"{GD}.data.length") == 3 * fitted_count + 1
    assert len(session.plotly_requests()) == 1  # fetched once per visit
    assert session.errors == []


def test_a_page_without_charts_loads_no_plotly(session: Session) -> None:
    """(In the session's tab: its routing answers every request, none from a cache, so every
    one is seen.)"""
    seen = len(session.requests)
    session.page.goto(session.base + "formulas/", wait_until="networkidle")
    requested = session.requests[seen:]
    assert any(u.endswith("assets/javascripts/site.js") for u in requested)  # loader ran
    assert not [u for u in requested if u.endswith(PLOTLY)]


def test_without_javascript_the_static_chart_and_parameters_remain(
        browser, base_url: str, fitted_count: int) -> None:
    context = browser.new_context(java_script_enabled=False,
                                  viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(base_url + "algorithms/")
    narrow = page.locator(f"{CHART} .tn-chart__pic--light img")  # the narrow file, loaded
    assert narrow.is_visible() and narrow.evaluate(LOADED + "'/chart-narrow.svg'))")
    assert narrow.bounding_box()["width"] > 300
    assert not page.locator(f"{CHART} .tn-chart__pic--dark").is_visible()
    page.locator(f"{CHART} .tn-chart__params summary").click()
    assert page.locator(f"{CHART} .tn-chart__params tbody tr").count() == fitted_count
    assert not page.locator(f"{CHART} [data-tn-activate]").is_visible()
    context.close()


def _host_page(folder: Path, snippet: str, site_url: str, base_url: str) -> None:
    """A blog post on another origin that pastes the embed snippet as the site shows it."""
    pasted = snippet.replace(site_url, base_url)
    (folder / "index.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>post</title></head>"
        "<body style='margin:0'><div id='column' style='width:900px'><h1>A post</h1>"
        f"{pasted}<p id='after'>after the chart</p></div></body></html>", encoding="utf-8")


def wait_heights_match(page, child, unlike: float | None = None) -> float:
    """Wait until the iframe is as tall as the embed page's content (and, if given, no longer
    ``unlike`` tall); return that height."""
    # The embed page fills its frame; its natural height is where the credit line ends with the
    # chart box at its own aspect ratio (the box shrinks when the frame is too short).
    inner = ("(() => { const f = document.querySelector('.tn-chart__frame');"
             " const b = f.getBoundingClientRect();"
             " const r = getComputedStyle(f).aspectRatio.split('/').map(parseFloat);"
             " return Math.ceil(document.querySelector('.tn-embed__credit')"
             ".getBoundingClientRect().bottom + 10 + b.width * r[1] / r[0] - b.height); })()")
    outer = "document.querySelector('iframe').getBoundingClientRect().height"
    for _ in range(100):
        height, content = page.evaluate(outer), child.evaluate(inner)
        if abs(height - content) <= 1 and (unlike is None or abs(height - unlike) > 1):
            return height
        page.wait_for_timeout(100)
    raise AssertionError(f"iframe height {height} never matched its content {content}")


def test_embed_in_an_iframe_on_another_origin_sizes_itself(
        plain: ReusedTab, base_url: str, built_site: BuiltSite,
        tmp_path: Path) -> None:
    # The embed code the box writes is the oEmbed html (tests/test_embedbox_browser.py).
    oembed = built_site.root / "embed" / charts.COMPARISON_ID / "oembed.json"
    snippet = str(json.loads(oembed.read_text(encoding="utf-8"))["html"])
    assert f'<iframe src="{SUB_PATH_URL}embed/{charts.COMPARISON_ID}/' in snippet
    _host_page(tmp_path, snippet.replace("?theme=auto", "?theme=dark"), SUB_PATH_URL, base_url)
    host = _serve(tmp_path)
    errors: list[str] = []
    try:
        with plain.fresh({"width": 1000, "height": 900}) as page:
            plain.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(f"http://127.0.0.1:{host.server_address[1]}/")
            frame = page.frame_locator("iframe")
            frame.locator("[data-tn-chart]").wait_for(timeout=TIMEOUT_MS)
            assert page.evaluate("document.querySelector('iframe').contentDocument") is None
            child = page.frames[1]  # cross-origin: only the embed's own script reads its size
            assert child.evaluate(
                "document.documentElement.getAttribute('data-md-color-scheme')") == "slate"
            wait_heights_match(page, child)
            frame.locator(".tn-chart__frame").hover()
            frame.locator(".tn-chart--ready .scatterlayer .trace").first.wait_for(
                timeout=TIMEOUT_MS)
            wide = wait_heights_match(page, child)
            # 600 px switches the chart to its narrow layout (taller box) while the caption
            # wraps to only a few more lines: at phone width a long caption's extra lines can
            # cancel the shorter box, and the height would barely change whatever the
            # catalog's labels say.
            page.evaluate("document.getElementById('column').style.width = '600px'")
            narrow = wait_heights_match(page, child, unlike=wide)
            assert abs(narrow - wide) > 20  # the content changed height; the iframe followed
            assert errors == []
    finally:
        host.shutdown()


HIDDEN_CHART_STATE_JS = """async () => {
  const box = document.querySelector('[data-tn-chart]');
  await new Promise((done) => {
    if (document.readyState !== 'loading') done();
    else document.addEventListener('DOMContentLoaded', done);
  });
  await new Promise((done) => {  // the loader watches the box from DOMContentLoaded on
    const seen = new IntersectionObserver(() => { seen.disconnect(); done(); });
    seen.observe(box);
  });  // observers report in creation order: the loader's has reported by now
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return {state: box.tnState || null, ready: box.classList.contains('tn-chart--ready')};
}"""
"""What the chart loader did with the (hidden) chart once it has seen it: ``state`` is its
``tnState`` (``loading`` as soon as it starts drawing), so a loader that draws hidden charts
fails this check however slow the machine is (a fixed wait could end before it starts)."""


def test_a_chart_in_a_hidden_tab_draws_at_its_width_once_shown(
        plain: ReusedTab, base_url: str, tmp_path: Path) -> None:
    """Like a chart in a content tab: nothing is drawn while hidden; shown, it draws at the
    tab's width; shown again at another width, it resizes (exported page, plotly loaded)."""
    from tinkernomics import cli

    page_file = tmp_path / "tabs.html"
    assert cli.main(["chart", charts.COMPARISON_ID, "-o", str(page_file), "--catalog",
                     str(REPO_ROOT / "catalog"), "--plotly-src", base_url + PLOTLY]) == 0
    text = page_file.read_text(encoding="utf-8")
    text = text.replace('<main class="tn-embed__main">',
                        '<main class="tn-embed__main"><div id="tab" style="display:none">', 1)
    page_file.write_text(text.replace('<p class="tn-embed__credit">',
                                      '</div><p class="tn-embed__credit">', 1), encoding="utf-8")
    with plain.fresh({"width": 1200, "height": 900}) as page:
        page.goto(page_file.as_uri())
        page.wait_for_function("() => window.Plotly !== undefined", timeout=TIMEOUT_MS)
        assert page.evaluate(HIDDEN_CHART_STATE_JS) == {"state": None, "ready": False}
        plot = "document.querySelector('.tn-chart__plot')"
        for width in (500, 800):
            page.evaluate("Object.assign(document.getElementById('tab').style, "
                          "{display: 'none'})")
            page.evaluate(f"Object.assign(document.getElementById('tab').style, "
                          f"{{display: 'block', width: '{width}px'}})")
            drawn = (f"({plot}.querySelector('svg.main-svg') && "
                     f"Number({plot}.querySelector('svg.main-svg').getAttribute('width')))")
            page.wait_for_function(f"() => {drawn} === "
                                   f"Math.round({plot}.getBoundingClientRect().width)",
                                   timeout=TIMEOUT_MS)
            assert abs(page.evaluate(drawn) - width) <= 2


def test_exported_page_draws_with_the_inlined_bundle_and_downloads_png_and_svg(
        plain: ReusedTab, tmp_path: Path, fitted_count: int) -> None:
    """The default export inlines the vendored basic bundle: the chart draws with its legend,
    and the image buttons (Plotly.downloadImage, which a partial bundle could leave out) give a
    PNG and an SVG of the chart, without console errors."""
    from tinkernomics import cli

    page_file = tmp_path / "export.html"
    assert cli.main(["chart", charts.COMPARISON_ID, "-o", str(page_file), "--catalog",
                     str(REPO_ROOT / "catalog")]) == 0
    errors: list[str] = []
    with plain.fresh({"width": 1200, "height": 900}) as page:
        plain.on("console", lambda m: m.type in ("error", "warning")
                 and errors.append(f"{m.type}: {m.text}"))
        plain.on("pageerror", lambda err: errors.append(f"pageerror: {err}"))
        page.goto(page_file.as_uri())
        page.wait_for_selector(".tn-chart--ready .scatterlayer .trace", timeout=TIMEOUT_MS)
        assert page.evaluate(legend_curves(".legend .traces")) == fitted_count
        for fmt, start in (("png", b"\x89PNG\r\n\x1a\n"), ("svg", b"<svg")):
            with page.expect_download(timeout=TIMEOUT_MS) as download:
                page.locator(f"[data-tn-image='{fmt}']").click()
            assert download.value.suggested_filename == f"{charts.COMPARISON_ID}.{fmt}"
            body = Path(download.value.path()).read_bytes()
            assert body.startswith(start) and len(body) > 10_000, (fmt, body[:40])
        assert errors == []
