"""The site build's seam (pipeline step 6): one context, feature modules, output writers.

A page generator (MkDocs through ``macros/__init__.py``, or Zensical, which runs the same
mkdocs-macros module) gets the macros from ``shared_site``: one ``SiteContext`` and one set of
macros per project and catalog state, however often the generator calls ``define_env`` (MkDocs
once per build, Zensical once per page). Everything the site holds besides pages (embeds, JSON
API, plotly.js, images) comes from ``write_all_outputs``, which any build runs after its pages:
MkDocs from ``on_post_build``, anything else through ``tinkernomics outputs`` (see
``site.outputs``). A feature module exposes:

- ``macros(ctx) -> dict[str, Callable[..., str]]``  macros it adds to pages, and optionally
- ``write_outputs(ctx, site_dir: Path) -> None``    files it writes after the pages are built.

Feature modules never import a site generator; they receive plain values. What the build must
know of the page theme's files and markup (its inline scripts' folder, the assets it copies, its
search indexer's rules) is such a value too: a ``ThemeProfile``, declared as plain data by the
theme adapter (``macros/theme.py``, ``PROFILE``) and handed over by whoever runs the build
(``shared_site``'s ``theme``, ``tinkernomics outputs --theme-adapter``). Nothing in the package
names the theme's internals; ``tests/test_theme_boundary.py`` checks it.
"""

from __future__ import annotations

import atexit
import errno
import gc
import importlib
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.needs import site_needs
from tinkernomics.site.reserved import site_names

FEATURES: tuple[str, ...] = (
    "tinkernomics.site.pages.feature",
    "tinkernomics.site.api.feature",
    "tinkernomics.site.contributing.feature",
    "tinkernomics.site.charts.feature",
    "tinkernomics.site.calculator.feature",
    "tinkernomics.site.compare.feature",
    "tinkernomics.site.algorithmfiles",  # the calculator's and compare's parts, one file each
    "tinkernomics.site.ways.feature",
    "tinkernomics.site.freshness.feature",
    "tinkernomics.site.postbuild.feature",  # last: passes over every page the others wrote
)
"""Feature modules, in registration order. Add yours here."""

CATALOG_ENV = "TINKERNOMICS_CATALOG"
"""Environment variable: build the site from another catalog folder (tests, scratch copies)."""

Macro = Callable[..., str]


@dataclass(frozen=True)
class ThemeProfile:
    """The page theme's facts the build relies on, as plain data (the theme adapter's
    ``PROFILE``; its docstring says what each is in the theme). The empty profile is no theme:
    no theme script is allowed by the pages' policy, no theme file dropped, no search cut."""

    script_packages: tuple[str, ...] = ()
    """Installed packages whose inline-script templates a page's policy allows."""
    script_templates: str = ""
    """Where in each of those packages the templates of its inline scripts are."""
    source_maps_under: str = ""
    """The site folder the theme copies its bundles and their source maps into."""
    search_index: str = ""
    """The search index in the built site; its ``config.lang`` lists the languages searched."""
    search_index_start: str = ""
    """How the index starts when its config comes first (then only its head is read)."""
    search_languages: str = ""
    """The folder of the search worker's files for languages other than English."""
    search_exclude: str = ""
    """The attribute that keeps an element (or a heading's section) out of the index."""
    search_void: frozenset[str] = frozenset()
    """The elements the indexer's HTML parser never expects an end tag for."""
    search_stripped: str = ""
    """A pattern of the attributes the indexer strips from a page once it has read it."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ThemeProfile:
        """A profile from plain data (lists for tuples and sets); an unknown key or a value of
        the wrong type is a ``ValueError`` naming it."""
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"theme profile: unknown field(s) {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name, value in data.items():
            kind = str(known[name].type)
            if kind == "str":
                if not isinstance(value, str):
                    raise ValueError(f"theme profile: {name} must be a string")
                values[name] = value
                continue
            if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)) \
                    or not all(isinstance(item, str) for item in value):
                raise ValueError(f"theme profile: {name} must be a list of strings")
            values[name] = tuple(value) if kind.startswith("tuple") else frozenset(value)
        return cls(**values)


NO_THEME = ThemeProfile()
"""No theme facts (unit tests of a feature, a site built without the adapter)."""


@dataclass
class SiteContext:
    """Everything a feature needs: the validated catalog, the project root, the site URL, and
    the theme's facts (``theme``)."""

    root: Path
    catalog: Catalog
    site_url: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    theme: ThemeProfile = NO_THEME

    @classmethod
    def load(cls, root: Path, site_url: str = "", theme: ThemeProfile = NO_THEME) -> SiteContext:
        """Load and validate the catalog once; raise CatalogError listing every problem."""
        catalog = load_valid_catalog(catalog_dir(root), docs_dir=root / "docs",
                                     needs=site_needs(), names=site_names())
        return cls(root=root, catalog=catalog, site_url=site_url, theme=theme)

    @cached_property
    def factor(self) -> Any:
        from tinkernomics.derived.derive import conversion_factor

        return conversion_factor(self.catalog)


