"""The probe's attacks on built pages (``probe_hostile.py``): markup injected before the policy
pass, hostile addresses, and messages from other frames. Each returns name -> (outcome, where).

- Injected markup (tests/helpers_hostile.INJECTED, its markers turned into probe calls) goes
  into a built page's article before the policy pass, which then runs as the build runs it.
- Addresses: the site's scripts read the query and the fragment (the index's filters, the
  compare view's ids, the calculator's inputs, an embed's theme and WordPress secret).
- Messages: a host page from another site frames an embed page beside an ad frame; the ad
  asks ``resize.js`` for a 5,000,000 px frame, and the host posts hostile messages to the embed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers_hostile import INJECTED, MARK, PARENT_MARK, inject
from probe_browser import Findings, look, site_context
from probe_payloads import URLS, call

from tinkernomics.site.postbuild import csp
from tinkernomics.site.postbuild.knownscripts import KnownScripts

EXECUTED, POLICY, NEUTRALISED, PAGE_ERROR = "executed", "policy", "neutralised", "page error"
INJECTED_FIRST_ID, URL_FIRST_ID, MESSAGE_FIRST_ID = 94000, 95000, 96000
HOST, ADS = "https://host.example/", "https://ads.example/"
HUGE_PX = 100_000


def _judge(found: Findings, pid: int, label: str) -> str:
    if pid in found.ran or pid in found.left or label in found.dialogs:
        return EXECUTED
    if pid in found.live or label in found.violations:
        return POLICY
    return PAGE_ERROR if label in found.errors else NEUTRALISED


def injected(browser: Any, site: Path, base: str, rel: str,
             known: KnownScripts) -> dict[str, tuple[str, str]]:
    """Each INJECTED payload in ``rel`` before the pass, opened at the site URL."""
    html = (site / rel).read_text(encoding="utf-8")
    out: dict[str, tuple[str, str]] = {}
    with site_context(browser, site, base) as (context, watch, calls):
        page = context.new_page()
        for i, (name, markup) in enumerate(sorted(INJECTED.items())):
            pid = INJECTED_FIRST_ID + i
            markup = markup.replace(MARK, call(pid)).replace(PARENT_MARK, call(pid))
            result = csp.with_policy(inject(html, markup), known)
            url = f"{base}tn-probe-{pid}/"
            context.route(url, _answer(result.text))
            found, foreign = Findings(), len(watch.foreign)
            look(page, url, watch, calls, found, name)
            context.unroute(url)
            if watch.foreign[foreign:] or page.url != url:
                found.left[pid] = name
            outcome = _judge(found, pid, name)
            if outcome == POLICY or (outcome == NEUTRALISED and result.blocked):
                outcome = POLICY
            if outcome == NEUTRALISED and result.renamed:
                outcome = f"{NEUTRALISED} (renamed by the pass)"
            out[name] = (outcome, f"{rel} + {name}")
            page.goto("about:blank")
    return out


def _answer(body: str) -> Any:
    return lambda route: route.fulfill(status=200, body=body, content_type="text/html")


def addresses(browser: Any, site: Path, base: str) -> dict[str, tuple[str, str]]:
    """Each URLS address, opened in a fresh document."""
    chart = next((p.parent.name for p in sorted((site / "embed").glob("*/index.html"))), "x")
    out: dict[str, tuple[str, str]] = {}
    with site_context(browser, site, base) as (context, watch, calls):
        page = context.new_page()
        for i, (name, template) in enumerate(sorted(URLS.items())):
            pid = URL_FIRST_ID + i
            url = base + template.format(M=call(pid), CHART=chart)
            found = Findings()
            look(page, url, watch, calls, found, name)
            out[name] = (_judge(found, pid, name), "; ".join(found.errors.get(name, [])) or url)
            page.goto("about:blank")
    return out


def messages(browser: Any, site: Path, base: str) -> dict[str, tuple[str, str]]:
    """A host page from another site with an embed and an ad frame (see the module doc)."""
    chart = next((p.parent.name for p in sorted((site / "embed").glob("*/index.html"))), None)
    if chart is None:
        return {"resize-height-from-any-frame": ("unjudged", "no embed page in the site")}
    pid = MESSAGE_FIRST_ID
    host = (f'<!doctype html><title>host</title><iframe id="ad" src="{ADS}frame.html"></iframe>'
            f'<iframe id="embed" src="{base}embed/{chart}/"></iframe>'
            f'<script src="{base}embed/resize.js"></script>')
    ad = ('<!doctype html><script>setInterval(function () { parent.postMessage('
          '{type: "tinkernomics:height", height: 5000000}, "*"); }, 50);</script>')
    hostile = [{"type": "tinkernomics:color-scheme", "value": f"<img src=x onerror={call(pid)}>"},
               {"type": "tinkernomics:ask"}, f"<img src=x onerror={call(pid)}>",
               {"type": "tinkernomics:height", "height": f"1;{call(pid)}"}]
    with site_context(browser, site, base) as (context, _watch, calls):
        context.route(HOST + "**", _answer(host))
        context.route(ADS + "**", _answer(ad))
        page = context.new_page()
        page.goto(HOST, wait_until="load")
        page.wait_for_timeout(1000)
        height = page.evaluate("parseFloat(getComputedStyle(document.getElementById('ad')).height)")
        for message in hostile:
            page.evaluate("m => document.getElementById('embed').contentWindow.postMessage(m, '*')",
                          message)
        page.wait_for_timeout(500)
    return {
        "resize-height-from-any-frame": (EXECUTED if height > HUGE_PX else NEUTRALISED,
                                         f"an ad frame's height became {height:.0f} px"),
        "hostile-messages-to-embed": (EXECUTED if pid in calls else NEUTRALISED,
                                      f"{len(hostile)} messages posted to embed/{chart}/"),
    }
