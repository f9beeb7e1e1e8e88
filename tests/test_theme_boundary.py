"""A theme patch release changes one module at most (issue 41): every reliance on a private part
of MkDocs, Material or Plotly is named in the theme adapter, ``macros/theme.py``, and nowhere
else in the code the build and the tests run.

Each code file of the package, the MkDocs and macros adapters, the theme overrides and the tests
is read without its comments and docstrings (naming an internal to explain it is not relying on
it) and searched for the theme internals below: private paths and modules, markup the adapter
hands over, pinned releases and file hashes. Material's documented customisation interface (the
blocks ``main.html`` extends, ``md-`` classes, ``--md-*`` colours, ``data-search-exclude``) and
MkDocs' plugin API (``mkdocs.plugins``, ``mkdocs.exceptions``) are public: they change in a
major release, and the browser tests see them move. ``benchmarks/`` is not scanned (its phase
timer wraps MkDocs' internals on purpose, and no test runs it).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_site import REPO, load_theme

THEME = load_theme()
ADAPTER = REPO / "macros" / "theme.py"
ICON_RULE = REPO / "macros" / "theme_icons.py"
"""Rule 11 of the adapter, in its own module (``theme.py`` is full): the icons' folder."""

INTERNALS = {
    "Material's inline-script templates (PROFILE script_templates)":
        r"""partials["']?\s*[/,]\s*["']?javascripts""",
    "the theme's packages, to find its files (PROFILE script_packages)":
        r"""(?:find_spec|import_module)\(\s*["'](?:material|zensical)"""
        r"""|(?i:packages)["']?\s*[=:]\s*[(\[]\s*["'](?:material|zensical)""",
    "the attributes Material's indexer strips (PROFILE search_stripped)": r"data-search-\\w",
    "Material's search-language assets (PROFILE search_languages)": r"javascripts/lunr",
    "MkDocs' search index file (PROFILE search_index)": r"search_index\.json",
    "MkDocs' search index layout (PROFILE search_index_start)": r"""\{"config":['{]""",
    "Material's plugin modules": r"\bmaterial[./]plugins\b",
    "MkDocs' internal modules": r"\bmkdocs\.(?:structure|commands|config|utils|theme)\b",
    "the installed Material's files (theme.templates)":
        r"""\bmaterial\.__file__|find_spec\(\s*["']material""",
    "Material's search dialog markup (SEARCH_DIALOG)": r"""role=\\?["']dialog""",
    "Material's icon files (theme_icons.ICONS, rule 11)": r"""["']\.icons/""",
    "Plotly's private fields": r"\._full[A-Z]\w*|\bgd\._\w+",
    "a pinned theme release (PINS)": "|".join(
        [rf"{re.escape(name)}==" for name in THEME.PINS]
        + [re.escape(v) for n, v in THEME.PINS.items() if n != "mkdocs"]),
    "a pinned file hash": r"\b[0-9a-f]{64}\b",
}
"""What names a theme internal, by what it is (and where the adapter holds it)."""

SUFFIXES = (".py", ".html", ".js", ".css", ".md")
SCANNED = ("tinkernomics", "macros", "site_overrides", "tests")
SKIPPED = ("tests/fixtures/", "tinkernomics/site/charts/static/plotly/")
"""Catalog fixtures are data; the vendored plotly.js is Plotly itself (and ``node_modules``
folders, axe-core's under tests/, are installed packages)."""


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields that hold statements (or except/case clauses, which hold statements)."""


def _with_statements(tree: ast.AST) -> Iterator[ast.AST]:
    """``tree`` and every statement, except clause and case under it: every node whose ``body``
    may be a list of statements (no expression holds a statement), without walking the
    expressions, most of a file's nodes."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for field in _STATEMENT_LISTS:
            children = getattr(node, field, None)
            if isinstance(children, list):
                todo.extend(children)


def _blank_python(text: str) -> str:
    """``text`` without comments and docstrings (their lines kept, empty)."""
    docstrings: set[int] = set()
    for node in _with_statements(ast.parse(text)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):
            is_string = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str)
            if is_string and (i == 0 or isinstance(body[i - 1], (ast.Assign, ast.AnnAssign))):
                docstrings.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    lines = text.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    return "\n".join("" if i + 1 in docstrings else line for i, line in enumerate(lines))


