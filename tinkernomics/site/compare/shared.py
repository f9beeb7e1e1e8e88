"""Pieces of HTML the compare view's columns share, held once (pipeline step 6, compare).

A column (the ``"column"`` of ``calculator/algorithms/<id>.json``, see ``compare.feature``)
carries, besides what is its algorithm's own, markup that other columns carry too: a
reference's citation with its hover text, a figure with its note and locator, a Tinker mapping,
a whole cell. Issue 47: at 1,000 algorithms those repeats were most of the 9 MB of columns.
``share`` takes every such piece that two or more columns hold out of them into one list,
written beside the page as ``compare/shared.json`` (``view.SHARED``), and leaves in its place a
reference to it, ``<tn-s data-k="<n>"></tn-s>`` (an empty custom element: the column stays
valid HTML). ``compare.js`` puts the pieces back into the column's text before it parses it.

A piece is always a whole element or a cell's whole content, as the templates write them
(``PIECES``, largest first; a smaller piece is looked for only in what the larger ones left):
a cell's content, a figure (``tn-fig``), then a citation, a locator, a figure's value, a badge
and a prose block. Pieces shorter than ``MIN_CHARS`` stay where they are. Catalog text is
escaped where it becomes HTML, so a ``<`` in a column file always opens a tag the templates
wrote: no catalog text can spell a reference (``share`` refuses a file that holds one already).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

REF_TAG = "tn-s"
"""The reference's element name (a custom element: any content model allows it)."""
MIN_CHARS = 48
"""Pieces shorter than this stay in the files (a reference costs about 25 characters)."""

_FIGURE_INSIDE = r"""(?:[^<]++|<(?!/?span[\s>])|<span\b[^>]*+>[^<]*+</span>)*+"""
PIECES: tuple[re.Pattern[str], ...] = (
    re.compile(r"<td>((?:[^<]++|<(?!/?td[\s>]))++)</td>"),
    re.compile(rf'(<span class="tn-fig(?: tn-fig--[\w-]+)?">{_FIGURE_INSIDE}</span>)'),
    re.compile(r'(<a class="tn-cite"[^>]*+>[^<]*+</a>'
               r'|<span class="tn-(?:loc|fig__value)\b[^"]*+"[^>]*+>[^<]*+</span>'
               r'|<a class="tn-badge\b[^"]*+"[^>]*+>[^<]*+</a>'
               r'|<div class="tn-compare__prose">(?:[^<]++|<(?!/?div[\s>]))*+</div>)'),
)
"""The pieces looked for, in order (group 1: the piece): a cell's content (no nested cell), a
figure (its inner spans hold text only), then the small elements."""


def ref(index: int) -> str:
    """The reference to the shared list's ``index``-th piece."""
    return f'<{REF_TAG} data-k="{index}"></{REF_TAG}>'


def _repeated(columns: Mapping[str, str], pattern: re.Pattern[str]) -> set[str]:
    """The pieces ``pattern`` finds in two or more columns (each counted once a file)."""
    counts: Counter[str] = Counter()
    for column in columns.values():
        counts.update({p for p in pattern.findall(column) if len(p) >= MIN_CHARS})
    return {piece for piece, n in counts.items() if n > 1}


def share(columns: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """``columns`` (id -> column file) with every piece two or more of them hold replaced by
    its reference, and the shared list the references index (each piece once, in the order
    of first use)."""
    for key, column in columns.items():
        if f"<{REF_TAG}" in column:
            raise ValueError(f"compare column {key!r}: holds <{REF_TAG}> already")
    pieces: list[str] = []
    places: dict[str, int] = {}

    def place(match: re.Match[str]) -> str:
        piece = match.group(1)
        if piece not in shared:
            return match.group()
        if piece not in places:
            places[piece] = len(pieces)
            pieces.append(piece)
        start, end = match.span(1)
        whole, at = match.group(), match.start()
        return f"{whole[:start - at]}{ref(places[piece])}{whole[end - at:]}"

    out = dict(columns)
    for pattern in PIECES:
        shared = _repeated(out, pattern)
        if shared:
            out = {key: pattern.sub(place, column) for key, column in out.items()}
    return out, pieces
