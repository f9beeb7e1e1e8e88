"""Load the whole catalog: files -> YAML -> models -> rules (pipeline steps 1-4).

``KINDS`` says where each kind of entry lives (one entry per file, file name = id).
``load_catalog`` reads every file, validates it, runs every cross-entry rule and returns the
catalog together with ALL problems found. Callers decide what to do with them: the CLI prints
them, the site build raises ``CatalogError``.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from tinkernomics import models as m
from tinkernomics.problems import FILE_FIELD, Problem, format_loc
from tinkernomics.pydantic_errors import problems_from_validation
from tinkernomics.yamlread import Loc, YamlDoc, read_yaml

SCHEMA_DIR = "schema"
"""Sub-folder of the catalog that holds the generated JSON Schemas (not entries)."""


@dataclass(frozen=True)
class Kind:
    """A kind of catalog entry: its model and the folder its files live in."""

    name: str
    model: type[m.StrictModel]
    folder: str
    title: str

    def schema_file(self) -> str:
        return f"{self.name}.schema.json"


KINDS: tuple[Kind, ...] = (
    Kind("algorithm", m.Algorithm, "algorithms", "Algorithms"),
    Kind("reference", m.Reference, "references", "References"),
    Kind("formula", m.Formula, "formulas", "Formulas"),
    Kind("hardware", m.Hardware, "hardware", "Hardware"),
    Kind("conversion", m.Conversion, "conversions", "Conversions"),
    Kind("model", m.LanguageModel, "models", "Models"),
    Kind("loss", m.TinkerLoss, "tinker/losses", "Tinker losses"),
    Kind("price_list", m.PriceList, "tinker/prices", "Tinker price lists"),
    Kind("platform", m.TinkerPlatform, "tinker", "Tinker platform"),
)
KINDS_BY_NAME = {kind.name: kind for kind in KINDS}

T = TypeVar("T", bound=BaseModel)


@dataclass
class Entry:
    """A validated entry and the file it came from."""

    kind: Kind
    key: str
    """The file name without `.yaml`; equals ``model.id`` in a valid catalog."""
    model: Any
    doc: YamlDoc


@dataclass
class Catalog:
    """Every valid entry, by kind and id, with positions for locating rule problems."""

    root: Path
    entries: dict[str, dict[str, Entry]] = field(default_factory=dict)
    invalid: dict[str, set[str]] = field(default_factory=dict)
    """Ids (file names) of entries whose file exists but did not validate, by kind."""
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Traversals computed once per loaded catalog (see ``rules._nested``); read-only after load."""

    def of(self, kind: str) -> dict[str, Any]:
        """Models of one kind, by id (file name), in id order."""
        return {k: e.model for k, e in sorted(self.entries.get(kind, {}).items())}

    def ids(self, kind: str) -> set[str]:
        return set(self.entries.get(kind, {}))

    def known_ids(self, kind: str) -> set[str]:
        """Ids of valid entries plus those of files that exist but failed validation: a link to
        a broken file is not reported a second time as an unknown id."""
        return self.ids(kind) | self.invalid.get(kind, set())

    def entry(self, kind: str, entry_id: str) -> Entry:
        return self.entries[kind][entry_id]

    def problem(self, kind: str, entry_id: str, loc: Loc, message: str,
                hint: str | None = None, *, key: bool = False) -> Problem:
        """A Problem located at ``loc`` inside entry ``kind/entry_id``."""
        doc = self.entries[kind][entry_id].doc
        line, col = doc.where(loc, key=key)
        return Problem(doc.path, line, col, format_loc(loc), message, hint)

    def iter_entries(self) -> Iterator[Entry]:
        for kind in KINDS:
            for _, entry in sorted(self.entries.get(kind.name, {}).items()):
                yield entry

    # Typed accessors used by derive/site code.
    @property
    def algorithms(self) -> dict[str, m.Algorithm]:
        return self.of("algorithm")

    @property
    def references(self) -> dict[str, m.Reference]:
        return self.of("reference")

    @property
    def formulas(self) -> dict[str, m.Formula]:
        return self.of("formula")

    @property
    def hardware(self) -> dict[str, m.Hardware]:
        return self.of("hardware")

    @property
    def conversions(self) -> dict[str, m.Conversion]:
        return self.of("conversion")

    @property
    def models(self) -> dict[str, m.LanguageModel]:
        return self.of("model")

    @property
    def losses(self) -> dict[str, m.TinkerLoss]:
        return self.of("loss")

    @property
    def price_lists(self) -> dict[str, m.PriceList]:
        return self.of("price_list")

    @property
    def platform(self) -> m.TinkerPlatform | None:
        return self.of("platform").get("tinker")


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Path as printed in problems: relative to the current directory when possible."""
    try:
        return os.path.relpath(path, cwd or Path.cwd())
    except ValueError:  # pragma: no cover - other drive on Windows
        return str(path)


def _kind_for(rel: Path) -> Kind | None:
    folder = rel.parent.as_posix()
    for kind in KINDS:
        if kind.folder == folder:
            return kind
    return None


def catalog_files(root: Path) -> list[Path]:
    """Every YAML file under the catalog root except generated schemas, sorted."""
    files = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts and rel.parts[0] == SCHEMA_DIR:
            continue
        if path.is_file() and path.suffix.lower() in (".yaml", ".yml"):  # .YAML is reported
            files.append(path)
    return files


def _not_a_folder(shown: str, rel: Path) -> Problem:
    folder = rel.parent.as_posix()
    known = [k.folder for k in KINDS]
    close = difflib.get_close_matches(folder, known, n=1, cutoff=0.6)
    hint = (f"did you mean {close[0]}/?" if close
            else "entries live in " + ", ".join(f + "/" for f in known))
    where = "the catalog root" if folder == "." else f"{folder}/"
    return Problem(shown, 1, 1, FILE_FIELD, f"{where} is not a catalog folder", hint)


def _load_file(path: Path, root: Path, cwd: Path | None) -> tuple[Entry | None, list[Problem]]:
    shown = display_path(path, cwd)
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
        problems.extend(problems_from_validation(err, kind.model, doc))
        return None, problems
    return Entry(kind, path.stem, model, doc), problems


def load_catalog(root: Path, *, cwd: Path | None = None,
                 docs_dir: Path | None = None) -> tuple[Catalog, list[Problem]]:
    """Read, validate and cross-check the catalog under ``root``; return it and all problems."""
    from tinkernomics.rules import run_rules  # rules import this module

    catalog = Catalog(root=root)
    problems: list[Problem] = []
    if not root.is_dir():
        return catalog, [Problem(display_path(root, cwd), 1, 1, FILE_FIELD,
                                 "catalog folder not found")]
    for path in catalog_files(root):
        entry, found = _load_file(path, root, cwd)
        problems.extend(found)
        if entry is not None:
            catalog.entries.setdefault(entry.kind.name, {})[entry.key] = entry
        elif path.suffix == ".yaml" and (kind := _kind_for(path.relative_to(root))):
            catalog.invalid.setdefault(kind.name, set()).add(path.stem)
    problems.extend(run_rules(catalog, docs_dir=docs_dir))
    return catalog, sorted(set(problems))


def load_valid_catalog(root: Path, *, docs_dir: Path | None = None) -> Catalog:
    """Load the catalog for rendering; raise ``CatalogError`` with every problem if any."""
    from tinkernomics.problems import CatalogError

    catalog, problems = load_catalog(root, docs_dir=docs_dir)
    if problems:
        raise CatalogError(problems)
    return catalog
