"""Which of the package's top-level names the product reaches (tests/test_deadcode.py).

A reachability scan over the Python the product runs (``tinkernomics/``, ``macros/``, and
``benchmarks/``, which use it) and the text that names Python (``mkdocs.yml``,
``pyproject.toml``, the Makefile, CI, docs and templates); ``tests/`` is not a user. Each
top-level function, class and constant of a package module is a node whose edges are the names
its statement mentions; a module's other top-level code (imports aside) and every benchmark are
roots. A class given keywords (``class X(Twin, of=m.X)``) is a root too: ``__init_subclass__``
registers it. References are resolved through each module's imports (``from x import y``,
``import x as m`` then ``m.y``, re-exports through a package's ``__init__``), so two functions
that share a name in different modules are told apart, and a re-export list (``__all__``) is
not a use. What cannot be resolved is kept by name ("loose"): an attribute of an object that
is not a module and a name given to ``getattr``. A loose name reaches a definition only in a
module the product handles as a value (imported by its dotted name, as ``site.build.FEATURES``
lists the features; passed around; named in ``mkdocs.yml``). ``FRAMEWORK_NAMES`` are the
functions a framework calls by convention in such a module. Docstrings are prose.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = ("tinkernomics", "macros")
USER_DIRS = ("benchmarks",)
TEXT_GLOBS = ("mkdocs.yml", "pyproject.toml", "Makefile", ".ci/*", ".github/**/*.yml",
              ".pre-commit-config.yaml", "docs/**/*.md", "tinkernomics/**/templates/**/*")
MKDOCS_EVENTS = ("startup", "shutdown", "serve", "config", "pre_build", "files", "nav", "env",
                 "post_build", "build_error", "pre_template", "template_context",
                 "post_template", "pre_page", "page_read_source", "page_markdown",
                 "page_content", "page_context", "post_page")
FRAMEWORK_NAMES = frozenset({
    "makeExtension",  # Python-Markdown loads an extension module named in mkdocs.yml by it
    "define_env", "on_pre_page_macros", "on_post_page_macros",  # mkdocs-macros' module hooks
    *(f"on_{event}" for event in MKDOCS_EVENTS),  # MkDocs' hooks (mkdocs.yml `hooks:`)
})
"""Called by name by a framework in a module the site's configuration names."""
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+(?::[A-Za-z_]\w*)?|\w+:[A-Za-z_]\w*")
_PATH = re.compile(r"[\w/]+\.py\b")


@dataclass
class Module:
    name: str
    tree: ast.Module
    package: bool
    bindings: dict[str, str] = field(default_factory=dict)
    """Local name -> the dotted name it was imported as."""
    top: set[str] = field(default_factory=set)

    @classmethod
    def parse(cls, name: str, source: str, package: bool = False) -> Module:
        module = cls(name, ast.parse(source), package)
        module.bindings = _bindings(module)
        module.top = {n for s in module.tree.body if (n := statement_name(s)) is not None}
        return module


@dataclass
class Refs:
    exact: set[str] = field(default_factory=set)
    loose: set[str] = field(default_factory=set)
    escaped: set[str] = field(default_factory=set)
    """Modules used as values: their definitions can be reached by a loose name."""

    def update(self, other: Refs) -> None:
        self.exact |= other.exact
        self.loose |= other.loose
        self.escaped |= other.escaped


def statement_name(node: ast.stmt) -> str | None:
    """The name a top-level statement defines: a def, a class, ``NAME = ...``."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, ast.AnnAssign) else []
    if len(targets) == 1 and isinstance(targets[0], ast.Name):
        return targets[0].id
    return None


def _bindings(module: Module) -> dict[str, str]:
    found: dict[str, str] = {}
    base = module.name.split(".")[:None if module.package else -1]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = \
                    alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            origin = ".".join([*base[:len(base) - node.level + 1], node.module or ""]
                              if node.level else [node.module or ""]).strip(".")
            for alias in node.names:
                found[alias.asname or alias.name] = f"{origin}.{alias.name}"
    return found


class Index:
    """The package's modules, their definitions and what a dotted name resolves to."""

    def __init__(self, modules: Iterable[Module]) -> None:
        self.modules = {m.name: m for m in modules}
        self.definitions = {f"{m.name}.{n}" for m in self.modules.values() for n in m.top}

    def resolve(self, dotted: str, depth: int = 0) -> str | None:
        """The definition or module a dotted name is, through re-exports; None outside."""
        if dotted in self.modules or dotted in self.definitions:
            return dotted
        owner, _, name = dotted.rpartition(".")
        module = self.modules.get(owner)
        if module is None or name not in module.bindings or depth > 20:
            return None
        return self.resolve(module.bindings[name], depth + 1)

    def local(self, module: Module, name: str) -> str | None:
        if name in module.bindings:
            return self.resolve(module.bindings[name])
        return f"{module.name}.{name}" if name in module.top else None

    def target(self, refs: Refs, resolved: str | None, name: str) -> None:
        if resolved is None:
            refs.loose.add(name)
        elif resolved in self.modules:
            refs.escaped.add(resolved)
        else:
            refs.exact.add(resolved)


