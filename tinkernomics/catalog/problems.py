"""Problems: the one currency of validation (pipeline step 4).

Every check in the loader, the models and the cross-entry rules yields ``Problem`` values; the
CLI sorts them and prints each as ``path:line:col: field.path: message`` (plus a GitHub
annotation when run in Actions). Nothing stops at the first problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

FILE_FIELD = "(file)"
"""Field name used for problems that concern a whole file (bad YAML, encoding, size)."""


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong, located in a file."""

    path: str
    line: int
    col: int
    field: str
    message: str
    hint: str | None = None

    def format(self) -> str:
        """Compiler-style single line."""
        text = f"{self.path}:{self.line}:{self.col}: {self.field}: {self.message}"
        return f"{text} (hint: {self.hint})" if self.hint else text

    def github(self) -> str:
        """GitHub Actions workflow command that annotates the line in a pull request."""
        message = f"{self.field}: {self.message}"
        if self.hint:
            message += f" (hint: {self.hint})"
        message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::error file={self.path},line={self.line},col={self.col}::{message}"


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