def feature_modules() -> list[ModuleType]:
    return [importlib.import_module(name) for name in FEATURES]


def all_macros(ctx: SiteContext) -> dict[str, Macro]:
    """Macros of every feature; a name defined twice is an error."""
    found: dict[str, Macro] = {}
    for module in feature_modules():
        for name, fn in module.macros(ctx).items():
            if name in found:
                raise ValueError(f"macro {name!r} defined twice (again in {module.__name__})")
            found[name] = fn
    return found


# --------------------------------------------------------------------------- one load per build

Fingerprint = tuple[tuple[str, int, int], ...]


@dataclass
class _Shared:
    fingerprint: Fingerprint
    ctx: SiteContext
    macros: dict[str, Macro]
    build: object | None
    """The build this entry was last checked for (held, so its id cannot be reused)."""


_SHARED: dict[tuple[str, str, ThemeProfile], _Shared] = {}
_SHARED_LOCK = threading.Lock()
_EXIT_FROZEN: list[bool] = []


def skip_exit_collection() -> None:
    """At exit, freeze what is left instead of collecting it (``gc.freeze``, registered once).

    Issue 47: a build holds millions of objects (catalog, page views, MkDocs' pages and search
    index) until the process ends; tearing the interpreter down set off one last full
    collection over all of them, about a second of CPU at 1,000 algorithms that freed nothing
    a finished process needs freed. Frozen, what the modules hold is still released as they are
    cleared (reference counting: files close; ``atexit`` and ``weakref.finalize`` hooks run as
    before); only the search for unreachable cycles is skipped, and the operating system takes
    back their memory with the rest. ``mkdocs serve`` collects as usual until it exits."""
    if not _EXIT_FROZEN:
        _EXIT_FROZEN.append(True)
        atexit.register(gc.freeze)


OLD_GENERATIONS_AFTER = 1_000
"""The older generations' thresholds during a one-shot build (``one_shot_collector``): the
collector's second generation is scanned after this many first-generation scans, its third after
this many second (Python's defaults: 10 and 10). A build makes about 1,200 first-generation scans
at 1,000 algorithms, so neither older generation is scanned before the process ends."""


@dataclass
class OneShotCollector:
    """The cyclic garbage collector's policy for a build the process makes once and then ends
    (``mkdocs build``, ``gh-deploy``: the MkDocs hooks' ``on_startup`` names the command).

    Issue 47: a build's pages, navigation and search index live until it ends; with Python's
    default thresholds the older generations were scanned about 100 and 7 times over them, a
    third of a second each way at 1,000 algorithms (0.5 CPU-s of the collector's 0.7) and
    about 3% of what they scanned freed. The youngest generation is still scanned as usual (what
    a page's work leaves in cycles is freed there); the older ones wait, and the process's end
    gives their memory back (``skip_exit_collection``). Only the first build of a process is
    one-shot: ``mkdocs serve --clean`` reports the command ``build`` and then builds again, so
    the second build's start (``build_starts``) puts the thresholds back."""

    saved: tuple[int, int, int] | None = None
    builds: int = 0

    def begin(self, command: str) -> None:
        """At startup: relax the older generations for a one-shot command's build."""
        if command in ("build", "gh-deploy") and self.saved is None and not self.builds:
            self.saved = gc.get_threshold()
            gc.set_threshold(self.saved[0], OLD_GENERATIONS_AFTER, OLD_GENERATIONS_AFTER)

    def build_starts(self) -> None:
        """At each build's start: from the process's second build on, the usual thresholds."""
        self.builds += 1
        if self.builds > 1 and self.saved is not None:
            gc.set_threshold(*self.saved)
            self.saved = None


def catalog_dir(root: Path) -> Path:
    """The catalog a build of ``root`` reads (``TINKERNOMICS_CATALOG`` overrides it)."""
    return Path(os.environ.get(CATALOG_ENV) or root / "catalog")


