"""Entries the site's own code names by id (``tinkernomics.site.needs``): deleting or renaming
one is reported by `validate`, at the missing file, and the build refuses the catalog."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from helpers_catalog import run_validate

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.pricelists import PRICE_ROW_NEED, price_rows_missing
from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.build import SiteContext
from tinkernomics.site.needs import site_needs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # synth
from synth import keep_algorithms, make_project


def site_project(tmp_path: Path, repo_root: Path) -> Path:
    """A copy of this site's project (catalog and pages beside its mkdocs.yml), its algorithms
    cut to those the site's own code names (``keep_algorithms``: the needs checked here)."""
    return keep_algorithms(make_project(0, tmp_path / "project"), ())


def test_the_real_catalog_holds_every_entry_the_site_names(catalog: Catalog) -> None:
    needs = site_needs()
    assert {kind for kind, _, _ in needs} >= {"formula", "algorithm", "model"}
    entries = [n for n in needs if n[0] != PRICE_ROW_NEED]
    assert [n for n in entries if n[1] not in catalog.ids(n[0])] == []
    rows = [n for n in needs if n[0] == PRICE_ROW_NEED]
    assert rows and list(price_rows_missing(catalog, rows)) == []


def test_a_deleted_entry_the_site_names_is_one_problem_at_its_file(
        tmp_path: Path, repo_root: Path) -> None:
    project = site_project(tmp_path, repo_root)
    (project / "catalog" / "algorithms" / "grpo.yaml").unlink()
    (project / "docs" / "algorithms" / "grpo.md").unlink()
    shutil.rmtree(project / "catalog" / "runs")  # published runs name it too: not the point
    run = run_validate(project, "catalog")
    assert run.code == 1
    [problem] = run.problems
    assert problem.where == "catalog/algorithms/grpo.yaml:1:1: (file)"
    assert problem.message.startswith("missing algorithm 'grpo', which the site names (")
    assert "the calculator's default run" in problem.message
    assert "the calculator's preset 'GRPO on Qwen3-8B" in problem.message
    assert problem.hint is not None and "restore catalog/algorithms/grpo.yaml" in problem.hint


def test_a_renamed_entry_is_named_in_the_hint(tmp_path: Path, repo_root: Path) -> None:
    project = site_project(tmp_path, repo_root)
    formulas = project / "catalog" / "formulas"
    text = (formulas / "flops_rollout.yaml").read_text(encoding="utf-8")
    (formulas / "flops_rollout.yaml").unlink()
    (formulas / "flops_rollout_v2.yaml").write_text(
        text.replace("id: flops_rollout", "id: flops_rollout_v2"), encoding="utf-8")
    [problem] = run_validate(project, "catalog").problems
    assert problem.where == "catalog/formulas/flops_rollout.yaml:1:1: (file)"
    assert problem.hint is not None and "'flops_rollout_v2' is the same entry" in problem.hint


def test_an_entry_that_fails_validation_is_reported_once(tmp_path: Path, repo_root: Path) -> None:
    project = site_project(tmp_path, repo_root)
    (project / "catalog" / "algorithms" / "opd.yaml").write_text("id: opd\nname: [\n")
    wheres = run_validate(project, "catalog").wheres
    assert [w for w in wheres if "opd" in w] == ["catalog/algorithms/opd.yaml:3:1: (file)"]


def test_the_build_refuses_a_catalog_without_them(tmp_path: Path, repo_root: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    project = site_project(tmp_path, repo_root)
    (project / "catalog" / "algorithms" / "ppo.yaml").unlink()  # a preset names it
    (project / "docs" / "algorithms" / "ppo.md").unlink()
    monkeypatch.delenv("TINKERNOMICS_CATALOG", raising=False)
    with pytest.raises(CatalogError, match=r"missing algorithm 'ppo', which the site"):
        SiteContext.load(project)
