"""JSON Schemas for editors, generated from the authoring models (one source of truth).

``tinkernomics schema`` writes ``catalog/schema/<kind>.schema.json``; a test fails when the
committed files differ from what the models generate. Field descriptions travel along, so an
editor with the YAML language server shows the same help as the Fields reference page.
"""

from __future__ import annotations

import json
from pathlib import Path

from tinkernomics.catalog.entries import KINDS, Kind

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_for(kind: Kind) -> dict[str, object]:
    """The JSON Schema of one kind of entry."""
    schema = kind.model.model_json_schema(mode="validation")
    schema["$schema"] = SCHEMA_DIALECT
    schema["title"] = f"tinker-nomics {kind.name} entry"
    schema["description"] = (kind.model.__doc__ or "").strip().splitlines()[0]
    return schema


def render_schemas() -> dict[str, str]:
    """File name -> JSON text, deterministic (sorted keys, trailing newline)."""
    return {
        kind.schema_file(): json.dumps(schema_for(kind), indent=2, sort_keys=True,
                                       ensure_ascii=False) + "\n"
        for kind in KINDS
    }


def write_schemas(directory: Path) -> list[Path]:
    """Write every schema into ``directory``; return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_schemas(directory: Path) -> list[str]:
    """Names of schema files that are missing or differ from the models."""
    stale = []
    for name, text in render_schemas().items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale
