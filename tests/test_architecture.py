"""The package's shape, checked by parsing its source (no imports executed).

ARCHITECTURE.md promises: folders that follow the pipeline, no import cycles, the package never
imports mkdocs or the macros adapter, modules and functions small enough to read, and a layout
that the README and ARCHITECTURE.md describe as it is.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tinkernomics"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 50
MAX_JS_FUNCTION_LINES = 50
"""As for Python; a file's wrapper ``(function () { ... })()`` is not counted."""
MAX_JS_LINES = 400
"""A script file, as a module: split by what it does, sharing one namespace object if it must."""
MAX_CSS_LINES = 400
MAX_TEST_MODULE_LINES = 500
"""Tests hold long parametrised tables of cases: a little more room than the package."""
SIZE_EXCEPTIONS: dict[str, str] = {}
"""Files over a size rule, each with the reason and the work that will end it (none now)."""
JS_DIRS = ("site_overrides/assets/javascripts", "tinkernomics/site")
CSS_DIRS = ("site_overrides/assets/stylesheets", "tinkernomics/site")
FORBIDDEN_ROOTS = ("mkdocs", "macros", "material")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once for the file's tests (read, never changed)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path, name: str, modules: frozenset[str] = frozenset()) -> set[str]:
    """Every module ``name`` imports, at any depth (lazy imports inside functions included).

    ``from pkg import mod`` counts as importing ``pkg.mod`` (not ``pkg``) when that is a module.
    """
    tree = _tree(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            subs = {f"{base}.{alias.name}" for alias in node.names}
            found.update(subs & modules or {base})
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    names = frozenset(modules)
    return {name: {dep for dep in _imports(path, name, names) if dep in modules and dep != name}
            for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the list of modules on it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep):], dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


LAYERS = ("tinkernomics.catalog", "tinkernomics.derived", "tinkernomics.site")
LEAVES = {"tinkernomics.derived.expr", "tinkernomics.markup", "tinkernomics.markup.mathml",
          "tinkernomics.markup.prose", "tinkernomics.markup.sanitise",
          "tinkernomics.markup.invisible", "tinkernomics.markup.templatejson"}
"""Modules that import nothing from the package but each other, so any layer may use them."""


def _layer(name: str) -> int:
    return next((i for i, prefix in enumerate(LAYERS) if name.startswith(prefix)), len(LAYERS))


def test_imports_point_down_the_pipeline() -> None:
    graph = _graph()
    upward = sorted(f"{name} imports {dep}" for name, deps in graph.items() for dep in deps
                    if dep not in LEAVES and _layer(dep) > _layer(name))
    assert not upward, "\n".join(upward)
    impure = sorted(f"{leaf} imports {dep}" for leaf in LEAVES for dep in graph[leaf]
                    if dep not in LEAVES)
    assert not impure, "\n".join(impure)


def test_package_never_imports_the_site_generator_or_the_adapter() -> None:
    bad = sorted(f"{name} imports {dep}"
                 for name, path in _modules().items()
                 for dep in _imports(path, name)
                 if dep.split(".")[0] in FORBIDDEN_ROOTS)
    assert not bad, "\n".join(bad)


def test_modules_stay_small() -> None:
    big = {name: n for name, path in _modules().items()
           if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_functions_stay_short() -> None:
    long: list[str] = []
    for name, path in _modules().items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{name}.{node.name} ({length} lines)")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_every_module_says_where_it_sits() -> None:
    missing = [name for name, path in _modules().items()
               if not ast.get_docstring(_tree(path))]
    assert not missing, f"modules without a docstring: {missing}"


def _folders_named_in(text: str) -> set[str]:
    return set(re.findall(r"`(tinkernomics/[a-z_/]+/)`", text))


@pytest.mark.parametrize("doc", ["ARCHITECTURE.md", "README.md"])
def test_docs_describe_the_package_folders_that_exist(doc: str) -> None:
    named = _folders_named_in((REPO / doc).read_text(encoding="utf-8"))
    actual = {f"{p.relative_to(REPO).as_posix()}/" for p in PACKAGE.rglob("*")
              if p.is_dir() and (p / "__init__.py").exists() and p != PACKAGE}
    assert named, f"{doc} names no package folder"
    missing = sorted(n for n in named - actual if not (REPO / n).is_dir())  # data folders too
    assert not missing, f"{doc} names folders that do not exist: {missing}"
    if doc == "ARCHITECTURE.md":
        assert actual <= named, f"{doc} misses folders: {sorted(actual - named)}"


def test_nothing_in_the_repository_points_outside_it() -> None:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.split()
    tracked = [REPO / f for f in listed if (REPO / f).is_file() and (REPO / f).suffix in
               {".md", ".py", ".yml", ".yaml", ".toml", ".html", ".js", ".css", ""}]
    outside = re.compile(r"\.\./shared|\bDESIGN\.md\b")
    hits = [str(p.relative_to(REPO)) for p in tracked
            if p.name != "test_architecture.py"
            and outside.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert not hits, f"files pointing outside the repository: {hits}"


MAP_ROOTS = (PACKAGE, REPO / "macros")
MAX_MAP_ROW = 100
"""A map row is one short line: what the module is for; the details are its docstring."""


def map_rows(markdown: str) -> list[tuple[str, str]]:
    """(module path, row) of every module ARCHITECTURE.md's map lists: under a heading
    ``### `folder/` ``, the table rows whose first cell is a module name (`` `graph` ``)."""
    found: list[tuple[str, str]] = []
    folder = None
    for line in markdown.splitlines():
        if line.startswith("#"):
            heading = re.fullmatch(r"### `((?:tinkernomics|macros)[\w/]*/)`", line)
            folder = heading.group(1) if heading else None
        elif folder and (row := re.match(r"\| `(\w+)` \|", line)):
            found.append((f"{folder}{row.group(1)}.py", line))
    return found


def test_map_rows_are_read_by_folder() -> None:
    text = ("### `tinkernomics/derived/`\n| module | for |\n|---|---|\n| `expr` | grammar |\n"
            "## Other\n| `loose` | not in the map |\n")
    assert map_rows(text) == [("tinkernomics/derived/expr.py", "| `expr` | grammar |")]


def test_the_map_names_every_module_once_and_nothing_else() -> None:
    """ARCHITECTURE.md is true file by file: each module of the package and of the adapter has
    one row in its folder's table (``__init__`` only where it holds code), and no row names a
    module that is gone."""
    rows = map_rows((REPO / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    listed = [path for path, _ in rows]
    modules = {p.relative_to(REPO).as_posix() for root in MAP_ROOTS for p in root.rglob("*.py")}
    unnamed = sorted(m for m in modules - set(listed) if not m.endswith("__init__.py"))
    assert not unnamed, f"modules the map does not list: {unnamed}"
    assert not sorted(set(listed) - modules), "rows for modules that do not exist"
    twice = sorted({p for p in listed if listed.count(p) > 1})
    assert not twice, f"modules listed twice: {twice}"
    long = [row for _, row in rows if len(row) > MAX_MAP_ROW]
    assert not long, f"map rows over {MAX_MAP_ROW} characters (details go in docstrings): {long}"


# --------------------------------------------------------------------------- JS, CSS and tests


def _files(dirs: tuple[str, ...], suffix: str) -> list[Path]:
    found = {p for d in dirs for p in (REPO / d).rglob(f"*{suffix}")
             if not p.name.endswith(f".min{suffix}")}
    return sorted(found)


def _js_blank(text: str) -> str:
    """JS source with comments, strings, template literals and regex literals blanked (their
    newlines kept), so the braces left are the code's."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c, end = text[i], None
        if text.startswith("//", i):
            end = text.find("\n", i) % (n + 1)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2) % (n + 1) + 2
        elif c in "'\"`" or (c == "/" and re.search(r"(^|[(,=:\[!&|?{};+\-*%<>~^]|return)\s*$",
                                                     "".join(out[-40:]))):
            end = i + 1
            while end < n and text[end] != c:
                if c == "/" and text[end] == "[":
                    end = text.index("]", end)
                end += 2 if text[end] == "\\" else 1
            end += 1
        if end is None:
            out.append(c)
            i += 1
        else:
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
    return "".join(out)


def js_functions(text: str) -> list[tuple[int, int]]:
    """(first line, number of lines) of every function, the file's wrapper left out."""
    code = _js_blank(text)
    found = []
    for match in re.finditer(r"\bfunction\b[^{;]*\{|=>\s*\{", code):
        depth, end = 0, match.end() - 1
        while end < len(code):
            depth += {"{": 1, "}": -1}.get(code[end], 0)
            if depth == 0:
                break
            end += 1
        before = code[:match.start()]
        if not (before.rstrip().endswith("(") and "{" not in before):  # not the file's wrapper
            first = code.count("\n", 0, match.start()) + 1
            found.append((first, code.count("\n", match.start(), end) + 1))
    return found


def test_js_function_finder_finds_functions_and_skips_the_wrapper() -> None:
    source = ("(function () {\n  var r = /[{]/g, s = \"}\";  // }\n  function a() {\n"
              "    return `{`;\n  }\n  x(() => {\n    y();\n  });\n})();\n")
    assert js_functions(source) == [(3, 3), (6, 3)]


def _over(paths: list[Path], limit: int, measure: Callable[[Path], int]) -> dict[str, int]:
    sizes = {str(p.relative_to(REPO)): measure(p) for p in paths}
    return {name: n for name, n in sizes.items() if n > limit and name not in SIZE_EXCEPTIONS}


def test_js_functions_stay_short() -> None:
    def longest(path: Path) -> int:
        return max((n for _, n in js_functions(path.read_text(encoding="utf-8"))), default=0)

    long = _over(_files(JS_DIRS, ".js"), MAX_JS_FUNCTION_LINES, longest)
    assert not long, f"JavaScript functions over {MAX_JS_FUNCTION_LINES} lines: {long}"


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_scripts_stay_small() -> None:
    big = _over(_files(JS_DIRS, ".js"), MAX_JS_LINES, _lines)
    assert not big, f"JavaScript files over {MAX_JS_LINES} lines: {big}"


def test_stylesheets_stay_small() -> None:
    big = _over(_files(CSS_DIRS, ".css"), MAX_CSS_LINES, _lines)
    assert not big, f"stylesheets over {MAX_CSS_LINES} lines: {big}"


def test_test_modules_stay_small() -> None:
    big = _over(sorted((REPO / "tests").glob("*.py")), MAX_TEST_MODULE_LINES, _lines)
    assert not big, f"test modules over {MAX_TEST_MODULE_LINES} lines: {big}"


def test_every_size_exception_is_still_needed() -> None:
    """An exception ends with its reason: a file back under its rule leaves the list."""
    limits = {".css": MAX_CSS_LINES, ".py": MAX_TEST_MODULE_LINES}
    for name in SIZE_EXCEPTIONS:
        path = REPO / name
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if path.suffix == ".js":  # a script has two rules: its length and its functions'
            over = (lines > MAX_JS_LINES
                    or max(n for _, n in js_functions(text)) > MAX_JS_FUNCTION_LINES)
        else:
            over = lines > limits[path.suffix]
        assert over, f"{name} is within its rules now: drop its exception"
