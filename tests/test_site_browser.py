"""The built site in headless Chromium, light and dark, desktop and a 390 px phone: nothing
overflows the page, no raw Jinja or LaTeX is visible, math renders, the palette toggle works
across instant navigation, and no request leaves the site. The sweep reads the built site
served on a loopback port under its sub-path; the palette test answers the site's Pages URL
from disk (Material's instant navigation engages only on the host the site was built for)."""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest_site import REPO_ROOT, SUB_PATH_URL, BuiltSite
from helpers_a11y import open_served, served_site
from helpers_browser import NO_SEARCH_INDEX, wait_scripts_ready
from helpers_leaks import catalog_text, nearby, unexplained
from helpers_site import PAGES

from tinkernomics.catalog.loader import load_valid_catalog

# Every page at each viewport and scheme: a whole-site sweep (make test-sweep).
pytestmark = [pytest.mark.build, pytest.mark.browser, pytest.mark.sweep]

SUB_PATH = urlsplit(SUB_PATH_URL).path
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}
SCHEMES = ("default", "slate")
STATE_JS = """async (raw) => {
    // after a resize: let the transitions it started end (Material's search box eases to
    // its new width), so the page is read as a load at this size would show it
    await Promise.all(document.getAnimations()
        .filter(a => a.timeline instanceof DocumentTimeline && a.playState === 'running'
                     && a.effect.getComputedTiming().endTime !== Infinity)
        .map(a => a.finished.catch(() => null)));
    const width = document.documentElement.clientWidth;
    const overflow = document.documentElement.scrollWidth - width;
    const scrolls = '.tn-table-wrap, .md-typeset__scrollwrap, .tn-formula__math, .tn-math, pre';
    const text = document.body.innerText;
    return {
        scheme: document.body.getAttribute('data-md-color-scheme'),
        overflow,
        leaks: raw.flatMap(marker => {
            const found = [];
            for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
                found.push([marker, text.slice(Math.max(0, i - 40), i),
                            text.slice(i + marker.length, i + marker.length + 40)]);
            }
            return found;
        }),
        wide: overflow <= 0 ? [] : [...document.querySelectorAll('article *')]
            .filter(e => e.getBoundingClientRect().right > width + 1 && !e.closest(scrolls))
            .slice(0, 3).map(e => e.tagName + '.' + e.className),
        math: [...document.querySelectorAll('.tn-formula__math math')]
            .map(m => m.getBoundingClientRect().height),
    };
}"""
"""Page state, once transitions have ended: palette, horizontal overflow (and, when there is
some, the first elements sticking out), which of the ``raw`` markers the visible text holds,
and the heights of the formula boxes' MathML. One round trip: the text stays in the page.
A marker comes with the text either side, which ``helpers_leaks`` checks against the
catalog's (a locator may quote a config's ``{{``)."""
RAW = ("{{", "{%", "$$", "\\(", "\\[", "\\frac", "\\text{", "\\mathrm")


@dataclass
class Served:
    """Answers requests for the site's own URL from the built folder (Material's instant
    navigation engages only on the host the site was built for); records and refuses every
    request to another host."""

    root: Path
    foreign: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def handle(self, route, request) -> None:  # playwright's Route and Request
        url, base = urlsplit(request.url), urlsplit(SUB_PATH_URL)
        if url.netloc != base.netloc or not url.path.startswith(base.path):
            self.foreign.append(request.url)
            route.abort()
            return
        path = self.root / url.path[len(base.path):]
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        route.fulfill(status=200, path=path, content_type=kind)

    def open(self, browser, scheme: str, size: tuple[int, int]):
        """A new page in a fresh context with the palette preset to ``scheme``."""
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        context.add_init_script(palette_script(scheme))
        context.route("**/*", self.handle)
        page = context.new_page()
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        return page


@pytest.fixture
def served(built_site: BuiltSite) -> Served:
    return Served(built_site.root)


def palette_script(scheme: str) -> str:
    """Material keeps the chosen palette in localStorage under '<base>.__palette'."""
    index = SCHEMES.index(scheme)
    return (f"for (const k of ['{SUB_PATH}.__palette', '/.__palette']) "
            "if (!localStorage.getItem(k)) localStorage.setItem(k, "
            f"JSON.stringify({{index: {index}, color: {{media: '', scheme: '{scheme}', "
            "primary: 'indigo', accent: 'indigo'}}));")


def our_pages() -> list[str]:
    catalog = load_valid_catalog(REPO_ROOT / "catalog")
    return [*PAGES, *(f"algorithms/{a}/" for a in sorted(catalog.algorithms))]


def page_problems(path: str, scheme: str, state: dict) -> list[tuple]:
    """What is wrong with one page's ``STATE_JS`` state, shown in ``scheme``."""
    problems: list[tuple] = []
    if state["scheme"] != scheme:
        problems.append((path, "scheme", state["scheme"]))
    if state["overflow"] > 0:
        problems.append((path, "overflow px", state["overflow"], state["wide"]))
    leaked = unexplained(nearby(state["leaks"]), catalog_text(REPO_ROOT / "catalog"))
    if leaked:
        problems.append((path, "raw markup", leaked))
    return problems


