"""Confusable names (pipeline step 3, used by the duplicate-name rule): the UTS #39 skeleton.

Two strings that a reader cannot tell apart have the same *skeleton* (Unicode Technical Standard
#39, section 4): NFD, default-ignorable code points removed, each character replaced by its
prototype from Unicode's ``confusables.txt``, NFD again. Cyrillic "GRPО" and Latin "GRPO" share
one; so do "DP0" and "DPO".

The data comes from the maintained ``confusable-homoglyphs`` package, which ships
``confusables.txt`` as a symmetric table (each character lists what it is confusable with) and
offers no skeleton. The prototypes are rebuilt from it: a character is a *source* when it has one
partner that is either a prototype of several sources or, in a one-to-one pair, was listed after it
(the package writes each ``source -> prototype`` line in file order, source first). Prototypes are
never sources (``confusables.txt`` is idempotent); ``tests/test_validate_names.py`` checks that.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")
"""The package wraps right-to-left characters in direction marks; they are not the character."""

DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): invisible, so a
name that holds one looks like the name without it."""


@cache
def prototypes() -> dict[str, str]:
    """Source character -> its prototype (one or more characters), as in ``confusables.txt``."""
    order = {key: i for i, key in enumerate(confusables_data)}
    found: dict[str, str] = {}
    for key, partners in confusables_data.items():
        source = key.translate(_DIRECTION_MARKS)
        if len(source) != 1 or len(partners) != 1:
            continue  # a prototype (several sources) or a sequence: sources are one code point
        target = partners[0]["c"]
        if len(confusables_data.get(target, ())) > 1 or order.get(target, -1) > order[key]:
            found[source] = target.translate(_DIRECTION_MARKS)
    return found


def _ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in DEFAULT_IGNORABLE)


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: equal for strings a reader cannot tell apart."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(table.get(c, c) for c in decomposed if not _ignorable(c))
    return unicodedata.normalize("NFD", mapped)


def lookalikes(text: str) -> list[str]:
    """The characters of ``text`` that stand in for another (``U+041E CYRILLIC CAPITAL LETTER
    O, looks like O``), each once, for messages."""
    out: list[str] = []
    for char in dict.fromkeys(unicodedata.normalize("NFC", text)):
        shown = skeleton(char)
        if not char.isascii() and shown != unicodedata.normalize("NFD", char):
            name = unicodedata.name(char, "unnamed character")
            out.append(f"U+{ord(char):04X} {name}, looks like {shown!r}")
    return out
