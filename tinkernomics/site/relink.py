"""Macro HTML for Zensical: page-relative links rewritten relative to the page's source file.

The features write links relative to the page's URL (``Links``: ``../data-quality/`` on
``calculator/``), which MkDocs leaves alone in raw HTML. Zensical resolves EVERY relative
``href``/``src`` of a page, raw HTML included, against the page's markdown file, as MkDocs does
for markdown links only (zensical/zensical#258, fixed that way in #571): on ``calculator.md``
it would turn ``../data-quality/`` into ``../../data-quality/``. The Zensical side of the macros
adapter passes each macro's output through ``for_source_file``, which writes every such link
relative to the source file, so Zensical's resolution gives back the page-relative link and both
builds produce the same links. Links inside ``<noscript>`` are left as they are: an HTML parser
with scripting on reads a noscript element's content as text, so Zensical does not resolve them
and they stay relative to the page, as under MkDocs. Pure string work; no generator is imported.
"""

from __future__ import annotations

import posixpath
import re

_ATTRIBUTE = re.compile(r'(\s(?:href|src)=")([^"]*)(")')
_NOSCRIPT = re.compile(r"(<noscript\b.*?</noscript\s*>)", re.DOTALL | re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _is_relative_path(url: str) -> bool:
    return bool(url) and not url.startswith(("#", "/", "?")) and not _SCHEME.match(url)


def relink(url: str, page_url: str, source_path: str) -> str:
    """``url``, relative to the page at ``page_url``, made relative to ``source_path``.

    ``page_url`` is the page's directory URL (``algorithms/grpo/``, ``""`` for the home page);
    ``source_path`` its markdown file under docs/ (``algorithms/grpo.md``).
    """
    if not _is_relative_path(url):
        return url
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    path, rest = url[:cut], url[cut:]
    directory = path.endswith("/") or path in ("", ".", "..")
    target = posixpath.normpath(posixpath.join("/" + page_url, path))
    source_dir = posixpath.dirname("/" + source_path)
    moved = posixpath.relpath(target, source_dir)
    if directory:
        moved = "./" if moved == "." else moved.rstrip("/") + "/"
    return moved + rest


def _page_folder_stem(page_url: str, source_path: str) -> str | None:
    """``x`` for ``x.md`` served at ``x/`` (the usual case), "" when the page sits where its
    file does (``index.md``), None otherwise."""
    source_dir = posixpath.dirname(source_path)
    page = page_url.rstrip("/")
    if page == source_dir:
        return ""
    parent, _, stem = page.rpartition("/")
    return stem if parent == source_dir and stem else None


def _fast(url: str, stem: str) -> str:
    """``relink`` for a page at ``<stem>/`` of a file beside that folder: ``../a`` -> ``a``,
    ``a`` -> ``<stem>/a`` (same results, no path arithmetic: pages with 1,000s of links)."""
    if not _is_relative_path(url):
        return url
    if url.startswith("../"):
        return url[3:] or "./"
    if url.startswith("./"):
        url = url[2:]
    return f"{stem}/{url}" if url not in ("", ".") else f"{stem}/"


def for_source_file(html: str, page_url: str, source_path: str) -> str:
    """Every relative ``href``/``src`` attribute of ``html`` rewritten with ``relink``, outside
    ``<noscript>`` elements (see the module docstring)."""
    stem = _page_folder_stem(page_url, source_path)
    if stem == "":
        return html
    if stem is not None:
        def rewrite(m: re.Match[str]) -> str:
            return m.group(1) + _fast(m.group(2), stem) + m.group(3)
    else:
        def rewrite(m: re.Match[str]) -> str:
            return m.group(1) + relink(m.group(2), page_url, source_path) + m.group(3)
    parts = _NOSCRIPT.split(html)  # odd items are noscript elements, kept as they are
    return "".join(part if i % 2 else _ATTRIBUTE.sub(rewrite, part)
                   for i, part in enumerate(parts))
