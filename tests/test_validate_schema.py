"""Editor JSON Schemas are generated, committed and fresh; the real catalog validates."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers_catalog import VALID_CATALOG, run_validate
from jsonschema import Draft202012Validator

from tinkernomics import cli
from tinkernomics.catalog.entries import KINDS, Kind
from tinkernomics.catalog.loader import catalog_files
from tinkernomics.catalog.schema import SCHEMA_DIALECT, render_schemas, stale_schemas, write_schemas
from tinkernomics.catalog.yamlread import read_yaml

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.MULTILINE)


def _schema(directory: Path, kind: Kind) -> dict[str, Any]:
    return json.loads((directory / kind.schema_file()).read_text(encoding="utf-8"))


def _run_schema(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["schema", *args])
    return code, out.getvalue()


def test_committed_schemas_are_fresh(repo_root: Path) -> None:
    code, out = _run_schema("--check", str(repo_root / "catalog"))
    assert code == 0, f"{out}\nregenerate with: .venv/bin/tinkernomics schema catalog"
    assert stale_schemas(repo_root / "catalog" / "schema") == []


def test_stale_check_fails_on_a_changed_or_missing_schema(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    write_schemas(catalog / "schema")
    assert _run_schema("--check", str(catalog))[0] == 0
    changed = catalog / "schema" / KINDS[0].schema_file()
    changed.write_text(changed.read_text(encoding="utf-8").replace('"', "'", 1), encoding="utf-8")
    (catalog / "schema" / KINDS[1].schema_file()).unlink()
    code, out = _run_schema("--check", str(catalog))
    assert code == 1
    assert sorted(out.splitlines()) == sorted(
        f"{catalog / 'schema' / k.schema_file()}:1:1: (file): schema is stale "
        "(hint: run `tinkernomics schema`)" for k in KINDS[:2])


def test_schemas_are_deterministic() -> None:
    assert render_schemas() == render_schemas()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_field_descriptions_reach_the_schema(repo_root: Path, kind: Kind) -> None:
    schema = _schema(repo_root / "catalog" / "schema", kind)
    assert schema["$schema"] == SCHEMA_DIALECT
    assert schema["additionalProperties"] is False
    for name, info in kind.model.model_fields.items():
        assert info.description, f"{kind.model.__name__}.{name} has no description"
        assert schema["properties"][name]["description"] == info.description


def test_nested_model_descriptions_reach_the_schema(repo_root: Path) -> None:
    from tinkernomics.catalog.models import Figure

    schema = _schema(repo_root / "catalog" / "schema", KINDS[0])
    figure = schema["$defs"]["Figure"]
    assert figure["additionalProperties"] is False
    for name, info in Figure.model_fields.items():
        assert figure["properties"][name]["description"] == info.description


def _kind_of(path: Path, root: Path) -> Kind:
    folder = path.relative_to(root).parent.as_posix()
    return next(k for k in KINDS if k.folder == folder)


@pytest.mark.parametrize("path", catalog_files(VALID_CATALOG),
                         ids=lambda p: p.relative_to(VALID_CATALOG).as_posix())
def test_editor_schema_accepts_the_valid_fixture(repo_root: Path, path: Path) -> None:
    """What the validator accepts, the editor must not underline."""
    doc, problems = read_yaml(path.read_bytes(), str(path))
    assert problems == [] and doc is not None
    schema = _schema(repo_root / "catalog" / "schema", _kind_of(path, VALID_CATALOG))
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(doc.data)]
    assert errors == []


def test_editor_schema_rejects_an_unknown_nested_field(repo_root: Path) -> None:
    doc, _ = read_yaml((VALID_CATALOG / "hardware" / "h100.yaml").read_bytes(), "h100.yaml")
    assert doc is not None
    data = {**doc.data, "memory_gb": {**doc.data["memory_gb"], "units": "gb"}}
    hardware = next(k for k in KINDS if k.name == "hardware")
    validator = Draft202012Validator(_schema(repo_root / "catalog" / "schema", hardware))
    assert not validator.is_valid(data)


def test_catalog_modelines_point_at_the_right_schema(repo_root: Path) -> None:
    root = repo_root / "catalog"
    for path in catalog_files(root):
        match = MODELINE.search(path.read_text(encoding="utf-8"))
        if match is None:
            continue
        target = (path.parent / match[1]).resolve()
        expected = root / "schema" / _kind_of(path, root).schema_file()
        assert target == expected.resolve(), path


def test_real_catalog_validates(repo_root: Path) -> None:
    run = run_validate(repo_root, "catalog")
    assert run.code == 0, run.out
    assert run.out.startswith("catalog OK: ")


@pytest.mark.parametrize(("status", "asserted_by", "valid"), [
    ("unverified", "contributor", True),
    ("unverified", None, False),
    ("reported", None, True),
    ("reported", "original_site", False),
])
def test_schema_requires_asserted_by_exactly_when_unverified(
        status: str, asserted_by: str | None, valid: bool) -> None:
    schema = json.loads(render_schemas()["hardware.schema.json"])
    figure = {"value": 1.0, "unit": "gb", "status": status, "source": "x"}
    if asserted_by:
        figure["asserted_by"] = asserted_by
    entry = {"id": "h", "name": "H", "bf16_dense_tflops": {**figure, "unit": "tflops"},
             "memory_gb": figure}
    errors = list(Draft202012Validator(schema).iter_errors(entry))
    assert (not errors) is valid, [e.message for e in errors]
