"""Load the whole catalog: files -> YAML -> models -> rules (pipeline steps 1-4).

``load_catalog`` reads every file, validates it, runs every cross-entry rule and returns the
catalog together with ALL problems found. Callers decide what to do with them: the CLI prints
them, the site build raises ``CatalogError``.
"""

from __future__ import annotations

import difflib
import gc
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from tinkernomics.catalog.entries import KINDS, SCHEMA_DIR, Catalog, Entry, Kind
from tinkernomics.catalog.links import run_kind_rules
from tinkernomics.catalog.messages import problems_from_validation
from tinkernomics.catalog.partial import HOLE, partial_model
from tinkernomics.catalog.placement import stray_yaml, wrong_folder
from tinkernomics.catalog.problems import FILE_FIELD, Problem
from tinkernomics.catalog.quotes import SOURCES_DIR
from tinkernomics.catalog.rules import Need, run_rules
from tinkernomics.catalog.sitenames import SiteNames, pages_without_entries
from tinkernomics.catalog.yamlread import read_yaml

DEFAULT_CATALOG = Path("catalog")
"""Where the catalog lives in a checkout (commands default to it)."""
DEFAULT_DOCS = Path("docs")
"""Where the pages live in a checkout."""


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Path as printed in problems: relative to the current directory when possible."""
    try:
        return os.path.relpath(path, cwd or Path.cwd())
    except ValueError:  # pragma: no cover - other drive on Windows
        return str(path)


def _shown(path: Path, root: Path, shown_root: str, cwd: Path | None) -> str:
    """``display_path(path, cwd)`` for a file under ``root`` whose own display is
    ``shown_root``: the same lexical join ``os.path.relpath`` makes, without resolving the
    current directory again for each of thousands of files (issue 47). From inside the catalog
    (``shown_root`` is ``..`` only) the file's own relative path is shorter: asked directly."""
    if not set(Path(shown_root).parts) <= {".."}:
        return os.path.normpath(os.path.join(shown_root, path.relative_to(root)))
    return display_path(path, cwd)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block, back as it was after (even on error).

    Issue 47: loading 3,000 files allocates millions of short-lived objects (node trees, JSON
    text, validation scratch), all freed by reference counting as soon as a file is done, and
    keeps a few hundred thousand (models, positions). Each burst of allocations set the
    collector off to re-scan what the load keeps: about a thousand passes, a fifth of the
    load's CPU, that freed nothing the load needed freed."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _kind_for(rel: Path) -> Kind | None:
    folder = rel.parent.as_posix()
    for kind in KINDS:
        if kind.folder == folder:
            return kind
    return None


def catalog_files(root: Path) -> list[Path]:
    """Every YAML file under the catalog root except generated schemas and the kept copies of
    cited files (``quotes.SOURCES_DIR``), sorted. Those two folders are not even listed (issue
    47: the kept copies are many); like ``Path.rglob``, no symlinked folder is entered."""
    files = []
    for folder, subfolders, names in os.walk(root):
        here = Path(folder)
        if here == root:  # schemas, cited files
            subfolders[:] = [name for name in subfolders if name not in (SCHEMA_DIR, SOURCES_DIR)]
        for name in names:
            if os.path.splitext(name)[1].lower() in (".yaml", ".yml"):  # .YAML is reported
                path = here / name
                if path.is_file():
                    files.append(path)
    return sorted(files)


def _not_a_folder(shown: str, rel: Path) -> Problem:
    folder = rel.parent.as_posix()
    known = [k.folder for k in KINDS]
    close = difflib.get_close_matches(folder, known, n=1, cutoff=0.6)
    hint = (f"did you mean {close[0]}/?" if close
            else "entries live in " + ", ".join(f + "/" for f in known))
    where = "the catalog root" if folder == "." else f"{folder}/"
    return Problem(shown, 1, 1, FILE_FIELD, f"{where} is not a catalog folder", hint)


