"""API files: every document validates against the served schema, CSV equals JSON, the zip holds
everything, checksums match, and output is deterministic (no wall clock)."""

from __future__ import annotations

import copy
import csv
import datetime as dt
import hashlib
import io
import json
import os
import subprocess
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from helpers_api import FIXED_TIME, catalog, documents, files, whole_entries
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.api.files import (
    ARCHIVE,
    ARCHIVE_FOLDER,
    ENTRIES_SUFFIX,
    README,
    data_last_changed,
    render_api,
    write_api,
)
from tinkernomics.site.api.models import API_MAJOR, collections, responses

CATALOGS = ["fixture", "real"]


@cache
def served_validator(name: str, definition: str | None = None) -> Draft202012Validator:
    """A validator for the served schema (or one of its definitions), made once per pair: every
    document of a kind is checked by the same one."""
    schema = json.loads(files(name)["schema.json"])
    if definition is not None:
        schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator(schema)


# --------------------------------------------------------------------------- schema


@pytest.mark.parametrize("name", CATALOGS)
def test_every_document_validates_against_the_served_schema(name: str) -> None:
    Draft202012Validator.check_schema(json.loads(files(name)["schema.json"]))
    whole = served_validator(name)
    for path, doc in documents(name).items():
        whole.validate(doc)
        # ...and against the definition its kind names, so oneOf cannot hide a mismatch
        served_validator(name, responses()[doc["kind"]].__name__).validate(doc)
        assert doc["kind"].endswith("_collection") == (path.removesuffix(".json") in
                                                       {c.path: c for c in collections()}), path


@pytest.mark.parametrize("mutate", [
    lambda d: d["result"].update(surprise=1),
    lambda d: d["result"]["scalerl"]["A"].update(source=None),
    lambda d: d["result"]["scalerl"]["C_mid_h100_equivalent"].update(derivation=None),
    lambda d: d["result"]["scalerl"]["A"].update(unit="furlongs"),
    lambda d: d["result"].pop("typical_g"),
    lambda d: d.update(api_version="1.12.0"),
], ids=["unknown key", "figure without source", "derived without derivation", "bad unit",
        "missing key", "other major version"])
def test_the_schema_rejects_broken_documents(mutate) -> None:
    doc = copy.deepcopy(documents("fixture")["algorithms/grpo.json"])
    mutate(doc)
    with pytest.raises(ValidationError):
        served_validator("fixture").validate(doc)


# --------------------------------------------------------------------------- CSV


def parse_like(cell: str, reference: Any) -> Any:
    """A CSV cell read back as the type of the JSON value it stands for."""
    if reference is None:
        return None if cell == "" else cell
    if isinstance(reference, bool):
        return {"true": True, "false": False}[cell]
    if isinstance(reference, int):
        return int(cell)
    if isinstance(reference, float):
        return float(cell)
    if isinstance(reference, list):
        sample = reference[0] if reference else ""
        return [parse_like(part, sample) for part in cell.split(";")] if cell else []
    return cell


def read_csv(name: str, file: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(files(name)[file].decode("utf-8"), newline="")))


def dig(value: Any, *keys: str) -> Any:
    for key in keys:
        value = None if value is None else value[key]
    return value


ALGORITHM_CSV = {
    **{k: (k,) for k in ("id", "name", "full_name", "attribution", "year", "models_in_memory",
                         "needs_critic", "needs_reward_model", "memory_profile", "async_support",
                         "online", "tinker_losses", "references", "page")},
    **{f"typical_{x}": (f"typical_{x}", "values") for x in "kg"},
    **{f"typical_{x}_{p}": (f"typical_{x}", p) for x in "kg" for p in ("status", "source")},
}
SCALERL_CSV = {
    "algorithm": ("id",), "name": ("name",), "model": ("scalerl", "model"),
    "dataset": ("scalerl", "dataset"), "curve_label": ("scalerl", "curve_label"),
    "A_percent": ("scalerl", "A", "value"), "B": ("scalerl", "B", "value"),
    "C_mid_gb200_hours": ("scalerl", "C_mid", "value"), "R0_percent": ("scalerl", "R0", "value"),
    **{f"{p}_{k}": ("scalerl", p, k) for p in ("A", "B", "C_mid", "R0")
       for k in ("status", "source")},
    "C_mid_h100_equivalent_hours": ("scalerl", "C_mid_h100_equivalent", "value"),
    "C_mid_h100_equivalent_status": ("scalerl", "C_mid_h100_equivalent", "status"),
    "C_mid_h100_equivalent_inputs_status": ("scalerl", "C_mid_h100_equivalent", "derivation",
                                            "inputs_status"),
}


def provenance_columns(columns: dict[str, tuple[str, ...]]) -> set[str]:
    """What every API CSV adds (issue 46): a title and URL after each source column, then the
    date the data last changed and the licence."""
    sources = [c for c in columns if c == "source" or c.endswith("_source")]
    return ({f"{c}_{k}" for c in sources for k in ("title", "url")}
            | {"data_last_changed", "licence"})


