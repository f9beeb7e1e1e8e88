"""A Content-Security-Policy for every built HTML file (the last pass over the finished site).

Catalog text is sanitised where it becomes HTML (``tinkernomics.markup``); the policy is the
second wall, so that a missed case still cannot run script. It does not bless what it finds:
of a page's inline scripts only those the templates write (``knownscripts``: the theme's few,
the embed pages' theme script) get a SHA-256 hash; anything else inline, a ``<script>`` in
any namespace or an inline handler, matches no hash and does not run. Scripts run only from
the site itself besides; nothing is loaded from another host; no page frames anything
(``frame-src 'none'``), and a frame's ``srcdoc`` document inherits the page's policy anyway.
Inline data blocks (``type="application/json"``) are not scripts and need no hash.

Each page gets a ``<meta http-equiv="Content-Security-Policy">`` first in its ``<head>``, after
the charset declaration (a meta policy applies only to what follows it). A file without
``<head>`` (the compare view's column files, which ``compare.js`` fetches) gets a policy that
allows nothing to run, first in the file, where the parser puts it in the implied ``<head>``.

A policy cannot stop a ``<meta http-equiv="refresh">`` redirect, nor an injected policy or
other ``http-equiv`` directive; the templates write none but the policy itself. So before the
policy is added, every other ``http-equiv`` in a file, as a tokenizer could read an attribute
name (any case, anywhere: no regular expression can follow the HTML parser into foreign
content and back), is renamed ``data-tn-http-equiv``; ``srcdoc`` likewise. The pass returns
what it found: pages with inline scripts no template writes, and with renamed attributes.

Under ``mkdocs serve`` the live-reload script MkDocs injects into every response changes per
request and cannot be hashed: the serve build (``SERVE_ENV`` set) allows inline scripts instead,
and only there. A meta policy cannot set ``frame-ancestors``: embed pages stay embeddable.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tinkernomics.site.postbuild import inplace
from tinkernomics.site.postbuild.knownscripts import KnownScripts, inline_scripts, known_scripts

SERVE_ENV = "TINKERNOMICS_SERVE"
"""Set (to 1) by the MkDocs hooks when the command is ``mkdocs serve``."""

_HEAD = re.compile(r"<head\b[^>]*>\s*(?:<meta charset=[^>]*>)?", re.I)
_START = re.compile(r"\A\s*(?:<!doctype[^>]*>\s*)?(?:<html\b[^>]*>)?", re.I)
_OLD_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">')
_OLD_META_START = '<meta http-equiv="Content-Security-Policy"'
"""What a page holding ``_OLD_META`` holds (a fresh build's pages hold none: no substitution)."""
_NEUTRALISED = re.compile(r"(?<![\w-])(http-equiv|srcdoc)(?=[\s/>=]|$)", re.I)
"""An attribute name no template writes but the policy's own ``http-equiv``: wherever it is."""
_PREFILTER = (b"http-equ", b"rcdoc")
"""Parts of the two names, one of which is in the page's lower-cased UTF-8 wherever
``_NEUTRALISED`` matches (see ``neutralise``)."""

BASE_POLICY: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),
    ("style-src", "'self' 'unsafe-inline'"),  # Plotly and the theme set inline styles
    ("img-src", "'self' data:"),  # the theme's icons are data: URLs in its stylesheet
    ("font-src", "'self' data:"),
    ("connect-src", "'self'"),
    ("frame-src", "'none'"),  # no page frames anything (embeds are framed by other sites)
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
)
"""The policy's directives, before the page's script hashes are added."""

