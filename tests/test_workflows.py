"""GitHub configuration: workflows, issue forms and pre-commit hooks are valid, and CI runs the
same make targets a developer runs; the Pages build sets the site's base URL."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tinkernomics.catalog.yamlread import read_yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
FORMS = sorted(p for p in (ROOT / ".github" / "ISSUE_TEMPLATE").glob("*.yml")
               if p.name != "config.yml")


def load(path: Path) -> Any:
    """YAML 1.2 (``on:`` stays a key, as GitHub reads it), with the catalog's strict reader."""
    doc, problems = read_yaml(path.read_bytes(), str(path))
    assert doc is not None and not problems, [p.format() for p in problems]
    return doc.data


def check_jsonschema(schema: str, files: list[Path]) -> subprocess.CompletedProcess[str]:
    # --builtin-schema uses the schemas shipped inside check-jsonschema: no network.
    return subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", schema,
                           *map(str, files)], capture_output=True, text=True, check=False)


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def make_targets(workflow: dict[str, Any]) -> list[str]:
    return [t for step in steps(workflow) for t in re.findall(r"\bmake (\w[\w-]*)",
                                                              step.get("run", ""))]


def documented_targets() -> set[str]:
    """Targets `make help` lists (the ones a developer is told about)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-zA-Z_-]+):.*## ", text, re.MULTILINE))


def test_there_are_a_pull_request_and_a_pages_workflow() -> None:
    names = {p.name for p in WORKFLOWS}
    assert {"ci.yml", "pages.yml"} <= names


@pytest.mark.parametrize("schema", ["vendor.github-workflows",
                                    "custom.github-workflows-require-timeout"])
def test_workflows_pass_the_github_workflow_schema(schema: str) -> None:
    result = check_jsonschema(schema, WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_jsonschema_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    stepz: []\n")
    result = check_jsonschema("vendor.github-workflows", [broken])
    assert result.returncode != 0


def test_issue_forms_and_config_pass_their_schemas() -> None:
    assert {p.name for p in FORMS} >= {"new-algorithm.yml", "wrong-figure.yml"}
    result = check_jsonschema("vendor.github-issue-forms", FORMS)
    assert result.returncode == 0, result.stdout + result.stderr
    result = check_jsonschema("vendor.github-issue-config",
                              [ROOT / ".github" / "ISSUE_TEMPLATE" / "config.yml"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_wrong_figure_form_requires_the_source() -> None:
    form = load(ROOT / ".github" / "ISSUE_TEMPLATE" / "wrong-figure.yml")
    fields = {item["id"]: item for item in form["body"] if "id" in item}
    for wanted in ("page", "figure", "correct", "source"):
        assert fields[wanted]["validations"]["required"] is True, wanted


def test_pull_request_workflow_runs_the_developer_targets() -> None:
    ci = load(ROOT / ".github" / "workflows" / "ci.yml")
    assert "pull_request" in ci["on"]
    targets = make_targets(ci)
    assert set(targets) <= documented_targets()
    for wanted in ("validate", "lint", "test", "build"):
        assert wanted in targets, wanted
    assert targets.index("validate") < targets.index("build")
    uploads = [s for s in steps(ci) if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"].rstrip("/") == "site"
    # Annotations: the validator prints ::error lines when GITHUB_ACTIONS=true, which Actions
    # sets for every step; no step may turn it off.
    assert all(s.get("env", {}).get("GITHUB_ACTIONS") in (None, "true") for s in steps(ci))


def test_local_ci_runs_make_test_too() -> None:
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(), re.MULTILINE)


def test_pages_workflow_builds_with_the_project_pages_url_and_deploys() -> None:
    pages = load(ROOT / ".github" / "workflows" / "pages.yml")
    assert pages["on"]["push"]["branches"] == ["main"]
    assert pages["permissions"]["pages"] == "write"
    assert pages["permissions"]["id-token"] == "write"
    assert pages["concurrency"]
    builds = [s for s in steps(pages) if "make build" in s.get("run", "")]
    assert len(builds) == 1
    site_url = builds[0]["env"]["SITE_URL"]
    assert "github.repository_owner" in site_url
    assert "github.event.repository.name" in site_url
    assert ".github.io" in site_url and site_url.endswith("/")
    uses = [s.get("uses", "") for s in steps(pages)]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    assert set(make_targets(pages)) <= documented_targets()


def test_pages_workflow_keeps_the_chart_image_cache_before_it_builds() -> None:
    from tinkernomics.site.charts.feature import IMAGE_CACHE_DIR

    pages = steps(load(ROOT / ".github" / "workflows" / "pages.yml"))
    names = [s.get("uses", "") or s.get("run", "") for s in pages]
    caches = [i for i, n in enumerate(names) if n.startswith("actions/cache@")]
    build = next(i for i, n in enumerate(names) if "make build" in n)
    assert caches and caches[0] < build
    cache = pages[caches[0]]["with"]
    assert cache["path"] == IMAGE_CACHE_DIR and cache["restore-keys"]


def test_mkdocs_reads_the_site_url_from_the_environment() -> None:
    config = ROOT / "mkdocs.yml"
    if not config.exists():
        pytest.skip("mkdocs.yml not written yet")
    assert re.search(r"^site_url:\s*!ENV\s*\[?\s*SITE_URL", config.read_text(), re.MULTILINE)


def test_pre_commit_config_is_valid_and_runs_the_validator() -> None:
    config = ROOT / ".pre-commit-config.yaml"
    result = subprocess.run([str(BIN / "pre-commit"), "validate-config", str(config)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = {h["id"]: h for repo in load(config)["repos"] for h in repo["hooks"]}
    assert "tinkernomics validate" in hooks["tinkernomics-validate"]["entry"]
    assert "schema --check" in hooks["tinkernomics-schema"]["entry"]
    for hook_id in ("tinkernomics-validate", "tinkernomics-schema"):
        assert re.match(hooks[hook_id]["files"], "catalog/algorithms/grpo.yaml")
    assert "ruff" in hooks
