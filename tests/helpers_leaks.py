"""Raw template or LaTeX source a reader would see, told apart from catalog text that holds it.

A page showing ``{{``, ``{%``, ``$$`` or ``\\frac`` has leaked its template or its math source,
unless those characters are the catalog's own words: a locator quoting a config line
(``${mul:${a}, ${b}}``), a note quoting a Jinja prompt template. That is data, shown as text
(the hostile-catalog tests prove it never runs), and a correct data pull request must pass the
tests untouched. ``leaks`` reports each marker whose neighbourhood in the page is not catalog
text. What the catalog means to be rendered as math (a ``latex`` field, a prose string's
``\\(...\\)`` or ``\\[...\\]`` span) is left out of that text, so a formula that
fails to render is still reported.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

RAW_MARKERS = ("{{", "}}", "{%", "%}", "$$", "\\(", "\\)", "\\[", "\\]", "\\frac", "\\text",
               "\\mathrm", "\\sum")
CONTEXT = 6
"""Characters of the page's text on one side of a marker that must match catalog text."""
SKIPPED_DIRS = ("sources", "schema")
"""Kept source copies and generated schemas: never shown as a page's text."""
MATH_KEYS = ("latex",)
MATH_SPAN = re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]", re.S)
"""Prose's math (``tinkernomics.markup.prose``): rendered as MathML, never shown as written."""
QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def fold(text: str) -> str:
    """Whitespace collapsed and typographic quotes made plain, in page and catalog alike."""
    return re.sub(r"\s+", " ", text.translate(QUOTES))


def _strings(value: Any, key: str = "") -> list[str]:
    """Every string in a YAML value, math left out (``MATH_KEYS``, ``MATH_SPAN``)."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, str(k))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, key)]
    if isinstance(value, str) and key not in MATH_KEYS:
        return [MATH_SPAN.sub(" ", value)]
    return []


@lru_cache(maxsize=4)
def catalog_text(root: Path) -> str:
    """The text of every YAML file of the catalog at ``root``, folded, one string a line."""
    found: list[str] = []
    for path in sorted(root.rglob("*.yaml")):
        if path.relative_to(root).parts[0] in SKIPPED_DIRS:
            continue
        found += _strings(yaml.safe_load(path.read_text(encoding="utf-8")))
    return "\n".join(fold(s) for s in found)


def occurrences(text: str, markers: tuple[str, ...] = RAW_MARKERS) -> list[tuple[str, str, str]]:
    """Each marker found in ``text``, with the folded text before and after it."""
    text = fold(text)
    return [(marker, text[max(0, m.start() - CONTEXT):m.start()], text[m.end():m.end() + CONTEXT])
            for marker in markers for m in re.finditer(re.escape(marker), text)]


def nearby(found: list[list[str]]) -> list[tuple[str, str, str]]:
    """Markers found elsewhere (a browser's text: marker, text before, text after) as
    ``occurrences`` gives them: folded, ``CONTEXT`` characters a side."""
    return [(marker, fold(before)[-CONTEXT:], fold(after)[:CONTEXT])
            for marker, before, after in found]


def unexplained(found: list[tuple[str, str, str]], catalog: str) -> list[str]:
    """The occurrences (``occurrences``'s triples) that no catalog text accounts for: neither
    the marker with the characters before it nor with those after it (``CONTEXT`` of them,
    whole, so at least a word's worth beside the marker) is catalog text."""
    def quoted(side: str, piece: str) -> bool:
        return len(side.strip()) >= CONTEXT - 2 and piece in catalog

    return [before + marker + after for marker, before, after in found
            if not (quoted(before, before + marker) or quoted(after, marker + after))]


def leaks(text: str, catalog: str, markers: tuple[str, ...] = RAW_MARKERS) -> list[str]:
    """The raw markup in a page's visible ``text`` that is not the ``catalog``'s own text."""
    return unexplained(occurrences(text, markers), catalog)
