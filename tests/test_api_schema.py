"""The public schema is versioned: the committed copy equals the generated one, and it may only
change together with an API_VERSION bump and a CHANGELOG_API.md entry."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers_api import files

from tinkernomics.site.api import feature as apisite
from tinkernomics.site.api import models as api
from tinkernomics.site.api.models import API_VERSION, api_schema, changelog_versions, schema_guard

REPO_ROOT = Path(__file__).parent.parent
CHANGELOG = REPO_ROOT / "CHANGELOG_API.md"
SCHEMA_REL = apisite.SCHEMA_FILE.relative_to(REPO_ROOT).as_posix()


def test_committed_schema_is_the_generated_one_with_a_changelog_entry() -> None:
    problems = schema_guard(apisite.committed_schema(), api_schema(),
                            CHANGELOG.read_text(encoding="utf-8"))
    assert not problems, "\n".join(p.message for p in problems)


def test_served_schema_is_the_committed_file() -> None:
    assert files("fixture")["schema.json"] == apisite.SCHEMA_FILE.read_bytes()
    assert json.loads(apisite.SCHEMA_FILE.read_text())["version"] == API_VERSION


def test_every_document_states_the_api_version() -> None:
    for path, body in files("fixture").items():
        if path.endswith(".json") and path != "schema.json":
            assert json.loads(body)["api_version"] == API_VERSION, path


# --------------------------------------------------------------------------- the guard itself

CHANGELOG_1_0 = "# Changelog\n\n## 1.0.0 — 2026-01-01\n\n- First.\n"
CHANGELOG_1_1 = "# Changelog\n\n## 1.1.0 — 2026-02-01\n\n- Added x.\n\n" + CHANGELOG_1_0[13:]


def schema(version: str, extra: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"$defs": {"A": {"type": "object"}}, "version": version}
    if extra:
        body["$defs"]["B"] = {"type": "string"}
    return body


def codes(committed: dict[str, Any] | None, generated: dict[str, Any], log: str) -> list[str]:
    return [p.code for p in schema_guard(committed, generated, log)]


def test_guard_accepts_an_unchanged_schema() -> None:
    assert codes(schema("1.0.0"), schema("1.0.0"), CHANGELOG_1_0) == []


def test_guard_refuses_a_changed_schema_without_a_version_bump() -> None:
    assert codes(schema("1.0.0"), schema("1.0.0", extra=True), CHANGELOG_1_0) == ["unbumped"]


def test_guard_refuses_a_bump_without_a_changelog_entry() -> None:
    assert codes(schema("1.0.0"), schema("1.1.0", extra=True), CHANGELOG_1_0) == [
        "changelog", "stale"]


def test_guard_asks_to_regenerate_after_a_proper_bump() -> None:
    found = schema_guard(schema("1.0.0"), schema("1.1.0", extra=True), CHANGELOG_1_1)
    assert [p.code for p in found] == ["stale"] and found[0].fixed_by_regenerating
    assert codes(schema("1.1.0", extra=True), schema("1.1.0", extra=True), CHANGELOG_1_1) == []


def test_guard_takes_a_major_bump_like_any_other_with_its_changelog_entry() -> None:
    """A new major version (a breaking change, a new /api/vN/ folder) is a version bump with a
    changelog entry; going back to the old major is refused."""
    log_2 = "# Changelog\n\n## 2.0.0 — 2026-12-06\n\n- Moved.\n\n" + CHANGELOG_1_1[13:]
    assert codes(schema("1.1.0"), schema("2.0.0", extra=True), log_2) == ["stale"]
    assert codes(schema("1.1.0"), schema("2.0.0", extra=True), CHANGELOG_1_1) == [
        "changelog", "stale"]
    assert "backwards" in codes(schema("2.0.0"), schema("1.2.0"), log_2)


def test_the_committed_schema_is_of_the_current_major_folder() -> None:
    """Its version, description and every document's ``api_version`` pattern name the major
    version of the folder the files are written to."""
    committed = apisite.committed_schema()
    assert committed is not None
    major = api.API_MAJOR.removeprefix("v")
    assert committed["version"].split(".")[0] == major
    assert f"/api/{api.API_MAJOR}/" in committed["description"]
    patterns = {d["properties"]["api_version"]["pattern"]
                for name, d in committed["$defs"].items() if name.endswith("Document")}
    assert patterns == {rf"^{major}\.\d+\.\d+$"}


def test_guard_refuses_a_version_going_backwards_or_an_older_top_entry() -> None:
    assert "backwards" in codes(schema("1.1.0"), schema("1.0.0"), CHANGELOG_1_0)
    assert codes(schema("1.0.0"), schema("1.0.0"), CHANGELOG_1_1) == ["changelog"]


def test_changelog_headings_are_read_newest_first() -> None:
    assert changelog_versions(CHANGELOG_1_1) == ["1.1.0", "1.0.0"]
    assert changelog_versions(CHANGELOG.read_text(encoding="utf-8"))[0] == API_VERSION


def test_a_changed_public_model_trips_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real generated schema changes when a public model does (the guard is not vacuous)."""
    real = api_schema()
    monkeypatch.setattr(api.Figure, "__doc__", "A number, described differently.")
    api.Figure.model_rebuild(force=True)
    try:
        changed = api_schema()
    finally:
        monkeypatch.undo()
        api.Figure.model_rebuild(force=True)
    assert changed != real
    assert codes(real, changed, CHANGELOG.read_text(encoding="utf-8")) == ["unbumped"]


