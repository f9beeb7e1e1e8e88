"""Test helpers for the security tests: a built site opened in Chromium under its own site path.

``served_site_context`` serves the built folder on a loopback port under the site URL's path
(``http://127.0.0.1:<port>/<sub-path>/``), with responses the browser caches, so each page
loads the theme and plotly.js from Chromium's cache (and its compiled-code cache) instead of
receiving them again; pages a test writes (``Served.put``) are answered at their path from
memory, never cached. Every request for another host is recorded (``Watch.foreign``), as is
every 404 on the port (``Watch.missing``). ``routed_site`` answers every request for the site
URL's origin from the built folder instead (Playwright routing; nothing listens on a port), so
the pages load at exactly the origin they were built for; routing turns Chromium's HTTP cache
off, so each page fetches everything anew. ``Watch`` counts what a hostile page would do:
dialogs, script executions of the ``__tn_pwned`` marker, Content-Security-Policy violations,
``javascript:`` links in the DOM, failed requests.
"""

from __future__ import annotations

import io
import mimetypes
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

from helpers_browser import QuietHandler, start_server

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
    base: str = ""
    """The URL the site's pages are at (``served_site_context``'s loopback URL)."""


CACHE_S = 3600
"""How long Chromium may reuse a served file without asking again (the run's whole time: the
served folders are never written while served)."""


class _SiteHandler(QuietHandler):
    """Serves the built folder under ``prefix`` (every other path is a 404), cacheable, and the
    pages in ``pages`` ({path: (body, content type)}) from memory, uncached."""

    prefix: ClassVar[str] = "/"
    pages: ClassVar[dict[str, tuple[bytes, str]]] = {}

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "\0 outside the site path")  # no such file
        return super().translate_path("/" + path[len(self.prefix):])

    def send_head(self) -> Any:
        page = self.pages.get(urlsplit(self.path).path)
        if page is None:
            return super().send_head()
        body, kind = page
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self) -> None:
        if urlsplit(self.path).path not in self.pages:
            self.send_header("Cache-Control", f"max-age={CACHE_S}")
        super().end_headers()


@dataclass
class Served:
    """A served site: its base URL and the pages answered from memory."""

    base: str
    pages: dict[str, tuple[bytes, str]]

    def put(self, url: str, body: str, kind: str = "text/html") -> None:
        """Answer ``url`` (under ``base``) with ``body`` until ``drop``."""
        self.pages[urlsplit(url).path] = (body.encode("utf-8"), kind)

    def drop(self, url: str) -> None:
        self.pages.pop(urlsplit(url).path, None)


@contextmanager
def served(site: Path, site_url: str) -> Iterator[Served]:
    """``site`` served on a free loopback port under the path of ``site_url``."""
    prefix = urlsplit(site_url).path or "/"
    pages: ClassVar[dict[str, tuple[bytes, str]]] = {}
    handler = type("SiteHandler", (_SiteHandler,), {"prefix": prefix, "pages": pages})
    server = start_server(site, handler)
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}{prefix}", pages)
    finally:
        server.shutdown()
        server.server_close()


def watched(context: Any, origin: str) -> Watch:
    """Record in a ``Watch`` what ``context`` does: dialogs (dismissed), requests for anything
    but ``origin`` (another host, another port; ``data:`` and ``blob:`` URLs stay in the page)
    and 404s from it. A request the page's policy blocks never leaves Chromium (as under
    routing, where it never reached the route): Chromium reports it, then its failure
    (``csp``), which takes it off the record. Events come in the order Chromium sends them, so
    a page's report (an evaluate after its requests) sees each blocked request taken off."""
    watch = Watch()

    def local(url: str) -> bool:
        return url.startswith((origin, "data:", "blob:"))

    def on_request(request: Any) -> None:
        if not local(request.url):
            watch.foreign.append(request.url)

    def on_failed(request: Any) -> None:
        if request.failure == "csp" and request.url in watch.foreign:
            del watch.foreign[len(watch.foreign) - 1 - watch.foreign[::-1].index(request.url)]

    def on_response(response: Any) -> None:
        if response.status == 404 and response.url.startswith(origin):
            watch.missing.append(response.url)

    context.on("request", on_request)
    context.on("requestfailed", on_failed)
    context.on("response", on_response)
    context.on("dialog", lambda d: (watch.dialogs.append(d.message), d.dismiss()))
    return watch


@contextmanager
def served_site_context(browser: Any, site: Path, site_url: str,
                        **options: Any) -> Iterator[tuple[Any, Watch, Served]]:
    """A browser context (``options`` as for ``new_context``) for ``site`` served on a loopback
    port under the path of ``site_url``: visit ``watch.base + rel``, or ``rel`` alone (the
    context's ``base_url``: ``goto`` and ``wait_for_url`` resolve a relative URL against it)."""
    with served(site, site_url) as server:
        context = browser.new_context(base_url=server.base, **options)
        origin = "{0.scheme}://{0.netloc}/".format(urlsplit(server.base))
        watch = watched(context, origin)
        watch.base = server.base
        context.add_init_script(WATCH_SCRIPT)
        try:
            yield context, watch, server
        finally:
            context.close()


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
