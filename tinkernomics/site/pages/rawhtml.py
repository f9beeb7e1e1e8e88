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
"""

from __future__ import annotations

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

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
