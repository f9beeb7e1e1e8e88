"""Problems: the one currency of validation (pipeline step 4).

Every check in the loader, the models and the cross-entry rules yields ``Problem`` values; the
CLI sorts them and prints each as ``path:line:col: field.path: message`` (plus a GitHub
annotation when run in Actions). Nothing stops at the first problem.

Messages quote catalog text (keys, values, file names), which is hostile: every part of a printed
problem goes through ``printable``, which writes control characters (ESC, NUL, CR, LF...), bidi
controls and other invisible format characters, and line and paragraph separators as visible
escapes (``\\x1b``, ``\\n``, ``\\u202e``). A key cannot move the cursor, clear the terminal, print a
fake "catalog OK" or start a GitHub workflow command on a line of its own; an annotation's
``file=`` property escapes ``,`` and ``:`` too, so the path cannot add properties.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

FILE_FIELD = "(file)"
"""Field name used for problems that concern a whole file (bad YAML, encoding, size)."""


_NOT_PLAIN = re.compile(r"[^\x20-\x7e]")
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories written as escapes: controls, format (bidi, zero-width), surrogates,
private use, unassigned, line and paragraph separators."""
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if unicodedata.category(char) not in _HIDDEN:
        return char
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else
                                f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def printable(text: str) -> str:
    """``text`` safe on a terminal and in a CI log: one line, nothing hidden, nothing that
    drives the terminal (see the module docstring)."""
    return _NOT_PLAIN.sub(lambda found: _escape(found.group()), text)


def _property(text: str) -> str:
    """A workflow command's property value (GitHub's toolkit escapes these five)."""
    return (text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            .replace(":", "%3A").replace(",", "%2C"))


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong, located in a file."""

    path: str
    line: int
    col: int
    field: str
    message: str
    hint: str | None = None
    severity: str = "error"
    """``error`` (validation fails) or ``warning`` (printed; nothing fails)."""

    def format(self) -> str:
        """Compiler-style single line, escaped (``printable``); a warning says so."""
        label = "warning: " if self.severity == "warning" else ""
        text = f"{self.path}:{self.line}:{self.col}: {self.field}: {label}{self.message}"
        return printable(f"{text} (hint: {self.hint})" if self.hint else text)

    def github(self) -> str:
        """GitHub Actions workflow command that annotates the line in a pull request."""
        message = f"{self.field}: {self.message}"
        if self.hint:
            message += f" (hint: {self.hint})"
        message = printable(message).replace("%", "%25")
        return (f"::{self.severity} file={_property(printable(self.path))},line={self.line},"
                f"col={self.col}::{message}")


def format_loc(loc: Iterable[str | int]) -> str:
    """``("scalerl", "A", "value")`` -> ``scalerl.A.value``; list indices as ``[2]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or FILE_FIELD


class CatalogError(Exception):
    """Raised by non-CLI callers (the site build) when the catalog has problems."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems)
        lines = [p.format() for p in self.problems]
        lines.append(f"{len(self.problems)} problem(s) in the catalog")
        super().__init__("\n".join(lines))
