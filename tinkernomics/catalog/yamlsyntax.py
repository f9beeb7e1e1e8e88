"""YAML syntax errors as problems, and reading on after the one a tab causes (pipeline step 1).

libyaml stops at its first syntax error, so one mistake used to hide every other problem of the
file. The commonest, a tab where YAML wants spaces, is recoverable: ``untab`` reports each tab
at its own line:col and reads the file on as if it were spaces (two per tab in the indentation,
the catalog's indentation step; one elsewhere), so the same run still reports the file's other
mistakes. ``syntax_problem`` turns any other libyaml error into a located problem with the usual
fix as a hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import yaml

from tinkernomics.catalog.problems import FILE_FIELD, Problem

INDENT_SPACES = 2
"""Spaces read in place of one tab in the indentation (the catalog's indentation step)."""
MAX_TABS = 200
"""Tabs repaired in one file before giving up (a file indented with tabs throughout)."""
TAB_HINT = ("YAML indents with spaces, never tabs: replace the tab with spaces "
            "(the rest of the file was read as if it were {n} space{s})")


@dataclass
class Untabbed:
    """A text with its tabs replaced, where they were, and how far each line moved right."""

    text: str
    tabs: list[tuple[int, int]] = field(default_factory=list)
    """(line, col) of each replaced tab in the original text, 1-based."""
    shifts: dict[int, int] = field(default_factory=dict)
    """Line -> columns added at its start (leading tabs read as several spaces)."""
    widths: list[int] = field(default_factory=list)


def _tab_at(err: yaml.YAMLError, lines: list[str]) -> tuple[int, int] | None:
    """(0-based line, column) of the tab libyaml stopped at: the character at its mark, else
    the first tab in that line's indentation; None when no tab is to blame."""
    mark = err.problem_mark if isinstance(err, yaml.MarkedYAMLError) else None
    if mark is None or mark.line >= len(lines):
        return None
    line = lines[mark.line]
    if line[mark.column:mark.column + 1] == "\t":
        return mark.line, mark.column
    lead = line[: len(line) - len(line.lstrip(" \t"))]
    return (mark.line, lead.index("\t")) if "\t" in lead else None


def _fix_line(fixed: Untabbed, lines: list[str], row: int, col: int) -> None:
    line = lines[row]
    indent = len(line) - len(line.lstrip(" \t"))
    shift = fixed.shifts.get(row + 1, 0)
    if col < indent:  # the indentation: every tab in it becomes INDENT_SPACES spaces
        lead = line[:indent]
        for index, char in enumerate(lead):
            if char == "\t":
                fixed.tabs.append((row + 1, index + 1))
                fixed.widths.append(INDENT_SPACES)
        lines[row] = lead.replace("\t", " " * INDENT_SPACES) + line[indent:]
        fixed.shifts[row + 1] = shift + lead.count("\t") * (INDENT_SPACES - 1)
    else:  # between tokens: one space, nothing moves
        fixed.tabs.append((row + 1, col + 1 - shift))
        fixed.widths.append(1)
        lines[row] = line[:col] + " " + line[col + 1:]


def untab(text: str, compose: object) -> tuple[Untabbed, yaml.YAMLError | None]:
    """Replace the tabs libyaml stops at until the text composes or another error remains;
    ``compose(text)`` parses (it raises yaml.YAMLError). Returns the repair and the error left."""
    fixed = Untabbed(text)
    lines = text.split("\n")
    for _ in range(MAX_TABS):
        try:
            compose(fixed.text)  # type: ignore[operator]
            return fixed, None
        except yaml.YAMLError as err:
            where = _tab_at(err, lines)
            if where is None:
                return fixed, err
            _fix_line(fixed, lines, *where)
            fixed.text = "\n".join(lines)
    try:
        compose(fixed.text)  # type: ignore[operator]
        return fixed, None
    except yaml.YAMLError as err:
        return fixed, err


def left_problem(err: yaml.YAMLError, fixed: Untabbed, path: str) -> Problem:
    """The syntax error left after the tabs were replaced, at its place in the file as written."""
    problem = syntax_problem(err, fixed.text, path)
    return replace(problem, col=max(1, problem.col - fixed.shifts.get(problem.line, 0)))


def tab_problems(path: str, fixed: Untabbed) -> list[Problem]:
    """One problem per replaced tab, at its place in the file as written."""
    return [Problem(path, line, col, FILE_FIELD, "a tab character in YAML",
                    TAB_HINT.format(n=width, s="" if width == 1 else "s"))
            for (line, col), width in zip(fixed.tabs, fixed.widths, strict=True)]


NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters YAML refuses anywhere in a file (NUL and other control characters)."""


_CONTEXT = re.compile(r"^while (?:scanning|parsing) (?:an? )?(.+)$")


def _started_on(err: yaml.MarkedYAMLError) -> str | None:
    """'the quoted scalar starts on line 2' when libyaml noticed the error lines later."""
    start, end = err.context_mark, err.problem_mark
    match = _CONTEXT.match(str(err.context or ""))
    if start is None or end is None or start.line == end.line or match is None:
        return None
    return f"the {match[1]} starts on line {start.line + 1}"


def _likely_fix(err: yaml.MarkedYAMLError, text: str) -> str | None:
    """The usual cause of libyaml's two most cryptic errors, read off the offending line: a tab
    in the indentation, and 'mapping values are not allowed' (a value holding ': ', or a field
    indented deeper than the one above it)."""
    mark = err.problem_mark
    lines = text.splitlines()
    if mark is None or mark.line >= len(lines):
        return None
    line = lines[mark.line]
    if "\t" in line[: len(line) - len(line.lstrip())] or line[mark.column:mark.column + 1] == "\t":
        return f"YAML indents with spaces, never tabs: replace the tab on line {mark.line + 1}"
    if "mapping values are not allowed" not in str(err.problem or ""):
        return None
    if ": " in line[: mark.column] or line[: mark.column].rstrip().endswith(":"):
        return "a value that contains ': ' needs quotes, e.g. note: \"Step 1: sample\""
    return (f"line {mark.line + 1} is indented differently from the field above it: give fields "
            "of the same block the same number of spaces")


def syntax_problem(err: yaml.YAMLError, text: str, path: str) -> Problem:
    """libyaml's error at its mark; a control character (NUL...) at its own place, where
    libyaml says 1:1."""
    if (char := NOT_PRINTABLE.search(text)) is not None:
        return unprintable(path, text, char.start())
    if not isinstance(err, yaml.MarkedYAMLError):  # pragma: no cover - libyaml marks them
        return Problem(path, 1, 1, FILE_FIELD, f"invalid YAML: {err}")
    mark = err.problem_mark or err.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    message = " ".join(str(x) for x in (err.context, err.problem) if x)
    return Problem(path, line, col, FILE_FIELD, f"invalid YAML: {message}",
                   _likely_fix(err, text) or _started_on(err))


def unprintable(path: str, text: str, at: int) -> Problem:
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return Problem(path, line, col, FILE_FIELD,
                   f"control character U+{ord(text[at]):04X} is not allowed in YAML",
                   "delete it; catalog files hold printable text only")
