"""The theme adapter's header rule (rule 10 of ``theme.py``, which is full; the MkDocs hooks
load this file by path beside it, as they load ``theme.py``).

Material's header (``partials/header.html``, with the search dialog and the palette toggle,
included from ``site_overrides/partials/tn-header.html``) shows one thing of the page: its title,
in the element marked ``TOPIC``; everything else in it is the site's (name, logo, icons, the
search form and its translated labels), with links made relative to the page. So ``share_header``
(the hooks' ``on_env``) gives ``tn-header.html`` a wrapper, ``tn_header_once``, that renders
the header once for all the pages of one folder (the 1,000 algorithm pages: one rendering, not
1,000) and writes each page's title into that rendering's title slot. The slot is found, and
checked, in the first rendering: the element after ``TOPIC`` holds the title as Jinja wrote it
(MkDocs' theme environment does not autoescape: ``share_header`` shares nothing if it does),
and nothing else but whitespace; else each page of the folder renders its own header. Zensical
runs no hooks: there every page renders its own.

The same goes for the blocks of ``base.html`` that read nothing of the page but its URL (links
relative to it): ``config`` (the ``__config`` script: the site's base, features, translated
labels, the search worker's path), ``styles``, and ``main.html``'s own ``scripts`` (the
theme's bundle and ``extra_javascript``). ``main.html`` wraps each in
``tn_folder_once``, which renders it once for the pages of a folder. The ``config`` block's
JSON (``CONFIG``: Material writes it with ``tojson``, a space after every ``,`` and ``:``) is
written again without those spaces (``compact_config``; Material's bundle parses it as JSON):
42 bytes a page, for nothing, as the block is rendered once a folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

TOPIC = 'data-md-component="header-topic"'
"""The element of Material's header that holds the page's title (in a ``<span>``)."""


CONFIG = ('<script id="__config" type="application/json">', "</script>")
"""What holds Material's ``__config`` JSON in its ``config`` block."""
_HTML_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"}
"""What Jinja's ``tojson`` writes as escapes, so that the JSON never closes its script."""


def compact_config(block: str) -> str:
    """``block`` with its ``CONFIG`` JSON written without spaces between its tokens; the block
    as it is if it holds anything else, or JSON that does not parse."""
    start = block.find(CONFIG[0])
    end = block.find(CONFIG[1], start)
    if start < 0 or end < 0 or block.count(CONFIG[0]) != 1:
        return block
    inside = block[start + len(CONFIG[0]):end]
    try:
        data = json.loads(inside)
    except ValueError:
        return block
    text = json.dumps(data, separators=(",", ":"))
    for char, escape in _HTML_SAFE.items():
        text = text.replace(char, escape)
    return block[:start + len(CONFIG[0])] + text + block[end:]


def header_title(page: Any) -> str:
    """The title Material's header writes: ``page.meta.title`` if the page's front matter sets
    one, else ``page.title``, as ``{{ ... }}`` writes it without autoescape (``str``)."""
    meta = getattr(page, "meta", None)
    title = meta.get("title") if meta else None
    return str(title if title else page.title)


def title_slot(header: str, title: str) -> tuple[str, str] | None:
    """``header`` cut around ``title`` in its ``TOPIC`` element's ``<span>`` (the text before
    and after the title), or None if that ``<span>`` holds anything else, or ``TOPIC`` is not
    there exactly once."""
    at = header.find(TOPIC)
    if not title or at < 0 or header.find(TOPIC, at + 1) >= 0:
        return None
    span = header.find("<span", at)
    opened = header.find(">", span) + 1
    closed = header.find("</span>", opened)
    if span < 0 or opened <= 0 or closed < 0:
        return None
    inside = header[opened:closed]
    lead = inside[: len(inside) - len(inside.lstrip())]
    if inside.strip() != title or not inside.startswith(lead + title):
        return None
    return header[:opened] + lead, header[opened + len(lead) + len(title):]


def folder_of(page: Any) -> tuple[int, str]:
    """The depth and folder of the page's URL (``algorithms/grpo/`` -> 2, ``algorithms``): the
    pages of one folder get the same links, relative, to whatever lies outside it, as the
    header's links (home, assets) do."""
    url = str(page.url)
    return url.count("/"), url.rstrip("/").rpartition("/")[0]


def share_header(env: Any) -> None:
    """Rule 10: ``tn_header_once`` for this build's ``env`` (the hooks' ``on_env``)."""
    if env.autoescape is not False:
        return
    slots: dict[tuple[int, str], tuple[str, str] | None] = {}

    def header_once(page: Any, caller: Callable[[], str]) -> str:
        title = header_title(page)
        key = folder_of(page)
        if key not in slots:
            header = caller()
            slots[key] = title_slot(header, title)
            return header
        slot = slots[key]
        return caller() if slot is None else slot[0] + title + slot[1]

    env.globals["tn_header_once"] = header_once
    parts: dict[tuple[str, int, str], str] = {}

    def folder_once(page: Any, name: str, caller: Callable[[], str]) -> str:
        key = (name, *folder_of(page))
        if key not in parts:
            parts[key] = compact_config(caller()) if name == "config" else caller()
        return parts[key]

    env.globals["tn_folder_once"] = folder_once