def fingerprint(root: Path) -> Fingerprint:
    """Name, size and mtime of every file the catalog load reads (catalog, algorithm stubs)."""
    found: list[tuple[str, int, int]] = []
    for top in (catalog_dir(root), root / "docs" / "algorithms"):
        stack = [top]
        while stack:
            try:
                entries = list(os.scandir(stack.pop()))
            except FileNotFoundError:
                continue
            for entry in entries:
                if entry.is_dir():
                    stack.append(Path(entry.path))
                else:
                    st = entry.stat()
                    found.append((entry.path, st.st_size, st.st_mtime_ns))
    return tuple(sorted(found))


def shared_site(root: Path, site_url: str = "", build: object | None = None,
                theme: ThemeProfile = NO_THEME) -> tuple[SiteContext, dict[str, Macro]]:
    """The context and macros for ``root``: loaded once, again only when the catalog changed.

    Zensical runs the macros module's ``define_env`` for every page (re-executing the module, so
    a cache there would not survive); this module is imported once, so the cache lives here.
    ``build`` is an object that lives as long as one build (Zensical's config dict): for the
    same build the catalog is not checked again (stat-ing 2,000 files per page costs seconds
    at 1,000 pages). Without it (MkDocs: one call per build) every call checks the catalog, so
    an edit during ``serve`` is never missed. ``theme``: the theme adapter's profile.
    """
    key = (str(root.resolve()), site_url, theme)
    skip_exit_collection()
    with _SHARED_LOCK:
        cached = _SHARED.get(key)
        if cached is not None and build is not None and cached.build is build:
            return cached.ctx, cached.macros
        now = fingerprint(root)
        if cached is None or cached.fingerprint != now:
            if cached is not None:  # a reload: what the last load kept goes first (_loaded)
                del _SHARED[key]
                cached = None
                gc.unfreeze()
                gc.collect()
            cached = _Shared(now, *_loaded(root, site_url, theme), build)
            _SHARED[key] = cached
        cached.build = build
        return cached.ctx, cached.macros


def _loaded(root: Path, site_url: str,
            theme: ThemeProfile) -> tuple[SiteContext, dict[str, Macro]]:
    """A fresh context and its macros; then every object alive is set aside from the cyclic
    garbage collector's scans (``gc.freeze``) until the next load.

    Issue 47: the catalog (a quarter of a million objects at 1,000 algorithms, with the modules
    loaded by then) lives as long as the build, and each full collection while the pages and
    outputs were built scanned all of it again: half of the collector's second of CPU. Frozen
    objects are still freed when their last reference goes; only a cycle made before the load
    ended waits for the next load (``mkdocs serve`` after a catalog edit), which drops the last
    context, unfreezes and collects before it loads."""
    ctx = SiteContext.load(root, site_url=site_url, theme=theme)
    macros = all_macros(ctx)
    gc.freeze()
    return ctx, macros


def start_all_outputs(ctx: SiteContext) -> None:
    """Before the pages: let every feature start work its outputs need later (the charts'
    images render in worker threads meanwhile); ``write_all_outputs`` waits for it."""
    for module in feature_modules():
        starter = getattr(module, "start_outputs", None)
        if starter is not None:
            starter(ctx)


class OutputError(Exception):
    """A file the outputs step could not write; its message is one line: which path, what
    failed, what to do (the generator's adapter and ``tinkernomics outputs`` print only it)."""


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_DENIED = (errno.EACCES, errno.EPERM, errno.EROFS)


def output_error(err: OSError, site_dir: Path, feature: str) -> OutputError:
    """``err`` from a feature's ``write_outputs`` as one line."""
    path = err.filename or site_dir
    what = err.strerror or type(err).__name__
    if err.errno in _FULL:
        todo = "free some disk space, then build again"
    elif err.errno in _DENIED:
        todo = f"make {site_dir} writable, or build into another folder (--site-dir)"
    else:
        todo = "remove or fix what is at that path, or build into an empty folder"
    return OutputError(f"{path}: cannot write the site's {feature} files ({what}): {todo}")


def write_all_outputs(ctx: SiteContext, site_dir: Path, skip: tuple[str, ...] = (),
                      only: tuple[str, ...] | None = None) -> None:
    """Let every feature (but those named in ``skip``; only those in ``only`` when given) write
    its extra files into the built site; a file-system error is raised as ``OutputError`` (one
    line), not as a traceback from inside a feature."""
    for module in feature_modules():
        writer = getattr(module, "write_outputs", None)
        if writer is None or module.__name__ in skip or (
                only is not None and module.__name__ not in only):
            continue
        try:
            writer(ctx, site_dir)
        except OSError as err:
            feature = module.__name__.split(".")[2]
            raise output_error(err, site_dir, feature) from err
