"""Test helpers for search ranking: Material's own search, in Chromium, over a built site.

``SearchTab`` serves the built folder over HTTP on 127.0.0.1 (Playwright's routing does not
answer a dedicated worker's requests, and Material's search runs in one; the pages' Content-
Security-Policy allows their own origin, whichever it is), types a query into Material's search
box and reads the results as the reader sees them: the search worker, the index, the site's
search settings (``mkdocs.yml``: separator, pipeline, page boosts) and the site's scripts all
take part. The page is loaded, and the worker builds its index, once: each query is typed into
the open search box after the previous one has been erased and its results have gone, its
last letter as a key the reader presses (Material searches on each key released).
"""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from helpers_site import load_theme

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
CLEARED = """() => document.querySelector('input[data-md-component=search-query]').value === ''
  && !(""" + ANSWERED + """)() && !document.querySelector('.md-search-result__list > li')"""
"""The box is empty and no result of an earlier query is shown (Material's placeholder is)."""
_THEME = load_theme()
WORKER_LOG = """(() => {
  const kinds = MESSAGES, data = DATA;
  const is = (message, kind) => !!message
    && Object.keys(kinds[kind]).every(k => message[k] === kinds[kind][k]);
  const log = window.__tn_search = {sent: [], answered: 0};
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (is(message, "query")) log.sent.push(message[data]);
    return post.apply(this, [message, ...rest]);
  };
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", e => { if (is(e.data, "result")) log.answered++; });
    }
  };
})();""".replace("MESSAGES", json.dumps(_THEME.SEARCH_MESSAGES)).replace(
    "DATA", json.dumps(_THEME.SEARCH_DATA))
"""An init script that only watches: the queries the page sends Material's search worker (as
search-terms.js leaves them) and how many results came back (the messages as the theme adapter,
macros/theme.py rule 5, knows them)."""
FINAL = """value => {
  const log = window.__tn_search;
  const words = text => text.toLowerCase().replace(/[+*]/g, "").split(/[\\s-]+/)
    .filter(Boolean).join(" ");
  return log.sent.length > 0 && log.answered === log.sent.length
    && words(log.sent[log.sent.length - 1]) === words(value);
}"""
"""The worker has answered every query sent, the last of them the box's whole text (the worker
answers each keystroke in turn; on a busy machine an answer for the first letters can stand
for longer than the settling interval)."""


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
        self.context.add_init_script(WORKER_LOG)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        self.opened = False
        self.found: dict[str, list[str]] = {}

    def results(self, query: str) -> list[str]:
        """Site-relative page paths of the result groups for ``query``, best first (the same
        query asked again gets the answer it got the first time)."""
        if query not in self.found:
            self.found[query] = self._search(query)
        return list(self.found[query])

    def _search(self, query: str) -> list[str]:
        page = self.page
        box = page.locator(QUERY)
        if not self.opened:
            page.goto(self.base, wait_until="load")
            box.click()
            page.wait_for_function(READY, timeout=TIMEOUT_MS)
            self.opened = True
        else:  # erase the last query as a reader does (Material reads the box on keyup)
            box.press("Control+a")
            box.press("Backspace")
        page.wait_for_function(CLEARED, timeout=TIMEOUT_MS)
        # The query's last key pressed, as a reader's: Material searches the box's text on each
        # key released. The letters before it are put in the box without a key (typing each
        # made the worker search every prefix of the query first, most of this file's CPU).
        box.fill(query[:-1])
        box.press_sequentially(query[-1])
        page.wait_for_function(FINAL, arg=query, timeout=TIMEOUT_MS)
        page.wait_for_function(ANSWERED, timeout=TIMEOUT_MS)
        hrefs = self._settled(query)
        base_path = urlsplit(self.base).path
        return [urlsplit(h).path[len(base_path):] for h in hrefs]

    def _settled(self, query: str) -> list[str]:
        """The result links once two reads 300 ms apart agree (the worker answers each
        keystroke; the last answer is the one for the whole query), the box holding
        ``query``."""
        read = f"""() => [
          ...Array.from(document.querySelectorAll('{RESULTS}'))
            .map(li => li.querySelector('a').href),
          document.querySelector('{META}').innerText,
          document.querySelector('{QUERY}').value]"""
        last: list[str] | None = None
        for _ in range(40):
            now = self.page.evaluate(read)
            assert now[-1] == query, f"the search box holds {now[-1]!r}, not {query!r}"
            if now == last:
                return now[:-2]
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