def assert_rows_match(rows: list[dict[str, str]], items: list[dict[str, Any]],
                      columns: dict[str, tuple[str, ...]]) -> None:
    assert len(rows) == len(items) > 0
    assert set(rows[0]) == set(columns) | provenance_columns(columns)
    for row, item in zip(rows, items, strict=True):
        for column, keys in columns.items():
            expected = dig(item, *keys)
            assert parse_like(row[column], expected) == expected, (column, item.get("id"))


@pytest.mark.parametrize("name", CATALOGS)
def test_algorithms_csv_reads_back_as_the_json(name: str) -> None:
    items = whole_entries(name, "algorithms")
    assert_rows_match(read_csv(name, "algorithms.csv"), items, ALGORITHM_CSV)


@pytest.mark.parametrize("name", CATALOGS)
def test_scalerl_csv_reads_back_as_the_json(name: str) -> None:
    items = [a for a in whole_entries(name, "algorithms") if a["scalerl"]]
    assert_rows_match(read_csv(name, "scalerl.csv"), items, SCALERL_CSV)


@pytest.mark.parametrize("name", CATALOGS)
def test_prices_csv_has_one_row_per_list_model_and_variant_equal_to_the_json(name: str) -> None:
    lists = whole_entries(name, "prices")
    items = [{"list": p, "row": r} for p in lists for r in p["rows"]]
    columns = {
        "price_list": ("list", "id"), "effective": ("list", "effective"),
        "latest": ("list", "latest"), "model": ("row", "model"),
        "model_name": ("row", "model_name"), "variant": ("row", "variant"),
        **{f"{t}_usd_per_million_tokens": ("row", t, "value")
           for t in ("prefill", "sample", "train")},
        "status": ("row", "train", "status"), "source": ("row", "train", "source"),
        "note": ("row", "note"),
    }
    rows = read_csv(name, "prices.csv")
    assert_rows_match(rows, items, columns)
    keys = [(r["price_list"], r["model"], r["variant"]) for r in rows]
    assert len(keys) == len(set(keys))
    assert sum(len(p.rows) for p in catalog(name).price_lists.values()) == len(rows)


@pytest.mark.parametrize("name", CATALOGS)
def test_curve_csv_holds_every_curve_point(name: str) -> None:
    algos = [a for a in whole_entries(name, "algorithms") if a["scalerl"]]
    items = [{"id": a["id"], **p} for a in algos for p in a["scalerl"]["curve"]["points"]]
    columns = {"algorithm": ("id",), "gb200_hours": ("gb200_hours",),
               "h100_equivalent_hours": ("h100_equivalent_hours",),
               "reward_percent": ("reward_percent",)}
    assert_rows_match(read_csv(name, "scalerl_curves.csv"), items, columns)


# --------------------------------------------------------------------------- index and zip


@pytest.mark.parametrize("name", CATALOGS)
def test_index_lists_every_other_file_with_its_checksum(name: str) -> None:
    out = files(name)
    index = json.loads(out["index.json"])["result"]
    listed = {f["path"]: f for f in index["files"]}
    assert set(listed) == set(out) - {"index.json", ARCHIVE}
    for path, info in listed.items():
        assert info["bytes"] == len(out[path])
        assert info["sha256"] == hashlib.sha256(out[path]).hexdigest()
    assert index["last_changed"] == "2026-07-17T12:30:00Z"
    assert set(index["csv"]) <= set(out)


def entry_files(out: dict[str, bytes]) -> dict[str, list[str]]:
    """Each collection's per-entry files, in the order its lean collection lists them."""
    return {c.path: [item["api_path"] for item in json.loads(out[f"{c.path}.json"])["result"]]
            for c in collections()}


@pytest.mark.parametrize("name", CATALOGS)
def test_the_archive_is_the_api_folder_with_one_entries_file_per_collection(name: str) -> None:
    """Everything in one request, each byte once: every served file but the zip itself and
    the per-entry files, byte for byte; each collection's whole entries as one JSON Lines file
    whose lines are those per-entry files in id order (so the index's checksums hold for
    them); and a README."""
    out = files(name)
    by_collection = entry_files(out)
    per_entry = {p for paths in by_collection.values() for p in paths}
    assert per_entry == {p for p in out if "/" in p}
    assert any(p.startswith("algorithms/") for p in per_entry)
    with zipfile.ZipFile(io.BytesIO(out[ARCHIVE])) as archive:
        assert archive.testzip() is None
        members = {i.filename.removeprefix(f"{ARCHIVE_FOLDER}/"): i for i in archive.infolist()}
        lines = {c: f"{c}{ENTRIES_SUFFIX}" for c in by_collection}
        assert set(members) == (set(out) - {ARCHIVE} - per_entry) | set(lines.values()) | {README}
        for path, info in members.items():
            assert info.date_time == (2026, 7, 17, 12, 30, 0)
            if path in out:
                assert archive.read(info) == out[path]
        for collection, paths in by_collection.items():
            body = archive.read(members[lines[collection]])
            assert body.splitlines(keepends=True) == [out[p] for p in paths]
        readme = archive.read(members[README]).decode("utf-8")
    index = {f["path"]: f["sha256"] for f in json.loads(out["index.json"])["result"]["files"]}
    first = sorted(per_entry)[0]
    assert index[first] == hashlib.sha256(out[first]).hexdigest()
    assert f"tinkernomics-data-{API_MAJOR}" == ARCHIVE_FOLDER
    assert "CC BY 4.0" in readme and "How to cite" in readme
    assert f"`algorithms{ENTRIES_SUFFIX}`" in readme and "api_path" in readme
    assert "<id>.json" in readme  # says how a line maps to the served file
    for path in ("algorithms.csv", "prices.csv", "scalerl.csv", "schema.json", "index.json"):
        assert f"`{path}`" in readme


