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


def test_every_committed_schema_change_came_with_a_new_version() -> None:
    """Across git history, each commit that changed the schema body also raised its version."""
    log = _git("log", "--format=%H", "--reverse", "--", SCHEMA_REL)
    if log.returncode != 0 or not log.stdout.strip():
        pytest.skip("the schema has no git history here (not a clone, or not committed yet)")
    previous: dict[str, Any] | None = None
    for commit in log.stdout.split():
        shown = _git("show", f"{commit}:{SCHEMA_REL}")
        if shown.returncode != 0:  # deleted in this commit
            continue
        current = json.loads(shown.stdout)
        if previous is not None and api.schema_body(previous) != api.schema_body(current):
            assert api._semver(current["version"]) > api._semver(previous["version"]), (
                f"commit {commit[:10]} changed the public schema without bumping its version")
        previous = current
