"""Indentation left out of the built pages (pipeline step 6, after the pages; site size).

Material's templates indent their markup: about 3.5 KB of every page is runs of spaces and
newlines between two tags, which a browser reads as one space. ``compact`` turns each such run
into a single newline, so the page renders exactly as before. Whitespace in text, inside tags
(attribute values) and anywhere in ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>``
(where it can matter) is left alone. It runs in the same pass that adds the link previews
(``previews.add_previews``), so no page is read or written twice.
"""

from __future__ import annotations

import re

_KEPT = re.compile(r"<(pre|textarea|script|style)\b.*?</\1\s*>", re.S | re.I)
"""Elements whose whitespace may matter: left byte for byte."""
_BETWEEN_TAGS = re.compile(r">\s{2,}<")
"""Two or more whitespace characters between the end of one tag and the start of the next."""


def _squeeze(html: str) -> str:
    """Squeeze the runs of one stretch between kept elements. The stretch borders a tag at each
    end (a kept element's ``>`` or ``<``, or the page's edge), hence the two sentinels."""
    return _BETWEEN_TAGS.sub(">\n<", f">{html}<")[1:-1]


def compact(page: str) -> str:
    """``page`` with every whitespace run between two tags cut to one newline, outside the
    elements in ``_KEPT``."""
    parts: list[str] = []
    last = 0
    for match in _KEPT.finditer(page):
        parts.append(_squeeze(page[last:match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(_squeeze(page[last:]))
    return "".join(parts)
