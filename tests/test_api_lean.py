"""API 2.0.0 (issue 47): a collection is a lean index of its entries, each lean entry links to
its whole document, and nothing of the API or the site still points at an older major
version."""

from __future__ import annotations

import json
import re

import pytest
from helpers_api import REPO_ROOT, documents, files

from tinkernomics.site.api.models import API_MAJOR, API_VERSION, collections
from tinkernomics.site.api.summaries import SUMMARY_FIELDS, summary_fields, summary_model
from tinkernomics.site.api.version import MAJOR, SEMVER_PATTERN


def test_a_collection_lists_only_the_summary_fields_of_each_entry() -> None:
    docs = documents("fixture")
    fewer = 0
    for c in collections():
        keys = summary_fields(c.kind, c.model)
        assert {"id", "api_path"} <= set(keys), c.path
        for lean in docs[f"{c.path}.json"]["result"]:
            assert tuple(lean) == tuple(sorted(keys)), (c.path, lean["id"])
            whole = docs[lean["api_path"]]["result"]
            assert {k: whole[k] for k in keys} == lean  # the same values, cut
            fewer += len(whole) > len(lean)
    assert fewer > 0  # some collection leaves fields out (old: every entry in full)


def test_every_lean_entry_links_to_an_existing_whole_document() -> None:
    out, docs = files("fixture"), documents("fixture")
    for c in collections():
        listed = docs[f"{c.path}.json"]["result"]
        assert [lean["api_path"] for lean in listed] == [
            f"{c.path}/{lean['id']}.json" for lean in listed]
        for lean in listed:
            assert lean["api_path"] in out
            assert docs[lean["api_path"]]["kind"] == c.kind
            assert docs[lean["api_path"]]["result"]["id"] == lean["id"]


def test_the_algorithms_collection_is_smaller_than_its_entries_together() -> None:
    """Not a second copy: the collection's bytes are a fraction of its entries' (old: more)."""
    out = files("fixture")
    entries = sum(len(body) for path, body in out.items() if path.startswith("algorithms/"))
    assert 0 < len(out["algorithms.json"]) < entries / 2


def test_the_index_no_longer_repeats_the_ids() -> None:
    index = documents("fixture")["index.json"]["result"]
    assert index["collections"] and all("ids" not in c for c in index["collections"])


def test_the_major_version_names_the_folder_and_the_schema_pattern() -> None:
    assert API_MAJOR == f"v{API_VERSION.split('.')[0]}" == f"v{MAJOR}"
    assert re.fullmatch(SEMVER_PATTERN, API_VERSION)
    assert not re.fullmatch(SEMVER_PATTERN, f"{MAJOR - 1}.99.0")
    schema = json.loads(files("fixture")["schema.json"])
    assert f"/api/{API_MAJOR}/" in schema["description"]


def test_a_summary_field_the_model_lacks_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    algorithms = next(c for c in collections() if c.kind == "algorithm")
    monkeypatch.setitem(SUMMARY_FIELDS, "algorithm", ("name", "wingspan"))
    with pytest.raises(ValueError, match=r"SUMMARY_FIELDS\['algorithm'\] names wingspan"):
        summary_fields("algorithm", algorithms.model)


def test_an_undeclared_kind_lists_id_name_and_api_path() -> None:
    algorithms = next(c for c in collections() if c.kind == "algorithm")
    assert summary_fields("gizmo", algorithms.model) == ("id", "name", "api_path")
    assert set(summary_model("gizmo", algorithms.model).model_fields) == {
        "id", "name", "api_path"}


SCANNED = ("tinkernomics", "docs", "site_overrides", "macros", "tests", "benchmarks")
SUFFIXES = {".py", ".j2", ".html", ".md", ".js", ".yml", ".yaml", ".css"}


def test_nothing_links_to_an_older_major_version() -> None:
    """Every link of the site and the package to the API names the current folder: an older
    major's folder is written nowhere (only CHANGELOG_API.md tells its history)."""
    old = re.compile(rf"api/v(?:{'|'.join(str(n) for n in range(1, MAJOR))})\b")
    found = []
    for top in SCANNED:
        for path in sorted((REPO_ROOT / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and "fixtures" not in path.parts:
                text = path.read_text(encoding="utf-8", errors="replace")
                found += [f"{path.relative_to(REPO_ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
                          for m in old.finditer(text)]
    assert not found, found