def _load_file(path: Path, root: Path, shown_root: str,
               cwd: Path | None) -> tuple[Entry | None, list[Problem]]:
    shown = _shown(path, root, shown_root, cwd)
    rel = path.relative_to(root)
    kind = _kind_for(rel)
    if path.suffix != ".yaml":
        return None, [Problem(shown, 1, 1, FILE_FIELD, "catalog files end in .yaml",
                              f"rename to {path.stem}.yaml")]
    if kind is None:
        return None, [_not_a_folder(shown, rel)]
    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, [Problem(shown, 1, 1, FILE_FIELD, f"cannot read the file: {err.strerror}")]
    doc, problems = read_yaml(raw, shown)
    if doc is None:
        return None, problems
    try:
        # Lesson: strict *Python* validation refuses "low" for an enum and "2026-01-05" for a
        # date; strict JSON validation takes both and still refuses "4000" for a number.
        model = kind.model.model_validate_json(json.dumps(doc.data, allow_nan=False))
    except ValidationError as err:
        misplaced = wrong_folder(doc.data, kind, shown)
        if misplaced is not None:  # one message, not one "unknown field" per line
            return None, [*problems, misplaced]
        problems.extend(problems_from_validation(err, kind.model, doc))
        bad = frozenset(tuple(e["loc"]) for e in err.errors(include_url=False))
        partial = partial_model(kind.model, doc.data, bad)
        if partial is HOLE:  # not even a mapping: nothing for the rules to check
            return None, problems
        return Entry(kind, path.stem, partial, doc, partial=True), problems
    doc.data = None  # the model holds it now; positions come from doc.text (issue 47: fewer
    # objects for the garbage collector to scan for the rest of the build)
    return Entry(kind, path.stem, model, doc), problems


def load_catalog(root: Path, *, cwd: Path | None = None, docs_dir: Path | None = None,
                 needs: Iterable[Need] = (),
                 names: SiteNames | None = None) -> tuple[Catalog, list[Problem]]:
    """Read, validate and cross-check the catalog under ``root``; return it and all problems.
    ``needs`` are the entries the caller's code names by id (``tinkernomics.site.needs``);
    ``names`` the names the site uses itself and its own pages (``tinkernomics.site.reserved``:
    with them, the algorithm pages in ``docs_dir`` must each have their entry)."""
    with collector_paused():
        return _load(root, cwd, docs_dir, needs, names)


def _load(root: Path, cwd: Path | None, docs_dir: Path | None, needs: Iterable[Need],
          names: SiteNames | None) -> tuple[Catalog, list[Problem]]:
    catalog = Catalog(root=root)
    problems: list[Problem] = []
    shown_root = display_path(root, cwd)
    if not root.is_dir():
        return catalog, [Problem(shown_root, 1, 1, FILE_FIELD, "catalog folder not found")]
    for path in catalog_files(root):
        entry, found = _load_file(path, root, shown_root, cwd)
        problems.extend(found)
        if entry is not None:
            catalog.entries.setdefault(entry.kind.name, {})[entry.key] = entry
        elif path.suffix == ".yaml" and (kind := _kind_for(path.relative_to(root))):
            catalog.invalid.setdefault(kind.name, set()).add(path.stem)
    problems.extend(run_rules(catalog, docs_dir=docs_dir, needs=needs,
                              reserved=names.reserved if names else (),
                              shown_root=shown_root))
    problems.extend(run_kind_rules(catalog))
    if docs_dir is not None and docs_dir.is_dir():
        problems.extend(stray_yaml(docs_dir, cwd))
        if names is not None:
            problems.extend(pages_without_entries(catalog, docs_dir, names,
                                                  display_path(docs_dir, cwd), shown_root))
    return catalog, sorted(set(problems))


def load_valid_catalog(root: Path, *, docs_dir: Path | None = None, needs: Iterable[Need] = (),
                       names: SiteNames | None = None) -> Catalog:
    """Load the catalog for rendering; raise ``CatalogError`` with every problem if any."""
    from tinkernomics.catalog.problems import CatalogError

    catalog, problems = load_catalog(root, docs_dir=docs_dir, needs=needs, names=names)
    if problems:
        raise CatalogError(problems)
    return catalog
