"""Finished HTML passed through Markdown untouched (pipeline step 6, rendering speed).

The page macros return markdown: headings as markdown (for the table of contents) around HTML
blocks that are already final. Python-Markdown would parse every such block again with its HTML
parser (``md_in_html`` looks inside each one for ``markdown`` attributes), which on a large
catalog cost more than rendering it. ``raw_block(html)`` wraps a block in two marker comments;
``RawHtmlExtension`` (``tinkernomics.site.pages.rawhtml`` in mkdocs.yml) stores each marked block
in Markdown's HTML stash before the HTML parser runs, so it reaches the page as written.

Without the extension the markers are plain HTML comments and the block is parsed as usual:
the page looks the same, only slower. A marked block must be complete, block-level HTML
(it starts with a tag such as ``<div>``) with no markdown inside.

Whole pages without Markdown (``convert``, issue 47): an algorithm page's body is one macro call
whose output is headings (``## Text {#anchor}``, optionally ``data-search-exclude``) around HTML
blocks marked by ``raw_block``. For such a page Python-Markdown only turns the headings into ``<hN
id>`` elements with a permalink and copies the blocks: ``convert`` does that directly and gives
what the generator needs besides the HTML, the table of contents (nested heading tokens,
Python-Markdown's ``toc_tokens`` shape) and the title (the first ``#`` heading). The MkDocs hooks
(``macros/mkdocs_hooks.py``) use it in place of ``Page.render`` for algorithm pages; Zensical
renders every page itself.

The output is byte for byte what Python-Markdown makes of the same text with the site's
extensions (``tests/test_site_rawpage.py`` compares both on every algorithm page of the fixture
catalog). ``convert`` returns None, and the page goes through Markdown as before, for anything
outside that narrow shape: a line that is neither blank, a heading nor inside a marked block; a
heading whose text holds anything but letters, digits, spaces and plain punctuation (Markdown
would read ``*``, ``_``, `````, ``&``, ``<``, ``\\``...); a block that does not start with a
block-level tag; text Markdown's first steps would change (tabs, carriage returns, control
characters, whitespace-only lines, snippet markers). A missed fast path costs time, never a byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.extensions.toc import nest_toc_tokens, slugify, unique
from markdown.preprocessors import Preprocessor
from markdown.util import BLOCK_LEVEL_ELEMENTS

START = "<!--tn:raw-->"
END = "<!--tn:/raw-->"


def raw_block(html: str) -> str:
    """``html`` (one or more complete block-level elements) marked to skip Markdown parsing."""
    return f"{START}\n{html.strip()}\n{END}"


class _RawBlockPreprocessor(Preprocessor):
    """Replace each marked block by an HTML-stash placeholder in its own paragraph."""

    def run(self, lines: list[str]) -> list[str]:
        if START not in lines:
            return lines
        out: list[str] = []
        block: list[str] | None = None
        for line in lines:
            if block is None:
                if line == START:
                    block = []
                else:
                    out.append(line)
            elif line == END:
                out.extend(["", self.md.htmlStash.store("\n".join(block)), ""])
                block = None
            else:
                block.append(line)
        if block is not None:  # unclosed: leave the text to the usual parsing
            out.extend([START, *block])
        return out


class RawHtmlExtension(Extension):
    """Stash marked HTML blocks before Markdown's HTML block parser (priority 20) sees them."""

    def extendMarkdown(self, md: Markdown) -> None:  # Python-Markdown API name
        # Priority 29: after snippets (32) and whitespace normalisation (30), whose STX/ETX removal
        # would break the stash placeholders, and before fenced code (25, pymdownx.superfences:
        # scanning every raw line for fences cost about 0.4 ms a page) and html_block (20).
        md.preprocessors.register(_RawBlockPreprocessor(md), "tinkernomics_raw_html", 29)


def makeExtension(**kwargs: object) -> RawHtmlExtension:  # Python-Markdown API name
    return RawHtmlExtension(**kwargs)


