"""Every built page carries a Content-Security-Policy that Chromium enforces, with zero
violations on the real site; an injected inline handler is blocked by it.

In Chromium, `make test` opens one page of each kind, the ``sweep`` group every other page.
The static checks read every page of the session's built site: one policy in every HTML file,
first in ``<head>``, allowing exactly the page's own inline scripts by hash (on the real site
every one is a template's: test_security_wall.py checks that others get none); no inline
event handler anywhere (the policy would block it, so the page would silently lose it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_browser import NO_SEARCH_INDEX
from helpers_security import Served, Watch, html_pages, served_site_context, visit

from tinkernomics.site.charts.spec import COMPARISON_ID
from tinkernomics.site.postbuild import csp
from tinkernomics.site.postbuild.knownscripts import KnownScripts

META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


class _Handlers(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [f"<{tag} {name}>" for name, _ in attrs if name.startswith("on")]


def _script_src(policy: str) -> list[str]:
    directive = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
    return directive.split()[1:]


def test_every_page_has_one_policy_first_in_head(built_site: BuiltSite) -> None:
    """One policy, first in <head> (after the charset declaration, which must come first):
    a meta policy governs only what follows it."""
    first = re.compile(r"<head\b[^>]*>\s*(?:<meta charset=[^>]*>)?\s*"
                       r'<meta http-equiv="Content-Security-Policy"')
    bad = []
    for path in html_pages(built_site.root):
        page = path.read_text(encoding="utf-8")
        if "<head" not in page:
            continue
        if len(META.findall(page)) != 1 or not first.search(page):
            bad.append(str(path.relative_to(built_site.root)))
    assert not bad, f"pages without exactly one policy first in <head>: {bad[:10]}"


def test_policies_allow_exactly_each_pages_inline_scripts(built_site: BuiltSite) -> None:
    for path in html_pages(built_site.root):
        page = path.read_text(encoding="utf-8")
        if "<head" not in page:
            continue
        sources = _script_src(META.search(page).group(1).replace("&amp;", "&"))
        assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources, path
        hashes = {s for s in sources if s.startswith("'sha256-")}
        assert hashes == {csp.script_hash(s) for s in csp.inline_scripts(page)}, path


def test_no_inline_event_handlers_on_any_page(built_site: BuiltSite) -> None:
    found = {}
    for path in html_pages(built_site.root):
        parser = _Handlers()
        parser.feed(path.read_text(encoding="utf-8"))
        if parser.found:
            found[str(path.relative_to(built_site.root))] = parser.found[:3]
    assert not found, found


def test_every_html_file_has_a_policy(built_site: BuiltSite) -> None:
    """Fragments included: a file without <head> starts with one."""
    bad = [str(p.relative_to(built_site.root)) for p in html_pages(built_site.root)
           if len(META.findall(p.read_text(encoding="utf-8"))) != 1]
    assert not bad, f"HTML files without exactly one policy: {bad[:10]}"


def test_policy_replaces_an_old_one_and_skips_data_blocks() -> None:
    page = ('<html><head><title>t</title><script type="application/json">{"a": 1}</script>'
            '<script>var a = 1;</script><script src="x.js"></script></head><body></body></html>')
    known = KnownScripts(frozenset({"var a = 1;"}))
    once = csp.with_policy(page, known).text
    assert csp.with_policy(once, known).text == once
    policy = META.search(once).group(1)
    assert csp.script_hash("var a = 1;") in policy
    assert csp.script_hash('{"a": 1}') not in policy
    assert "'unsafe-inline'" in csp.policy([], serving=True)
    assert csp.with_policy("<p>fragment</p>").text.endswith("<p>fragment</p>")


def _reader_pages(site: Path) -> list[str]:
    """Every page that is not an algorithm or an embed, plus two of each of those."""
    rels = [p.relative_to(site).as_posix() for p in html_pages(site)
            if "<head" in p.read_text(encoding="utf-8")]  # not fragments a script inserts
    plain = [r for r in rels if not r.startswith(("algorithms/", "embed/"))]
    algos = [r for r in rels if re.fullmatch(r"algorithms/[^/]+/index\.html", r)][:2]
    embeds = [r for r in rels if re.fullmatch(r"embed/[^/]+/index\.html", r)][:2]
    return [r.removesuffix("index.html") for r in [*plain, "algorithms/index.html", *algos,
                                                   *embeds]]


@pytest.fixture(scope="module")
def site_tab(built_site: BuiltSite, browser) -> Iterator[tuple[Any, Watch, Served]]:
    """One tab on the built site, served under the site URL's path on a loopback port
    (``served_site_context``: the theme and plotly.js come from the browser's cache after the
    first page), navigated by each browser test of this module (every check below loads its
    page anew; nothing is read from an earlier one). Each page still fetches the search index
    and starts Material's search worker, which builds an empty one (``NO_SEARCH_INDEX``):
    nothing here searches, and nothing the worker does reaches the page's own record (it runs
    under its own policy)."""
    with served_site_context(browser, built_site.root, SUB_PATH_URL) as (context, watch, site):
        context.add_init_script(NO_SEARCH_INDEX)
        yield context.new_page(), watch, site


KINDS = ("", "algorithms/", "calculator/", "compare/", "ways/", "tinker/", "formulas/",
         "data-quality/", "api/", f"embed/{COMPARISON_ID}/")
"""The pages whose scripts differ in what they do (the charts, the algorithms table, the
calculator, the compare view, the ways tables) and one plain page of each other kind."""


def _pages_of(site: Path, group: str) -> list[str]:
    """`make test`'s pages (``KINDS`` and the first algorithm page: one of each kind the site
    renders), or the others of ``_reader_pages`` (the ``sweep`` group's:
    `make test-sweep`, which .ci/run runs too)."""
    pages = _reader_pages(site)
    first = next(r for r in pages if r.startswith("algorithms/") and r != "algorithms/")
    kinds = [r for r in pages if r in KINDS or r == first]
    return kinds if group == "kinds" else [r for r in pages if r not in kinds]


@pytest.mark.browser
@pytest.mark.parametrize("group", ["kinds", pytest.param("rest", marks=pytest.mark.sweep)])
def test_real_site_runs_with_zero_violations(built_site: BuiltSite, site_tab,
                                             group: str) -> None:
    page, watch, _ = site_tab
    rels = _pages_of(built_site.root, group)
    assert group == "rest" or set(KINDS) <= set(rels), rels
    results = {rel: visit(page, watch.base + rel, watch) for rel in rels}
    assert all(r["csp"] for r in results.values()), [k for k, r in results.items() if not r["csp"]]
    violations = {k: r["violations"] for k, r in results.items() if r["violations"]}
    assert not violations, violations
    foreign = {k: r["foreign"][:5] for k, r in results.items() if r["foreign"]}
    assert not foreign, foreign
    dialogs = {k: r["dialogs"] for k, r in results.items() if r["dialogs"]}
    assert not dialogs, dialogs


@pytest.mark.browser
def test_policy_blocks_an_injected_handler(built_site: BuiltSite, site_tab) -> None:
    """The second wall alone: markup the sanitiser never saw, injected into a built page after
    the build (so its policy does not know it), cannot run."""
    page, watch, site = site_tab
    html = (built_site.root / "formulas" / "index.html").read_text(encoding="utf-8")
    payload = ('<img src="nowhere.png" onerror="window.__tn_pwned = 1">'
               '<script>window.__tn_pwned = 2</script>')
    injected = html.replace("</article>", payload + "</article>", 1)
    probe = watch.base + "probe/"
    site.put(probe, injected)
    try:
        result = visit(page, probe, watch)
    finally:
        site.drop(probe)
    assert result["pwned"] == 0
    assert any("script-src" in v for v in result["violations"]), result["violations"]


@pytest.mark.browser
def test_instant_navigation_to_script_pages_keeps_them_working(site_tab) -> None:
    """Material's instant navigation keeps the first page's policy and re-creates the new
    page's inline scripts without their attributes: pages whose scripts read data from the page
    (the calculator) must still work when reached from another page."""
    page, watch, _ = site_tab
    foreign_before = len(watch.foreign)
    errors: list[str] = []

    def on_error(err: Any) -> None:
        errors.append(str(err))

    page.on("pageerror", on_error)
    try:
        page.goto(watch.base, wait_until="load")
        page.locator("article a[href$='calculator/']").first.click()
        page.wait_for_selector("[data-tn-calc][data-tn-ready]", timeout=30_000)
        reloads, violations = page.evaluate(
            "[performance.getEntriesByType('navigation').length, window.__tn_violations]")
    finally:
        page.remove_listener("pageerror", on_error)
    assert reloads == 1, "the link was not followed by instant navigation"
    assert errors == [] and violations == [], (errors, violations)
    assert not watch.foreign[foreign_before:]