# --------------------------------------------------------------------------- determinism


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_write_byte_identical_trees(tmp_path: Path, catalog_copy: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Two independent loads and renders of one catalog give identical API trees, and a
    stale file from an earlier build does not survive."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    outs = []
    for n in range(2):
        out = tmp_path / f"site{n}" / "api" / API_MAJOR
        out.mkdir(parents=True)
        (out / "stale.json").write_text("{}")
        cat = load_valid_catalog(catalog_copy)
        write_api(render_api(cat, last_changed=data_last_changed(cat.root)), out)
        outs.append(tree(out))
    assert outs[0] == outs[1]
    assert "stale.json" not in outs[0] and "algorithms/grpo.json" in outs[0]


def test_writing_over_an_earlier_tree_keeps_exactly_the_new_files(tmp_path: Path) -> None:
    """An earlier build's files are written over in place (same inode), the rest go, with the
    folders they leave empty; a folder where a file must go is replaced."""
    out = tmp_path / "api"
    write_api({"a/b.json": b"1", "c.json": b"1", "old/deep/x.json": b"1", "d/e.json": b"1"}, out)
    inode = (out / "a" / "b.json").stat().st_ino
    write_api({"a/b.json": b"2", "d": b"3"}, out)
    assert tree(out) == {"a/b.json": b"2", "d": b"3"}
    assert (out / "a" / "b.json").stat().st_ino == inode
    assert sorted(p.name for p in out.iterdir()) == ["a", "d"]


def test_source_date_epoch_sets_last_changed(catalog_copy: Path) -> None:
    when = data_last_changed(catalog_copy, {"SOURCE_DATE_EPOCH": "1784291400"})
    assert when == dt.datetime(2026, 7, 17, 12, 30, tzinfo=dt.UTC)


def test_outside_git_last_changed_is_the_newest_catalog_file(catalog_copy: Path) -> None:
    stamp = 1_700_000_000
    for path in catalog_copy.rglob("*.yaml"):
        os.utime(path, (stamp - 500, stamp - 500))
    os.utime(catalog_copy / "algorithms" / "ppo.yaml", (stamp, stamp))
    assert data_last_changed(catalog_copy, {}) == dt.datetime.fromtimestamp(stamp, tz=dt.UTC)


def test_in_git_last_changed_is_the_newest_commit_touching_the_catalog(tmp_path: Path,
                                                                       catalog_copy: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}

    def git(*args: str, date: str | None = None) -> None:
        extra = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {}
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                       env={**env, **extra})

    git("init", "-q")
    git("add", "catalog")
    git("commit", "-q", "-m", "catalog", date="2026-03-01T10:00:00+02:00")
    (tmp_path / "elsewhere.txt").write_text("not catalog data")
    git("add", "elsewhere.txt")
    git("commit", "-q", "-m", "other", date="2026-05-01T00:00:00+00:00")
    assert data_last_changed(catalog_copy, {}) == dt.datetime(2026, 3, 1, 8, 0, tzinfo=dt.UTC)


def test_rendering_is_a_pure_function_of_catalog_and_time() -> None:
    again = render_api(load_valid_catalog(catalog("real").root), last_changed=FIXED_TIME,
                       site_url="https://example.org/tn/")
    assert again == files("real")


def test_documents_built_without_validation_are_what_validation_gives() -> None:
    """Issue 47: an entry is validated once, when its public model is made; its document and
    its collection's lean copy are not validated again. Each must be what validating it
    alone gives."""
    from tinkernomics.site.api.models import document

    docs = documents("fixture")
    checked = 0
    for c in collections():
        whole = docs[f"{c.path}.json"]
        assert whole == document(f"{c.kind}_collection", whole["result"],
                                 count=len(whole["result"]))
        for lean in whole["result"]:
            alone = docs[lean["api_path"]]
            assert alone == document(c.kind, alone["result"])
            checked += 1
    assert checked