def test_cli_refuses_to_rewrite_an_unbumped_change(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from tinkernomics import cli

    committed = tmp_path / "api_schema.json"
    old = {**api_schema(), "$defs": {}}
    committed.write_text(json.dumps(old))
    monkeypatch.setattr(apisite, "SCHEMA_FILE", committed)
    monkeypatch.setattr(apisite, "committed_schema",
                        lambda path=committed: json.loads(path.read_text()))
    assert cli.main(["api", "schema", "--changelog", str(CHANGELOG)]) == 1
    assert json.loads(committed.read_text()) == old
    assert "bump it" in capsys.readouterr().err


# --------------------------------------------------------------------------- history


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True,
                          check=False)


def _blobs(commits: list[str]) -> dict[str, str]:
    """The schema file's blob id at each commit that holds it (one ``git cat-file`` call)."""
    query = "".join(f"{c}:{SCHEMA_REL}\n" for c in commits)
    out = subprocess.run(["git", "-C", str(REPO_ROOT), "cat-file", "--batch-check"],
                         input=query, capture_output=True, text=True, check=True).stdout
    return {c: line.split()[0] for c, line in zip(commits, out.splitlines(), strict=True)
            if not line.endswith("missing")}


def _schema_blob(blob: str) -> dict[str, Any]:
    return json.loads(_git("cat-file", "-p", blob).stdout)


def test_every_committed_schema_change_came_with_a_new_version() -> None:
    """Across git history, each commit whose schema body differs from one of its parents' also
    raised the version above that parent's. Parents, not a flattened log: two branches may each
    raise 1.7.0 to 1.8.0, and the merge that holds both changes must then raise it again."""
    log = _git("log", "--format=%H %P", "HEAD")
    if log.returncode != 0 or not log.stdout.strip():
        pytest.skip("no git history here (not a clone)")
    edges = [line.split() for line in log.stdout.splitlines()]
    blobs = _blobs([e[0] for e in edges])
    if not blobs:
        pytest.skip("the schema has no git history here (not committed yet)")
    for commit, *parents in edges:
        for parent in parents:
            if commit not in blobs or parent not in blobs or blobs[commit] == blobs[parent]:
                continue
            current, before = _schema_blob(blobs[commit]), _schema_blob(blobs[parent])
            if api.schema_body(before) != api.schema_body(current):
                assert api._semver(current["version"]) > api._semver(before["version"]), (
                    f"commit {commit[:10]} changed the public schema of its parent "
                    f"{parent[:10]} without raising its version above {before['version']}")
