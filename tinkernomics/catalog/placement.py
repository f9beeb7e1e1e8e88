"""Where a file belongs (pipeline step 1 -> 2): entries in the wrong folder, YAML outside catalog/.

A contributor who saves an algorithm under ``catalog/references/`` would otherwise get one
"unknown field" per line; a YAML file dropped into ``docs/`` would pass ``validate`` and then
break the build. Both are told, in one message, where the file should go.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tinkernomics.catalog.entries import KINDS, Kind
from tinkernomics.catalog.problems import FILE_FIELD, Problem
from tinkernomics.catalog.yamlread import read_yaml

MIN_UNKNOWN_FIELDS = 2
"""A file is said to be in the wrong folder only when at least this many of its fields are
unknown to its folder's kind (one unknown field is a typo, not a misplaced file)."""


def _article(name: str) -> str:
    return "an" if name[0] in "aeiou" else "a"


def kind_of_fields(data: Any, exclude: Kind | None = None) -> Kind | None:
    """The kind whose fields include every top-level key of ``data`` (most keys in common
    first), other than ``exclude``; None when no kind fits."""
    if not isinstance(data, dict) or not data:
        return None
    keys = set(data)
    fits = [k for k in KINDS if k is not exclude and keys <= set(k.model.model_fields)]
    return max(fits, key=lambda k: len(keys & set(k.model.model_fields)), default=None)


def wrong_folder(data: Any, kind: Kind, shown: str) -> Problem | None:
    """A file-level problem when ``data`` is clearly another kind of entry than its folder's."""
    if not isinstance(data, dict):
        return None
    unknown = set(data) - set(kind.model.model_fields)
    other = kind_of_fields(data, exclude=kind)
    if len(unknown) < MIN_UNKNOWN_FIELDS or other is None:
        return None
    return Problem(shown, 1, 1, FILE_FIELD,
                   f"this looks like {_article(other.name)} {other.name}, not "
                   f"{_article(kind.name)} {kind.name}",
                   f"move it to catalog/{other.folder}/")


def stray_yaml(docs_dir: Path, cwd: Path | None = None) -> list[Problem]:
    """Every YAML file under ``docs_dir``: pages live there, catalog entries never do."""
    problems = []
    for path in sorted(docs_dir.rglob("*")):
        if not (path.is_file() and path.suffix.lower() in (".yaml", ".yml")):
            continue
        shown = os.path.relpath(path, cwd or Path.cwd())
        doc, _ = read_yaml(path.read_bytes(), shown)
        kind = kind_of_fields(doc.data if doc else None)
        if kind is not None:
            problems.append(Problem(
                shown, 1, 1, FILE_FIELD,
                f"this looks like {_article(kind.name)} {kind.name} entry outside catalog/",
                f"move it to catalog/{kind.folder}/ (a file name no entry has yet)"))
        else:
            problems.append(Problem(shown, 1, 1, FILE_FIELD,
                                    "YAML files do not belong in docs/ (the site reads pages "
                                    "there, and catalog entries from catalog/)",
                                    "move it out of docs/; entries go under catalog/<folder>/"))
    return problems
