"""`tinkernomics new`: every field documented, required placeholders fail validation by name,
optional blocks uncomment into placeholders, nothing is overwritten, CONTRIBUTING.md is fresh."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers_contrib import (
    conditional_placeholders,
    null_leaves,
    required_placeholders,
    run_cli,
    run_cli_in_process,
)

from tinkernomics.catalog.entries import KINDS, KINDS_BY_NAME
from tinkernomics.catalog.fields import STATUS_MEANINGS
from tinkernomics.catalog.loader import load_catalog
from tinkernomics.site.contributing.fieldsdoc import field_docs, nested_models
from tinkernomics.site.contributing.scaffold import render_entry, scaffold_kinds, sync_templates

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in-process (fast); the GitHub annotation test below runs the console script."""
    return run_cli_in_process(*args, cwd=cwd)


@pytest.fixture
def refs_only(tmp_path: Path) -> Path:
    """The real references (so sources resolve) in an otherwise empty catalog."""
    shutil.copytree(ROOT / "catalog" / "references", tmp_path / "catalog" / "references")
    return tmp_path


@pytest.mark.parametrize("kind_name", scaffold_kinds())
def test_every_field_of_every_nested_model_is_commented(kind_name: str) -> None:
    kind = KINDS_BY_NAME[kind_name]
    text = render_entry(kind, "x1")
    for model in (kind.model, *nested_models(kind.model)):
        for doc in field_docs(model):
            state = ("REQUIRED" if doc.required else
                     "REQUIRED when status is reported" if doc.required_when else "optional")
            assert re.search(rf"# {re.escape(doc.name)} — {state}\b", text), (model, doc.name)
            if doc.description:
                first_words = " ".join(doc.description.split()[:3])
                assert first_words in " ".join(text.replace("#", " ").split()), doc.name


@pytest.mark.parametrize("kind_name", scaffold_kinds())
def test_modeline_points_at_the_kinds_schema(kind_name: str) -> None:
    kind = KINDS_BY_NAME[kind_name]
    first = render_entry(kind, "x1").splitlines()[0]
    match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
    assert match
    target = posixpath.normpath(posixpath.join("catalog", kind.folder, match[1]))
    assert target == f"catalog/schema/{kind.schema_file()}"


@pytest.mark.parametrize("kind_name", scaffold_kinds())
def test_new_entry_fails_naming_exactly_its_empty_required_fields(
        kind_name: str, refs_only: Path) -> None:
    kind = KINDS_BY_NAME[kind_name]
    result = run("new", kind_name, "x1", cwd=refs_only)
    assert result.returncode == 0, result.stderr
    path = refs_only / "catalog" / kind.folder / "x1.yaml"
    assert path.read_text(encoding="utf-8") == render_entry(kind, "x1")
    assert null_leaves(yaml.safe_load(path.read_text(encoding="utf-8"))) == \
        required_placeholders(kind.model) | conditional_placeholders(kind.model)
    _, problems = load_catalog(refs_only / "catalog")
    mine = [p for p in problems if p.path.endswith(f"{kind.folder}/x1.yaml")]
    assert {p.field for p in mine} == required_placeholders(kind.model)
    for problem in mine:
        assert problem.message == "required field is empty"
        assert problem.hint, problem  # the field's description says what to fill in
        line = path.read_text(encoding="utf-8").splitlines()[problem.line - 1]
        name = problem.field.rsplit(".", 1)[-1]
        assert line.strip().removeprefix("- ") == f"{name}:", (problem, line)  # on its line


def test_in_github_actions_each_empty_field_is_an_annotation_on_its_line(refs_only: Path) -> None:
    assert run("new", "algorithm", "x1", cwd=refs_only).returncode == 0
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    result = run_cli("validate", cwd=refs_only, env=env)
    assert result.returncode == 1
    text = (refs_only / "catalog" / "algorithms" / "x1.yaml").read_text(encoding="utf-8")
    annotations = re.findall(r"^::error file=([^,]+),line=(\d+),col=\d+::([\w.\[\]]+): (.*)$",
                             result.stdout, re.MULTILINE)
    assert {a[2] for a in annotations} == required_placeholders(KINDS_BY_NAME["algorithm"].model)
    for path, line, field, message in annotations:
        assert path == "catalog/algorithms/x1.yaml"  # relative to the checkout, as GitHub wants
        assert text.splitlines()[int(line) - 1].strip() == field.rsplit(".", 1)[-1] + ":"
        assert message.startswith("required field is empty")


