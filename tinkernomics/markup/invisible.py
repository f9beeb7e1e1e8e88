"""Characters that make text read differently from what a reviewer saw (a leaf: catalog fields,
the Markdown and LaTeX renderers and the validator's rules use it).

Bidi controls (U+202A-U+202E, U+2066-U+2069), zero-width and other format characters (Unicode
category Cf), control characters other than tab and line feed (Cc), line and paragraph
separators (Zl, Zp), private-use and unassigned code points. Checked on text as written and again
after what decodes it: an HTML entity (``&#x202E;``) in Markdown, ``\\unicode{x202E}`` in LaTeX.
"""

from __future__ import annotations

import re
import unicodedata

_HIDDEN = frozenset({"Cf", "Cc", "Zl", "Zp", "Co", "Cn"})
_CANDIDATE = re.compile(r"[^\t\n\x20-\x7e]")


def hidden_char(text: str) -> tuple[str, int] | None:
    """The first hidden character of ``text`` described (``U+202E (RIGHT-TO-LEFT OVERRIDE)``)
    with its 1-based offset, or None."""
    for found in _CANDIDATE.finditer(text):
        char = found.group()
        if unicodedata.category(char) in _HIDDEN:
            name = unicodedata.name(char, "control or format character")
            return f"U+{ord(char):04X} ({name})", found.start() + 1
    return None


def hidden_message(text: str, after: str = "") -> str | None:
    """The validator's message for ``text``'s first hidden character (``after``: what decoded
    it, e.g. "an HTML entity"), or None."""
    found = hidden_char(text)
    if found is None:
        return None
    where = f" (written as {after})" if after else f" at character {found[1]}"
    return (f"invisible character {found[0]}{where}: bidi controls and zero-width characters "
            "can make text read differently from what is shown; delete it")
