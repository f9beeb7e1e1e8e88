"""One headless Chromium for every browser test (Debian's package; never a downloaded build):
``chromium-headless-shell``, Chromium's headless shell, which Playwright itself runs for headless
Chromium. It renders with the same Blink as the full browser and costs about a fifth less CPU a
page load than the full browser's headless mode, the suite's largest cost.

A missing Chromium fails the browser tests instead of skipping them: `make test` installs it
(`make browser`), and a skipped browser test would hide a blank chart.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers_site import load_theme

CHROMIUM = Path("/usr/bin/chromium-headless-shell")
"""Debian's ``chromium-headless-shell`` package (`make browser` installs it)."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
"""As root in a sandbox with a closed network: no sandboxing, no background connections."""


_THEME = load_theme()
NO_SEARCH_INDEX = """(() => {
  const setup = SETUP, data = DATA;
  const send = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    const index = message && message[data];
    if (index && Array.isArray(index.docs)
        && Object.keys(setup).every(k => message[k] === setup[k])) {
      message = {...message, [data]: {...index, docs: []}};
    }
    return send.call(this, message, ...rest);
  };
})();""".replace("SETUP", json.dumps(_THEME.SEARCH_MESSAGES["setup"])).replace(
    "DATA", json.dumps(_THEME.SEARCH_DATA))
"""An init script: Material's search worker gets the site's search index without its pages
(its setup message, macros/theme.py rule 5, carries the whole index; the worker builds a lunr
index of every page on each full page load). For tabs where nothing searches (the calculator,
compare, reader and chart modules, the whole-site sweeps); Material's search over the real
index has its own tests (test_search_ranking.py and the search dialog's axe check)."""

SCRIPTS_READY_JS = """() => [...document.querySelectorAll(
    '[data-tn-calc], [data-tn-compare], .tn-algorithms table')]
    .every(e => e.matches('[data-tn-ready], [data-tn-error]'))"""
"""The page's own scripts have done what they do on a load: the calculator (its data fetched),
the compare view and the algorithms table (every row it pages shown: its rows appear a few a
frame after the load event) mark themselves ready. Sweeps that read a page wait for it, or
they would read the index with its rows still held back."""


def wait_scripts_ready(page: Any) -> None:
    page.wait_for_function(SCRIPTS_READY_JS)


def launch_chromium() -> Iterator[Any]:
    """Yield a launched Playwright browser; close it afterwards."""
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is not installed: run `make browser` (`make test` does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def new_tab(browser: Any, **options: Any) -> Iterator[Any]:
    """A page in a fresh browser context (``options`` as for ``new_context``: viewport,
    color_scheme, java_script_enabled...); the context is closed afterwards."""
    context = browser.new_context(**options)
    try:
        yield context.new_page()
    finally:
        context.close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without logging each request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


SHUTDOWN_POLL_S = 0.02
"""How often a test server's loop checks whether it is to stop: ``shutdown`` waits for that
check, and at the standard library's 0.5 s every host page, module and fixture server of the
suite made its test wait half a second on teardown (about 20 worker-seconds a run)."""


def start_server(directory: Path | str,
                 handler: type[http.server.SimpleHTTPRequestHandler] = QuietHandler
                 ) -> http.server.ThreadingHTTPServer:
    """``directory`` served by ``handler`` on a free loopback port, in a daemon thread; stop
    it with ``shutdown`` (which returns within ``SHUTDOWN_POLL_S``)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_S},
                     daemon=True).start()
    return server


@contextmanager
def served_folder(directory: Path | str) -> Iterator[str]:
    """``directory`` served on a free loopback port: yields its base URL; stopped afterwards."""
    server = start_server(directory)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
