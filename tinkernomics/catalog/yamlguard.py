"""What a catalog file may not do to its reader (pipeline step 1, used by ``yamlread``).

YAML is read one way, whatever the line endings: libyaml breaks lines at ``\\n``, ``\\r\\n``,
a lone ``\\r``, NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029), while a
reviewer's diff and editor may show the last four inside one line (and a text scan that looks for
anchors and tags at line starts did not see them: issue 40, ``year:\\r  !!python/object/...``).
So those four are refused at their place (``odd_breaks``), ``\\r\\n`` is read as ``\\n``, and
the scan that decides whether a file needs the careful reader (``maybe_special``) starts a line
after every break libyaml knows. The reader itself refuses tags and aliases without the scan too
(``yamlread._fast``), so a scan that missed one would cost time, not safety.

Budgets: a file is at most ``yamlread.MAX_FILE_BYTES``, nests at most ``yamlread.MAX_DEPTH``
levels and holds at most ``MAX_NODES`` values; no alias is ever expanded, so reading is linear in
the file's size and an alias bomb is refused at its first alias, in milliseconds.
"""

from __future__ import annotations

import re

from tinkernomics.catalog.problems import FILE_FIELD, Problem

MAX_NODES = 50_000
"""Most values (keys, scalars, lists, mappings) in one file. The largest real entry holds a few
hundred; a file of the size limit holds at most about 130,000 (two characters each)."""

BREAKS = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
"""Every line break libyaml reads (``\\r\\n`` is one)."""
_KINDS = (  # line breaks libyaml reads but diffs and editors may show inside a line
    (re.compile("\r(?!\n)"), "a carriage return (CR) without a line feed"),
          (re.compile("\x85"), "NEL (U+0085)"),
          (re.compile("\u2028"), "LINE SEPARATOR (U+2028)"),
          (re.compile("\u2029"), "PARAGRAPH SEPARATOR (U+2029)"))

_INDICATED = re.compile(r"[&*!]\S")
"""An anchor, alias or tag's first two characters."""
_NODE_START = frozenset("\n\r\x85\u2028\u2029-?:[{,")
"""What a node that starts with ``&``, ``*`` or ``!`` can follow, spaces apart: a line break
libyaml reads or an indicator."""
_BLANK = frozenset(" \t\ufeff")


def maybe_special(text: str) -> bool:
    """True when ``text`` may hold an anchor, alias or tag (the careful reader reports them):
    an ``&``, ``*`` or ``!`` before a non-space where a node starts, at the text's start or
    after a line break libyaml reads (and spaces, tabs or a byte-order mark libyaml skips
    there) or after an indicator. Markdown `**bold**` inside prose does not match (it used to
    trigger a second parse of every file); a block-scalar line that starts with `*emphasis*`
    does, which only costs time. The scan finds the indicator characters and looks back from
    each (a pattern that tried its start at every offset took a tenth of the catalog's load)."""
    for found in _INDICATED.finditer(text):
        at = found.start()
        while at and text[at - 1] in _BLANK:
            at -= 1
        if at == 0 or text[at - 1] in _NODE_START:
            return True
    return False


def position(text: str, at: int) -> tuple[int, int]:
    """(line, col), 1-based, of offset ``at`` as libyaml counts lines (every break above)."""
    line, start = 1, 0
    for found in BREAKS.finditer(text, 0, at):
        line, start = line + 1, found.end()
    return line, at - start + 1


def odd_breaks(text: str, path: str) -> list[Problem]:
    """The first line break of each odd kind, at its place (one problem each: a file saved with
    CR line endings has thousands)."""
    problems = []
    for pattern, name in _KINDS:
        found = pattern.search(text)
        if found is None:
            continue
        count = len(pattern.findall(text))
        more = f" ({count} in the file)" if count > 1 else ""
        problems.append(Problem(
            path, *position(text, found.start()), FILE_FIELD,
            f"line break {name}{more} is not allowed in YAML",
            "save the file with \\n (LF) line endings; YAML reads this character as a line "
            "break that a diff may not show"))
    return problems


_ESCAPED_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
"""What a double-quoted YAML scalar can write with escapes (``"\\e"``, ``"\\0"``, ``"\\x9b"``,
``"\\L"``) and no catalog text holds: control characters but tab and line feed, and the line
and paragraph separators. (The file itself cannot hold them raw: libyaml refuses it.)"""


def escaped_control(value: str) -> str | None:
    """Why a double-quoted scalar's value is refused (a control character), or None."""
    found = _ESCAPED_CONTROL.search(value)
    if found is None:
        return None
    return (f"control character U+{ord(found.group()):04X} is not allowed in catalog text "
            f"(at character {found.start() + 1})")


CONTROL_HINT = "delete the escape; catalog text is printable"


def too_many(path: str, where: tuple[int, int], loc: str, limit: int = MAX_NODES) -> Problem:
    """The value past the budget, where it starts."""
    return Problem(path, *where, loc, f"the file holds more than {limit:,} values",
                   "catalog entries hold a few hundred; split the file")
