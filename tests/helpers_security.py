"""Test helpers for the security tests: a built site opened in Chromium at its own site URL.

``routed_site`` answers every request for the site URL's origin from the built folder (Playwright
routing; nothing listens on a port), so the pages load at exactly the origin they were built for,
as on the published site, and a request anywhere else is refused and recorded. ``Watch`` counts
what a hostile page would do: dialogs, script executions of the ``__tn_pwned`` marker,
Content-Security-Policy violations, ``javascript:`` links in the DOM, failed requests.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

WATCH_SCRIPT = """
window.__tn_violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__tn_violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
});
"""
"""Installed before any page script: records every CSP violation the page reports."""

JAVASCRIPT_LINKS = """() => {
  const names = ['href', 'src', 'action', 'formaction', 'xlink:href'];
  const script = /^(javascript|vbscript|data:text\\/html)/i;
  return Array.from(document.querySelectorAll('*'))
    .flatMap(el => names.map(a => el.getAttribute(a)))
    .filter(v => v && script.test(v.replace(/[\\s\\u0000-\\u001f]/g, '')));
}"""
"""Every attribute in the DOM that would run script when followed."""


def file_for(site: Path, base: str, url: str) -> Path | None:
    """The built file a URL under ``base`` names (``dir/`` -> ``dir/index.html``), or None."""
    if not url.startswith(base):
        return None
    rel = unquote(urlsplit(url).path[len(urlsplit(base).path):])
    path = (site / rel).resolve()
    if path.is_dir():
        path = path / "index.html"
    return path if path.is_file() and site.resolve() in path.parents else None


@dataclass
class Watch:
    """What happened in one browser context."""

    dialogs: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


@contextmanager
def routed_site(browser: Any, site: Path, base: str, **options: Any) -> Iterator[tuple[Any, Watch]]:
    """A browser context whose requests for ``base`` are answered from ``site``."""
    context = browser.new_context(**options)
    watch = Watch()
    origin = "{0.scheme}://{0.netloc}/".format(urlsplit(base))

    def answer(route: Any) -> None:
        url = route.request.url
        path = file_for(site, base, url)
        if path is None:
            if url.startswith(origin):
                watch.missing.append(url)
                route.fulfill(status=404, body="not found")
            else:
                watch.foreign.append(url)
                route.abort()
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        route.fulfill(status=200, path=path, content_type=kind)

    context.route("**/*", answer)
    context.add_init_script(WATCH_SCRIPT)
    context.on("dialog", lambda d: (watch.dialogs.append(d.message), d.dismiss()))
    try:
        yield context, watch
    finally:
        context.close()


REPORT = """() => ({
  violations: window.__tn_violations,
  pwned: window.__tn_pwned || 0,
  javascript_links: (JAVASCRIPT_LINKS)(),
  csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || '',
})""".replace("JAVASCRIPT_LINKS", JAVASCRIPT_LINKS)
"""What a page did, read in one round trip: its CSP violations, payload executions,
script-running links, and its policy."""


CHARTS_POINTED_AT = 2
"""How many of a page's charts :func:`visit` points at (each draws from its fetched spec)."""
SETTLED_JS = """(charts) => {
  const boxes = [...document.querySelectorAll('[data-tn-chart]')].slice(0, charts);
  const roots = document.querySelectorAll(
    '[data-tn-calc], [data-tn-compare], .tn-algorithms table');
  const said = (r) => (r.querySelector('.tn-compare__status') || r).textContent;
  return boxes.every(b => b.matches('.tn-chart--ready, .tn-chart--failed')) &&
         [...roots].every(r => r.matches('[data-tn-ready], [data-tn-error]') &&
           (!r.matches('[data-tn-compare]') || r.matches('[data-tn-shown]') ||
            /could not|at least/.test(said(r))));
}"""
"""The page has done what it does on a visit: each chart pointed at has drawn from its fetched
spec (or given up), and the calculator, compare view and algorithms table have run their
scripts (the calculator after fetching its algorithm's data, the compare view after placing
the columns a link names, fetched from their algorithms' files, or saying why it could not)."""


def visit(page: Any, url: str, watch: Watch) -> dict[str, Any]:
    """Navigate ``page`` (one tab reused from URL to URL, in a ``routed_site`` context) to
    ``url``, point at its first charts, wait until it has done what a visit makes it do
    (``SETTLED_JS``: a condition, not a quiet network for half a second), and report what this
    page did.

    Each navigation is a new document, so the watch script's record starts empty for it; the
    dialogs and refused requests reported are those that came while this page was visited."""
    since = len(watch.dialogs), len(watch.foreign), len(watch.missing)
    page.goto(url, wait_until="load")
    for chart in page.locator("[data-tn-chart].tn-chart--armed").all()[:CHARTS_POINTED_AT]:
        chart.locator(".tn-chart__frame").scroll_into_view_if_needed()
        chart.locator(".tn-chart__frame").hover()
    page.wait_for_function(SETTLED_JS, arg=CHARTS_POINTED_AT, timeout=30_000)
    return {**page.evaluate(REPORT), "dialogs": watch.dialogs[since[0]:],
            "foreign": watch.foreign[since[1]:], "missing": watch.missing[since[2]:]}


def sweep(context: Any, watch: Watch, urls: list[str]) -> dict[str, dict[str, Any]]:
    """``visit`` every URL in turn in one tab of ``context``: {url: what that page did}."""
    page = context.new_page()
    try:
        return {url: visit(page, url, watch) for url in urls}
    finally:
        page.close()


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))