# --------------------------------------------------------------------------- whole pages
_HEADING = re.compile(r"(#{1,6}) ([A-Za-z0-9(][A-Za-z0-9 ,.:;?!'()+/=%-]*?)"
                      r"(?: \{#([A-Za-z][A-Za-z0-9_-]*)( data-search-exclude)?\})?")
"""A heading line the fast path takes: plain text, an optional ``{#anchor}`` (attr_list)."""
_TEXT_END = re.compile(r"[A-Za-z0-9.:?!')%]")
_FIRST_TAG = re.compile(r"^<\/?([^ >]+)")
"""Python-Markdown's test for a block-level raw block (``RawHtmlPostprocessor``)."""
_CONTROL = re.compile(r"[\t\r\x00-\x08\x0b-\x1f]")
_BLANKISH = re.compile(r"\n +\n")
_SNIPPET = "--8<--"
"""What Markdown's preprocessors before the raw blocks are stashed would change: tabs, carriage
returns and control characters, whitespace-only lines, snippet markers."""
PERMALINK = '<a class="headerlink" href="#{0}" title="Permanent link">&para;</a>'


@dataclass(frozen=True)
class RawPage:
    """A page converted without Markdown: its HTML, nested heading tokens, and title."""

    html: str
    toc_tokens: list[dict[str, Any]]
    title: str | None
    anchor_ids: set[str]


@dataclass
class _Heading:
    level: int
    text: str
    anchor: str | None
    excluded: bool


def convert(markdown: str) -> RawPage | None:
    """``markdown`` as Python-Markdown would render it, or None if it is not of the simple shape
    algorithm pages have (module docstring)."""
    if _SNIPPET in markdown or _BLANKISH.search(markdown):
        return None
    lines = markdown.split("\n")
    if not all(line.isprintable() for line in lines) and _CONTROL.search(markdown):
        return None  # (a line of printable characters holds no control character)
    parts = _parts(lines)
    if parts is None or not parts:
        return None
    headings = [p for p in parts if isinstance(p, _Heading)]
    used = {h.anchor for h in headings if h.anchor}
    if len(used) != sum(1 for h in headings if h.anchor):
        return None  # a repeated explicit id: leave it to Markdown
    for h in headings:
        if h.anchor is None:
            h.anchor = unique(slugify(h.text, "-"), used)
    html = "\n".join(_heading_html(p) if isinstance(p, _Heading) else p for p in parts)
    tokens = [{"level": h.level, "id": h.anchor, "name": h.text} for h in headings]
    title = next((h.text for h in headings[:1] if h.level == 1 and parts[0] is h), None)
    return RawPage(html, nest_toc_tokens(tokens), title, {h.anchor or "" for h in headings})


def _parts(lines: list[str]) -> list[_Heading | str] | None:
    """The page's headings and raw blocks in order; None for anything else."""
    parts: list[_Heading | str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        if line == START:
            try:
                end = lines.index(END, at + 1)
            except ValueError:  # unclosed
                return None
            html = "\n".join(lines[at + 1:end])
            if not _block_level(html):
                return None
            parts.append(html)
            at = end
        elif line:
            heading = _heading(line)
            if heading is None:
                return None
            parts.append(heading)
        at += 1
    return parts


def _heading(line: str) -> _Heading | None:
    match = _HEADING.fullmatch(line)
    if match is None:
        return None
    text = match.group(2)
    if "  " in text or not _TEXT_END.fullmatch(text[-1]):
        return None
    return _Heading(len(match.group(1)), text, match.group(3), bool(match.group(4)))


def _block_level(html: str) -> bool:
    match = _FIRST_TAG.match(html)
    if match is None:
        return False
    tag = match.group(1)
    return tag[0] in "!?@%" or tag.lower().rstrip("/") in BLOCK_LEVEL_ELEMENTS


def _heading_html(h: _Heading) -> str:
    excluded = " data-search-exclude" if h.excluded else ""
    return (f'<h{h.level}{excluded} id="{h.anchor}">{h.text}'
            f"{PERMALINK.format(h.anchor)}</h{h.level}>")