FRAGMENT_POLICY = ("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                   "base-uri 'none'; form-action 'none'")
"""The policy of a file without ``<head>`` (a fragment a script fetches): nothing runs."""

__all__ = ["FRAGMENT_POLICY", "SERVE_ENV", "PolicyReport", "add_policies", "inline_scripts",
           "neutralise", "policy", "script_hash", "with_policy"]


@functools.lru_cache(maxsize=256)
def script_hash(body: str) -> str:
    """The CSP source expression that allows one inline script. Only the scripts the templates
    write are hashed (``with_policy``), the same few on every page: each is hashed once a
    build, not once a page."""
    digest = hashlib.sha256(body.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(scripts: Iterable[str], *, serving: bool = False) -> str:
    """The policy for a page whose allowed inline scripts are ``scripts``."""
    inline = "'unsafe-inline'" if serving else " ".join(sorted({script_hash(s) for s in scripts}))
    parts = []
    for name, value in BASE_POLICY:
        if name == "script-src" and inline:
            value = f"{value} {inline}"
        parts.append(f"{name} {value}")
    return "; ".join(parts)


def _meta(content: str) -> str:
    return ('<meta http-equiv="Content-Security-Policy" content="'
            f'{html.escape(content, quote=False)}">')


def neutralise(page: str) -> tuple[str, int]:
    """``page`` with every ``http-equiv`` and ``srcdoc`` renamed (our old policy taken out
    first), and how many were.

    A page holding neither name skips the case-insensitive pattern, which costs more than the
    rest of the pass together: ``_PREFILTER``'s parts are in the page's UTF-8 bytes, ASCII
    letters lower-cased, wherever the pattern matches (no character but the ASCII pair matches
    their letters under ``re.I``; ``i`` and ``s`` have non-ASCII partners, so they are left
    out; the bytes of a non-ASCII character are never ASCII). Lower-casing bytes, not the
    text, skips Unicode's case tables: half the cost on pages with one non-ASCII character."""
    if _OLD_META_START in page:
        page = _OLD_META.sub("", page)
    low = page.encode("utf-8", "surrogatepass").lower()
    if not any(part in low for part in _PREFILTER):
        return page, 0
    return _NEUTRALISED.subn(r"data-tn-\1", page)


@dataclass
class PageResult:
    """One file with its policy, and what the pass found in it."""

    text: str
    blocked: int = 0
    renamed: int = 0


def with_policy(page: str, known: KnownScripts | None = None, *,
                serving: bool = False) -> PageResult:
    """``page`` with its policy first in ``<head>`` (after the charset declaration if there is
    one; a previous policy replaced), or first in a file without ``<head>``; only the inline
    scripts ``known`` allows (default: the package's and themes' templates) get hashes."""
    known = known or known_scripts()
    page, renamed = neutralise(page)
    scripts = inline_scripts(page)
    allowed = [s for s in scripts if known.allows(s)]
    head = _HEAD.search(page)
    if head is None:
        at = _START.match(page)
        cut = at.end() if at else 0
        return PageResult(f"{page[:cut]}{_meta(FRAGMENT_POLICY)}{page[cut:]}",
                          len(scripts), renamed)
    meta = _meta(policy(allowed, serving=serving))
    return PageResult(f"{page[:head.end()]}{meta}{page[head.end():]}",
                      len(scripts) - len(allowed), renamed)


@dataclass
class PolicyReport:
    """What the pass did: files rewritten, and the files with something it disarmed."""

    changed: int = 0
    blocked: dict[str, int] = field(default_factory=dict)
    renamed: dict[str, int] = field(default_factory=dict)

    def add(self, rel: str, result: PageResult) -> None:
        """Note what the policy found in the file at site path ``rel``."""
        if result.blocked:
            self.blocked[rel] = result.blocked
        if result.renamed:
            self.renamed[rel] = result.renamed

    def warnings(self) -> list[str]:
        """One line per file holding inline scripts no template writes or renamed attributes."""
        return ([f"{rel}: {n} inline script(s) no template writes (blocked by its policy)"
                 for rel, n in self.blocked.items()]
                + [f"{rel}: {n} http-equiv/srcdoc attribute(s) renamed (disarmed)"
                   for rel, n in self.renamed.items()])


def add_policies(site_dir: Path, known: KnownScripts | None = None,
                 before: Callable[[str, Path], str] | None = None,
                 finished: Mapping[str, PageResult] | None = None) -> PolicyReport:
    """Give every HTML file under ``site_dir`` its policy; report what was disarmed. ``before``
    transforms each page first (``postbuild.finish``: dates and previews), so every file is read
    and written once; a file is written only if it changed. ``finished``: files (absolute
    paths) given their policy already, with what it found, which are reported, not read."""
    serving = bool(os.environ.get(SERVE_ENV))
    report = PolicyReport()
    finished = finished or {}
    for path in sorted(site_dir.rglob("*.html")):
        result = finished.get(os.path.normpath(path))
        if result is None and inplace.left_over(path):
            continue  # a previous build's page this build did not write: deleted after it
        if result is None:
            original = path.read_text(encoding="utf-8")
            page = before(original, path) if before else original
            result = with_policy(page, known, serving=serving)
            if result.text != original:
                path.write_text(result.text, encoding="utf-8")
                report.changed += 1
        else:
            report.changed += 1  # written finished
        report.add(path.relative_to(site_dir).as_posix(), result)
    return report
