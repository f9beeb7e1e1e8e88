"""Test helpers for search ranking: Material's own search, in Chromium, over a built site.

``SearchTab`` serves the built folder over HTTP on 127.0.0.1 (Playwright's routing does not
answer a dedicated worker's requests, and Material's search runs in one; the pages' Content-
Security-Policy allows their own origin, whichever it is), types a query into Material's search
box and reads the results as the reader sees them: the search worker, the index, the site's
search settings (``mkdocs.yml``: separator, pipeline, page boosts) and the site's scripts all
take part.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

TIMEOUT_MS = 30_000
QUERY = "input[data-md-component=search-query]"
RESULTS = ".md-search-result__list > li"
META = ".md-search-result__meta"
READY = """() => {
  const meta = document.querySelector('.md-search-result__meta');
  return meta && !/initializ/i.test(meta.textContent);
}"""
"""Material writes "Initializing search" until its worker has built the index."""
ANSWERED = """() => /matching|no match/i.test(
  (document.querySelector('.md-search-result__meta') || {}).textContent || '')"""
"""The result count ("N matching documents", "No matching documents") is shown."""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


class SearchTab:
    """One browser context on the built site (served from ``site``) with the search box."""

    def __init__(self, browser: Any, site: Path) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(_Quiet, directory=str(site)))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))

    def results(self, query: str) -> list[str]:
        """Site-relative page paths of the result groups for ``query``, best first."""
        page = self.page
        page.goto(self.base, wait_until="load")
        page.locator(QUERY).click()
        page.wait_for_function(READY, timeout=TIMEOUT_MS)
        page.locator(QUERY).press_sequentially(query)  # keystrokes, as a reader types
        page.wait_for_function(ANSWERED, timeout=TIMEOUT_MS)
        hrefs = self._settled()
        base_path = urlsplit(self.base).path
        return [urlsplit(h).path[len(base_path):] for h in hrefs]

    def _settled(self) -> list[str]:
        """The result links once two reads 300 ms apart agree (the worker answers each
        keystroke; the last answer is the one for the whole query)."""
        read = "items => items.map(li => li.querySelector('a').href)"
        last: list[str] | None = None
        for _ in range(40):
            now = self.page.eval_on_selector_all(RESULTS, read)
            now.append(self.page.inner_text(META))
            if now == last:
                return now[:-1]
            last = now
            self.page.wait_for_timeout(300)
        raise AssertionError(f"search results never settled: {last}")

    def first(self, query: str) -> str:
        """The page of the first result for ``query`` ('' when nothing matches)."""
        found = self.results(query)
        return found[0] if found else ""

    def close(self) -> None:
        self.context.close()
        self.server.shutdown()