SCHEME_SAMPLE = 3
"""Pages looked at in the dark scheme too: the palette is one stylesheet for the whole site and
changes no layout, so overflow and raw markup (checked on every page, light) cannot differ."""


def pages_for(scheme: str, pages: list[str]) -> list[str]:
    """Every page in the default scheme; the first few and the last in any other."""
    if scheme == SCHEMES[0]:
        return pages
    return [*pages[:SCHEME_SAMPLE], pages[-1]]


@dataclass
class LookedAt:
    """What the sweep saw: problems per (viewport, scheme), requests outside the site and
    JavaScript errors per scheme, and the MathML heights on formulas/ (desktop, default)."""

    problems: dict[tuple[str, str], list]
    foreign: dict[str, list[str]]
    errors: dict[str, list[str]]
    math: list[float] | None = None


@pytest.fixture(scope="module")
def looked_at(browser, built_site: BuiltSite) -> LookedAt:
    """Every page at every viewport (light), a sample in dark. One tab per scheme loads each
    page once and is read at each viewport in turn (a resize lays the page out as a load at
    that size would: the layout is CSS media queries and Material's resize observers): a page
    is read first at the size the tab has, then at the other, so the tab never resizes back
    (pages alternate between loading at desktop and at phone size). The tabs load side by side
    (one context, so one renderer, each: the machine's cores share the work), from the built
    site served on a loopback port under its sub-path. Material's search worker gets an empty
    index (``NO_SEARCH_INDEX``): its lunr build happens in a worker and lays nothing out."""
    sizes = sorted(VIEWPORTS)
    seen = LookedAt({(v, s): [] for v in sizes for s in SCHEMES},
                    {s: [] for s in SCHEMES}, {s: [] for s in SCHEMES})
    pages = our_pages()
    with served_site(built_site.root, SUB_PATH_URL) as base:
        tabs, size_of = {}, {}
        for scheme in SCHEMES:
            page, seen.foreign[scheme] = open_served(
                browser, base, size=VIEWPORTS[sizes[0]],
                init_script=palette_script(scheme) + "\n" + NO_SEARCH_INDEX)
            page.on("pageerror", lambda err, errors=seen.errors[scheme]: errors.append(str(err)))
            tabs[scheme], size_of[scheme] = page, sizes[0]
        for path in pages:
            due = {scheme: page for scheme, page in tabs.items()
                   if path in pages_for(scheme, pages)}
            for page in due.values():
                page.goto(base + path, wait_until="commit")
            for scheme, page in due.items():
                page.wait_for_load_state("load")
                wait_scripts_ready(page)  # the index's rows appear after the load event
                order = sorted(sizes, key=lambda viewport: viewport != size_of[scheme])
                for viewport in order:
                    if viewport != size_of[scheme]:
                        width, height = VIEWPORTS[viewport]
                        page.set_viewport_size({"width": width, "height": height})
                        size_of[scheme] = viewport
                    state = page.evaluate(STATE_JS, list(RAW))
                    seen.problems[viewport, scheme] += page_problems(path, scheme, state)
                    if (path, viewport, scheme) == ("formulas/", "desktop", SCHEMES[0]):
                        seen.math = state["math"]
        for page in tabs.values():
            page.context.close()
    return seen


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_pages_fit_the_screen_and_show_no_raw_markup(looked_at, scheme: str,
                                                     viewport: str) -> None:
    problems = looked_at.problems[viewport, scheme]
    foreign, errors = looked_at.foreign[scheme], looked_at.errors[scheme]
    assert not problems
    assert not foreign, f"requests outside the site: {foreign[:5]}"
    assert not errors, f"JavaScript errors: {errors[:5]}"


def test_math_is_rendered_as_mathml(looked_at: LookedAt) -> None:
    """formulas/ at desktop size in the default palette (read by the sweep)."""
    boxes = looked_at.math
    assert boxes and all(h > 10 for h in boxes)


def test_palette_toggle_switches_to_dark_and_instant_navigation_keeps_it(
        browser, served: Served) -> None:
    page = served.open(browser, "default", VIEWPORTS["desktop"])
    page.goto(SUB_PATH_URL + "algorithms/")
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    assert page.evaluate(scheme) == "default"
    page.locator("label.md-header__button[for='__palette_1']").first.click()
    assert page.evaluate(scheme) == "slate"
    page.evaluate("window.tnSamePage = true")
    page.locator("table a[href$='/algorithms/grpo/']").first.click()  # instant nav: absolute
    page.wait_for_url("**/algorithms/grpo/")
    page.wait_for_selector("h1#grpo")
    assert page.evaluate(scheme) == "slate"
    assert page.evaluate("window.tnSamePage === true"), "instant navigation did a full load"
    page.context.close()
    assert not served.foreign and not served.errors