_MARKUP_COMMENTS = re.compile(r"\{#.*?#\}|<!--.*?-->|/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"(?<![:\"'\\])//.*$", re.M)


def code_of(path: Path) -> str:
    """The code of ``path``: Python without comments and docstrings; a template, script or
    stylesheet without its comments."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return _blank_python(text)
    text = _MARKUP_COMMENTS.sub("", text)
    return _LINE_COMMENT.sub("", text) if path.suffix == ".js" else text


def scanned_files(root: Path) -> list[Path]:
    found = [p for top in SCANNED for p in (root / top).rglob("*")
             if p.suffix in SUFFIXES and p.is_file()
             and not {"__pycache__", "node_modules"} & set(p.parts)]
    return sorted(p for p in found
                  if not p.relative_to(root).as_posix().startswith(SKIPPED))


@functools.cache
def codes(root: Path) -> tuple[tuple[Path, str], ...]:
    """(path, code) of every scanned file under ``root`` (read once per test run)."""
    return tuple((path, code_of(path)) for path in scanned_files(root))


def internals_named(root: Path, exempt: set[Path]) -> dict[str, list[str]]:
    """Every scanned file but ``exempt`` that names a theme internal: file -> what it names."""
    patterns = {what: re.compile(pattern) for what, pattern in INTERNALS.items()}
    found: dict[str, list[str]] = {}
    for path, code in codes(root):
        if path in exempt:
            continue
        named = [f"{what}: {m.group(0)!r}" for what, pattern in patterns.items()
                 if (m := pattern.search(code))]
        if named:
            found[path.relative_to(root).as_posix()] = named
    return found


def test_no_file_but_the_adapter_names_a_theme_internal() -> None:
    found = internals_named(REPO, {ADAPTER, ICON_RULE, Path(__file__).resolve()})
    assert not found, ("theme internals outside macros/theme.py (declare them there and read "
                       f"them from it): {found}")


_MARKUP = re.compile(r"(?<![\w-])(?:--md-[\w-]*\w|data-md-[\w-]*\w|md-[a-z][\w-]*\w)")
"""A name of Material's markup: a class, a CSS variable, a data attribute."""


def markup_named(root: Path, exempt: set[Path]) -> dict[str, set[str]]:
    """Every Material markup name in the scanned files' code -> the files naming it."""
    found: dict[str, set[str]] = {}
    for path, code in codes(root):
        if path not in exempt:
            for name in set(_MARKUP.findall(code)):
                found.setdefault(name, set()).add(path.relative_to(root).as_posix())
    return found


def test_every_theme_markup_name_used_is_declared_in_the_adapter() -> None:
    used = markup_named(REPO, {ADAPTER, Path(__file__).resolve()})
    undeclared = {name: sorted(files) for name, files in used.items()
                  if name not in THEME.MARKUP}
    assert not undeclared, ("Material markup named outside macros/theme.py's MARKUP (add it "
                            f"there, rule 8): {undeclared}")
    assert not THEME.MARKUP - set(used), "MARKUP lists names nothing uses any more"


def test_the_installed_theme_still_has_every_markup_name_the_site_uses() -> None:
    """A release that renames or drops a class, variable or attribute we style or select fails
    here, naming it and the files to follow it in (rule 8 of the upgrade checklist)."""
    theme = THEME.templates()
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(theme.rglob("*"))
                     if p.suffix in (".html", ".css", ".js") and ".icons" not in p.parts
                     and "lunr" not in p.parts)
    gone = sorted(name for name in THEME.MARKUP
                  if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))
    used = markup_named(REPO, {ADAPTER})
    assert not gone, {name: sorted(used.get(name, ())) for name in gone}


def test_the_adapter_names_each_internal_it_declares() -> None:
    """The patterns are the adapter's own facts: each matches the adapter (so the scan above
    looks for what a release can move, not for text nobody writes)."""
    code = code_of(ADAPTER) + (THEME.__doc__ or "")
    missing = [what for what, pattern in INTERNALS.items()
               if what not in ("Plotly's private fields", "a pinned file hash")
               and not re.search(pattern, code)]
    assert not missing


@pytest.mark.parametrize(("where", "text"), [
    ("tinkernomics/site/postbuild/x.py", 'FOLDER = "templates/partials/javascripts"\n'),
    ("tinkernomics/site/pages/x.py", "from material.plugins.search import plugin\n"),
    ("tinkernomics/site/x.py", 'THEME_PACKAGES = ("material", "zensical")\n'),
    ("site_overrides/partials/y.html", '{% include ".icons/material/menu.svg" %}\n'),
    ("tinkernomics/site/y.py", 'FOLDER = Path("templates", "partials", "javascripts")\n'),
    ("site_overrides/partials/x.html",
     "{% filter replace('role=\"dialog\">', 'x') %}{% endfilter %}\n"),
    ("tests/test_x.py", 'SHA = "' + "ab" * 32 + '"\n'),
    ("tests/test_y.py", "x = gd._fullLayout\n"),
    ("site_overrides/assets/javascripts/x.js", 'fetch("search/search_index.json");\n'),
])
def test_a_theme_internal_outside_the_adapter_is_found(tmp_path: Path, where: str,
                                                       text: str) -> None:
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    assert list(internals_named(tmp_path, set())) == [where]


def test_comments_and_docstrings_may_name_an_internal(tmp_path: Path) -> None:
    (tmp_path / "tinkernomics").mkdir()
    (tmp_path / "tinkernomics" / "x.py").write_text(
        '"""Reads ``partials/javascripts``."""\nX = 1  # like material.plugins\n'
        'def f():\n    """search_index.json"""\n', encoding="utf-8")
    (tmp_path / "site_overrides").mkdir()
    (tmp_path / "site_overrides" / "x.html").write_text('{#- role="dialog"> -#}<p></p>',
                                                         encoding="utf-8")
    assert internals_named(tmp_path, set()) == {}