def _uncomment_block(text: str, field: str) -> str:
    """Uncomment the top-level block ``# field:`` up to the next blank line (Ctrl+/)."""
    lines = text.splitlines()
    start = lines.index(f"# {field}:")
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    lines[start:end] = [ln[2:] for ln in lines[start:end]]
    return "\n".join(lines) + "\n"


def test_uncommented_optional_block_asks_for_its_own_required_fields(refs_only: Path) -> None:
    text = _uncomment_block(render_entry(KINDS_BY_NAME["algorithm"], "x1"), "scalerl")
    folder = refs_only / "catalog" / "algorithms"
    folder.mkdir(parents=True)
    (folder / "x1.yaml").write_text(text, encoding="utf-8")
    _, problems = load_catalog(refs_only / "catalog")
    fields = {p.field for p in problems}
    wanted = {f"scalerl.{name}" for name in ("model", "dataset")} | {
        f"scalerl.{fig}.{name}" for fig in ("A", "B", "C_mid")
        for name in ("value", "status", "source")}
    assert wanted <= fields
    assert not any(f.endswith(".unit") for f in fields)  # the only allowed unit is prefilled
    assert not any(f.startswith("scalerl.R0") for f in fields)  # still commented out
    data = yaml.safe_load(text)
    assert data["scalerl"]["C_mid"]["unit"] == "gb200_hours"


def test_refuses_to_overwrite_and_checks_the_id(refs_only: Path) -> None:
    existing = sorted((refs_only / "catalog" / "references").glob("*.yaml"))[0]
    before = existing.read_bytes()
    result = run("new", "reference", existing.stem, cwd=refs_only)
    assert result.returncode == 1
    assert "already exists" in result.stderr
    assert existing.read_bytes() == before
    for bad in ("My Algo", "_x", "x" * 81, "Grpo", "a/b"):
        result = run("new", "reference", bad, cwd=refs_only)
        assert result.returncode == 1, bad
        assert "invalid id" in result.stderr
        assert not (refs_only / "catalog" / "references" / f"{bad}.yaml").exists()


def test_stdout_writes_nothing(tmp_path: Path) -> None:
    result = run("new", "algorithm", "x1", "--stdout", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == render_entry(KINDS_BY_NAME["algorithm"], "x1")
    assert list(tmp_path.iterdir()) == []


def test_algorithm_gets_its_page_stub_and_page_only_writes_just_that(refs_only: Path) -> None:
    from tinkernomics.site.pages.feature import algorithm_stub

    result = run("new", "algorithm", "x1", cwd=refs_only)
    assert result.returncode == 0, result.stderr
    page = refs_only / "docs" / "algorithms" / "x1.md"
    assert page.read_text(encoding="utf-8") == algorithm_stub("x1")
    # Only the page is missing (the case rule_docs_page_exists reports): --page-only fixes it.
    page.unlink()
    entry = refs_only / "catalog" / "algorithms" / "x1.yaml"
    before = entry.read_bytes()
    result = run("new", "algorithm", "x1", cwd=refs_only)
    assert result.returncode == 1 and "--page-only" in result.stderr
    result = run("new", "algorithm", "x1", "--page-only", cwd=refs_only)
    assert result.returncode == 0, result.stderr
    assert page.read_text(encoding="utf-8") == algorithm_stub("x1")
    assert entry.read_bytes() == before
    result = run("new", "algorithm", "x1", "--page-only", cwd=refs_only)
    assert result.returncode == 1 and "already exists" in result.stderr


def test_page_only_is_for_algorithms(tmp_path: Path) -> None:
    result = run("new", "reference", "x1", "--page-only", cwd=tmp_path)
    assert result.returncode == 1
    assert "--page-only" in result.stderr


def test_contributing_templates_match_the_scaffold() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert text.count("<!-- scaffold:") >= 2
    assert sync_templates(text) == text, (
        "CONTRIBUTING.md's templates are stale: run "
        "`.venv/bin/python -m tinkernomics.site.contributing.scaffold CONTRIBUTING.md`")


def test_contributing_states_the_status_meanings() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for status, meaning in STATUS_MEANINGS.items():
        assert f"| `{status.value}` | {meaning} |" in text


def test_vscode_maps_every_schema_onto_its_folder() -> None:
    settings = json.loads((ROOT / ".vscode" / "settings.json").read_text(encoding="utf-8"))
    wanted = {f"catalog/schema/{k.schema_file()}": f"catalog/{k.folder}/*.yaml" for k in KINDS}
    assert settings["yaml.schemas"] == wanted
    extensions = json.loads((ROOT / ".vscode" / "extensions.json").read_text(encoding="utf-8"))
    assert "redhat.vscode-yaml" in extensions["recommendations"]