class Collector(ast.NodeVisitor):
    """The references one statement makes, resolved in its module."""

    def __init__(self, index: Index, module: Module) -> None:
        self.index, self.module, self.refs = index, module, Refs()

    def visit_Name(self, node: ast.Name) -> None:
        if (resolved := self.index.local(self.module, node.id)) is not None:
            self.index.target(self.refs, resolved, node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain: list[str] = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        current = self.index.local(self.module, value.id) if isinstance(value, ast.Name) else None
        if current is None or current not in self.index.modules:
            self.refs.loose.add(node.attr)  # an object's attribute: by name
            self.generic_visit(node)
            return
        for attr in chain:
            found = self.index.resolve(f"{current}.{attr}")
            if found is None or found not in self.index.modules:
                self.index.target(self.refs, found, attr)
                return
            current = found

    def visit_Expr(self, node: ast.Expr) -> None:
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.generic_visit(node)  # a bare string is a docstring: prose

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and \
                len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            self.refs.loose.add(str(node.args[1].value))  # getattr(module, "write_outputs")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _DOTTED.fullmatch(node.value.strip()):
            dotted_refs(self.index, self.refs, node.value.strip())  # importlib, entry points


def dotted_refs(index: Index, refs: Refs, token: str) -> None:
    """``a.b.c`` or ``a.b:c``: the module (used as a value) or definition it names."""
    module, _, function = token.partition(":")
    for dotted in (module, f"{module}.{function}") if function else (module,):
        if (found := index.resolve(dotted)) is not None:
            index.target(refs, found, dotted)


def _edges(index: Index) -> tuple[dict[str, Refs], Refs]:
    """Each definition's references, and those of the modules' other top-level code."""
    edges: dict[str, Refs] = {d: Refs() for d in index.definitions}
    roots = Refs()
    for module in index.modules.values():
        for statement in module.tree.body:
            name = statement_name(statement)
            if isinstance(statement, ast.Import | ast.ImportFrom) or name == "__all__":
                continue  # bindings; a re-export list is not a use
            if isinstance(statement, ast.ClassDef) and statement.keywords:
                roots.exact.add(f"{module.name}.{name}")
            collector = Collector(index, module)
            collector.visit(statement)
            (edges[f"{module.name}.{name}"] if name else roots).update(collector.refs)
    return edges, roots


def unreached(modules: Iterable[Module], users: Iterable[Module] = (),
              texts: Iterable[str] = ()) -> list[str]:
    """Definitions of ``modules`` that no root reaches (dunders aside), sorted. ``users``:
    code that uses the package (all of it a root); ``texts``: text that names Python."""
    index = Index(modules)
    edges, reached = _edges(index)
    reached.loose |= FRAMEWORK_NAMES
    for user in users:
        collector = Collector(index, user)
        collector.visit(user.tree)
        reached.update(collector.refs)
    for text in texts:
        for token in [*_DOTTED.findall(text), *_PATH.findall(text)]:
            dotted_refs(index, reached, token.removesuffix(".py").replace("/", "."))
        reached.escaped |= set(re.findall(r"\w+", text)) & set(index.modules)  # module_name: x
    alive: set[str] = set()
    while new := ((reached.exact & index.definitions) | {d for d in index.definitions
                                   if d.rpartition(".")[0] in reached.escaped
                                   and d.rpartition(".")[2] in reached.loose}) - alive:
        alive |= new
        for definition in new:
            reached.update(edges[definition])
    return sorted(d for d in index.definitions - alive
                  if not d.rpartition(".")[2].startswith("__"))


def _python(dirs: Iterable[str]) -> Iterator[Module]:
    for folder in dirs:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            package = parts[-1] == "__init__"
            yield Module.parse(".".join(parts[:-1] if package else parts),
                               path.read_text(encoding="utf-8"), package)


def _texts() -> Iterator[str]:
    for pattern in TEXT_GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file() and path.suffix not in (".png", ".woff2", ".json", ".js", ".css"):
                yield path.read_text(encoding="utf-8", errors="replace")


@functools.cache
def _package() -> tuple[Module, ...]:
    """The package's modules, parsed once for both scans (which only read them)."""
    return tuple(_python(PACKAGE_DIRS))


def package_unreached() -> list[str]:
    """The repository's top-level names that only tests (or nothing) use."""
    return unreached(_package(), _python(USER_DIRS), _texts())


def getattr_shims(modules: Iterable[Module] | None = None) -> list[str]:
    """Module-level ``__getattr__``/``__dir__``: names a module serves that no reader sees."""
    return [f"{m.name}.{node.name}" for m in modules or _package()
            for node in m.tree.body
            if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__")]
