"""MkDocs hooks (mkdocs.yml ``hooks:``): the search plugin parses only what it indexes, and
``mkdocs serve`` draws no chart PNGs.

Thin, like the macros adapter beside it: the work is ``tinkernomics.site.pages.searchcut``.
When a page's HTML is ready (``on_page_content``, after every other plugin's), the parts the
search index ignores are taken out; Material's search plugin indexes the rest in its
``on_page_context`` (default priority, 0), and after it, before the theme renders the page, the
parts go back. The page and the search index are what they would be
without these hooks; only the parsing of the excluded HTML is saved. Zensical has its own
search and does not run MkDocs hooks.

Chart PNGs serve link previews and image-only hosts, not a local preview: under ``mkdocs serve``
(``on_startup``'s command) the charts feature writes every other file and no PNG
(``$TINKERNOMICS_CHART_IMAGES``, unless set already: ``=1`` draws them while serving too).
"""

from __future__ import annotations

import os

from mkdocs.plugins import event_priority

from tinkernomics.site.charts.feature import CHART_IMAGES_ENV
from tinkernomics.site.pages.searchcut import cut, restore

_CUT: dict[str, list[str]] = {}
"""The parts cut from each page (by source path), held between the two hooks."""


@event_priority(-100)
def on_page_content(html, page, config, files):
    kept, _CUT[page.file.src_uri] = cut(html)
    return kept


@event_priority(-100)
def on_page_context(context, page, config, nav):
    page.content = restore(page.content, _CUT.pop(page.file.src_uri, []))
    return context


def on_startup(command, dirty):
    if command == "serve":
        os.environ.setdefault(CHART_IMAGES_ENV, "0")
