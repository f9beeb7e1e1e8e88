"""A Content-Security-Policy for every built page (a pass over the finished HTML).

Catalog text is sanitised where it becomes HTML (``tinkernomics.markup``); the policy is the
second wall, so that a missed case still cannot run script. Each page gets a ``<meta
http-equiv="Content-Security-Policy">`` first in its ``<head>``, after the charset
declaration (a meta policy applies only to what follows it). Scripts run only from the site
itself, plus the page's own inline scripts, each allowed by its SHA-256 hash (the theme's few
inline scripts, the embed pages' sizing and theme scripts). Inline data blocks
(``type="application/json"``) are not scripts and need no hash. Nothing is loaded from another host.

Under ``mkdocs serve`` the live-reload script MkDocs injects into every response changes per
request and cannot be hashed: the serve build (``SERVE_ENV`` set) allows inline scripts instead,
and only there. A meta policy cannot set ``frame-ancestors``: embed pages stay embeddable.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
import re
from collections.abc import Iterable
from pathlib import Path

SERVE_ENV = "TINKERNOMICS_SERVE"
"""Set (to 1) by the MkDocs hooks when the command is ``mkdocs serve``."""

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_SRC = re.compile(r"\ssrc\s*=", re.I)
_TYPE = re.compile(r"""\stype\s*=\s*["']?([^"'\s>]+)""", re.I)
_JS_TYPES = frozenset({"", "text/javascript", "application/javascript", "module"})
_HEAD = re.compile(r"<head\b[^>]*>\s*(?:<meta charset=[^>]*>)?", re.I)
_OLD_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">')

BASE_POLICY: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),
    ("style-src", "'self' 'unsafe-inline'"),  # Plotly and the theme set inline styles
    ("img-src", "'self' data:"),  # the theme's icons are data: URLs in its stylesheet
    ("font-src", "'self' data:"),
    ("connect-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
)
"""The policy's directives, before the page's script hashes are added."""


def inline_scripts(page: str) -> list[str]:
    """The text of every inline script the browser would run (no ``src``, a JavaScript type)."""
    found = []
    for match in _SCRIPT.finditer(page):
        attrs, body = match.group(1), match.group(2)
        kind = m.group(1).lower() if (m := _TYPE.search(attrs)) else ""
        if not _SRC.search(attrs) and kind in _JS_TYPES:
            found.append(body)
    return found


def script_hash(body: str) -> str:
    """The CSP source expression that allows one inline script."""
    digest = hashlib.sha256(body.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(scripts: Iterable[str], *, serving: bool = False) -> str:
    """The policy for a page with these inline scripts."""
    inline = "'unsafe-inline'" if serving else " ".join(sorted({script_hash(s) for s in scripts}))
    parts = []
    for name, value in BASE_POLICY:
        if name == "script-src" and inline:
            value = f"{value} {inline}"
        parts.append(f"{name} {value}")
    return "; ".join(parts)


def with_policy(page: str, *, serving: bool = False) -> str:
    """``page`` with its policy first in ``<head>``, after the charset declaration if there is
    one, before any script (a previous policy replaced);
    a page without ``<head>`` (a redirect, a fragment) is returned as it is."""
    page = _OLD_META.sub("", page)
    head = _HEAD.search(page)
    if head is None:
        return page
    meta = ('<meta http-equiv="Content-Security-Policy" content="'
            f'{html.escape(policy(inline_scripts(page), serving=serving), quote=False)}">')
    return f"{page[:head.end()]}{meta}{page[head.end():]}"


def add_policies(site_dir: Path) -> int:
    """Give every HTML page under ``site_dir`` its policy; return how many pages changed."""
    serving = bool(os.environ.get(SERVE_ENV))
    changed = 0
    for path in sorted(site_dir.rglob("*.html")):
        page = path.read_text(encoding="utf-8")
        updated = with_policy(page, serving=serving)
        if updated != page:
            path.write_text(updated, encoding="utf-8")
            changed += 1
    return changed
