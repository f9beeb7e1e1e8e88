"""The probe's browser side (``probe_hostile.py``): built pages opened in headless Chromium.

A context answers the site URL from the built folder (tests/helpers_security.routed_site) and
refuses every other host, recording the attempt. ``__tn_probe(ID)`` is a function Playwright
exposes in every frame of every page, so a payload that runs is credited to its ID even from a
cross-origin frame. After each page has settled, every frame's DOM is read for payloads that
are live but did not run: a script element, an ``on*`` handler, a ``javascript:``/``data:``
address or a ``srcdoc`` holding a probe call, a refresh; such a payload was stopped only by the
Content-Security-Policy. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers_browser import NO_SEARCH_INDEX, launch_chromium
from helpers_security import CHARTS_POINTED_AT, SETTLED_JS, routed_site

LIVE_JS = r"""() => {
  const out = new Set(), re = /__tn_probe\((\d+)\)/g;
  const grab = t => { for (const m of String(t || '').matchAll(re)) out.add(+m[1]); };
  const decoded = v => {
    try { return atob(v.split('base64,')[1] || ''); } catch (e) { return ''; }
  };
  const scan = doc => {
    doc.querySelectorAll('script').forEach(s => grab(s.textContent));
    for (const el of doc.querySelectorAll('*')) {
      for (const a of el.attributes) {
        const n = a.name.toLowerCase(), v = a.value, bare = v.replace(/[\s\u0000-\u001f]/g, '');
        if (n.startsWith('on') || n === 'srcdoc') grab(v);
        else if (/^(javascript|vbscript|data):/i.test(bare)) { grab(v); grab(decoded(bare)); }
      }
      if (el.localName === 'meta' && /refresh/i.test(el.getAttribute('http-equiv') || '')) {
        for (const m of (el.content || '').matchAll(/tn-redirect-(\d+)/g)) out.add(+m[1]);
      }
      const to = el.src || el.href;  // resolved: what the browser would request
      if (typeof to === 'string' && /^\w+:\/\/evil\.example\//.test(to)) {
        for (const m of to.matchAll(/evil\.example\/\??(\d+)/g)) out.add(+m[1]);
      }
      if (el.localName === 'iframe') {
        try { if (el.contentDocument) scan(el.contentDocument); } catch (e) { /* other origin */ }
      }
    }
  };
  scan(document);
  return [...out];
}"""
"""Probe IDs of payloads live in the page's DOM and its same-origin frames' (they would run or
load without a policy)."""
WIDE_PX = 20_000
"""A page this much wider than its window was blown up by its content."""
REDIRECTED = re.compile(r"tn-redirect-(\d+)")
"""A same-site request a refresh payload asks for."""
OFF_SITE = re.compile(r"^\w+://evil\.example/\??(\d+)")
"""A request to the other host an image or style payload names."""
REFRESH_GRACE_MS = 300
LOAD_MS, SETTLE_MS, HOVER_MS = 15_000, 8_000, 2_000
"""Bounds on a page's load and on its scripts' getting ready (a hostile page may never be)."""


@dataclass
class Findings:
    """What the pages did, by probe ID, and page-level trouble."""

    ran: dict[int, str] = field(default_factory=dict)
    live: dict[int, str] = field(default_factory=dict)
    left: dict[int, str] = field(default_factory=dict)  # a request for a redirect or off-site
    wide: list[str] = field(default_factory=list)
    errors: dict[str, list[str]] = field(default_factory=dict)  # uncaught, from the page
    dialogs: dict[str, list[str]] = field(default_factory=dict)
    violations: dict[str, list[str]] = field(default_factory=dict)  # the policy's reports
    unsettled: dict[str, str] = field(default_factory=dict)  # the probe's own trouble


chromium = contextmanager(launch_chromium)
"""Debian's headless Chromium, as the tests launch it (closed on leaving the block)."""


@contextmanager
def site_context(browser: Any, site: Path, base: str) -> Iterator[tuple[Any, Any, list[int]]]:
    """A routed context for ``site`` at ``base`` with ``__tn_probe`` in every frame; yields the
    context, its watch and the list the probe calls go to."""
    calls: list[int] = []
    with routed_site(browser, site, base) as (context, watch):
        context.add_init_script(NO_SEARCH_INDEX)
        context.expose_function("__tn_probe", lambda pid: calls.append(int(pid)))
        yield context, watch, calls


def look(page: Any, url: str, watch: Any, calls: list[int], found: Findings,
         label: str) -> None:
    """Open ``url``, let it settle, and add what it did to ``found`` under ``label``."""
    since, missing, foreign = len(calls), len(watch.missing), len(watch.foreign)
    errors: list[str] = []

    def on_error(err: Any) -> None:
        errors.append(str(err))

    page.on("pageerror", on_error)
    dialogs = len(watch.dialogs)
    try:
        _settle(page, url)
    except Exception as err:  # a page that never settles is noted, then read as it is
        found.unsettled[label] = str(err).splitlines()[0]
    try:
        page.wait_for_timeout(REFRESH_GRACE_MS)
        for pid in page.evaluate(LIVE_JS):  # never a frame's own evaluate: a frame the
            found.live.setdefault(pid, label)  # policy blocked never gets a context to wait on
        width = page.evaluate("document.scrollingElement.scrollWidth - innerWidth")
        if width > WIDE_PX:
            found.wide.append(label)
        if seen := page.evaluate("window.__tn_violations || []"):
            found.violations[label] = seen
    except Exception as err:  # a page gone (a redirect) is read no further
        found.unsettled.setdefault(label, str(err).splitlines()[0])
    finally:
        page.remove_listener("pageerror", on_error)
    for pid in calls[since:]:
        found.ran.setdefault(pid, label)
    asked = [REDIRECTED.search(u) for u in watch.missing[missing:]]
    asked += [OFF_SITE.search(u) for u in watch.foreign[foreign:]]
    for m in filter(None, asked):
        found.left.setdefault(int(m.group(1)), label)
    if errors:
        found.errors[label] = [(e.splitlines() or [""])[0] for e in errors]
    if watch.dialogs[dialogs:]:
        found.dialogs[label] = watch.dialogs[dialogs:]


def _settle(page: Any, url: str) -> None:
    """Open ``url``, point at its first charts, wait for its scripts (all bounded)."""
    page.goto(url, wait_until="load", timeout=LOAD_MS)
    for chart in page.locator("[data-tn-chart].tn-chart--armed").all()[:CHARTS_POINTED_AT]:
        with contextlib.suppress(Exception):  # a chart the page hides is not pointed at
            chart.locator(".tn-chart__frame").hover(timeout=HOVER_MS)
    page.wait_for_function(SETTLED_JS, arg=CHARTS_POINTED_AT, timeout=SETTLE_MS)


def scan_site(browser: Any, site: Path, base: str) -> Findings:
    """Every HTML file of the built site, fragments included, opened in one tab."""
    found = Findings()
    with site_context(browser, site, base) as (context, watch, calls):
        page = context.new_page()
        for path in sorted(site.rglob("*.html")):
            rel = path.relative_to(site).as_posix()
            url = base + (rel.removesuffix("index.html") if rel.endswith("index.html") else rel)
            look(page, url, watch, calls, found, rel)
            if page.url != url:
                page.goto("about:blank")
    return found
