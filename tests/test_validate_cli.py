"""`tinkernomics validate` as a contributor meets it: summary, exit codes, every problem at
once, GitHub annotations, paths relative to the current directory, a read-only catalog."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers_catalog import (
    VALID_CATALOG,
    copy_valid,
    replace_in,
    run_validate,
    tree_digest,
    write_file,
)

from tinkernomics.catalog.entries import KINDS
from tinkernomics.catalog.loader import load_catalog, load_valid_catalog
from tinkernomics.catalog.problems import CatalogError, Problem

SUMMARY = re.compile(r"^catalog OK: (\d+) entries checked \((.*)\)$")


def _files_per_kind(root: Path) -> dict[str, int]:
    return {kind.name: len(list((root / kind.folder).glob("*.yaml"))) for kind in KINDS}


def test_valid_fixture_prints_counts_per_kind_and_exits_0(tmp_path: Path) -> None:
    copy_valid(tmp_path)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 0, run.out
    assert run.err == ""
    lines = run.out.splitlines()
    assert len(lines) == 1
    match = SUMMARY.match(lines[0])
    assert match, lines[0]
    counts = {name: int(n) for n, name in (part.split(" ") for part in match[2].split(", "))}
    expected = _files_per_kind(tmp_path / "catalog")
    assert counts == expected
    assert int(match[1]) == sum(expected.values())
    assert all(n >= 1 for n in expected.values()), "the fixture has every kind of entry"


def test_committed_fixture_validates_in_place(repo_root: Path) -> None:
    run = run_validate(repo_root, str(VALID_CATALOG.relative_to(repo_root)))
    assert run.code == 0, run.out


def test_fixture_keeps_the_ids_other_tests_rely_on() -> None:
    catalog, problems = load_catalog(VALID_CATALOG)
    assert problems == []
    assert {"grpo", "ppo"} <= set(catalog.algorithms)
    assert catalog.algorithms["grpo"].scalerl is not None
    assert {"h100", "gb200"} <= set(catalog.hardware)
    assert "gb200_to_h100" in catalog.conversions
    assert "qwen3-8b" in catalog.models
    assert "2026-07-17" in catalog.price_lists
    assert {"importance_sampling", "ppo"} <= set(catalog.losses)
    assert catalog.platform is not None


def test_console_script_entry_point(tmp_path: Path) -> None:
    copy_valid(tmp_path)
    replace_in(tmp_path / "catalog", "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    proc = subprocess.run([sys.executable, "-m", "tinkernomics.cli", "validate", "catalog"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith("catalog/algorithms/ppo.yaml:5:7: year: ")
    assert proc.stderr.strip() == "1 problem(s) in 1 file(s)"


def test_two_mistakes_in_two_files_are_both_reported(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    replace_in(root, "conversions/gb200_to_h100.yaml", "from_hardware: gb200",
               "from_hardware: gb300")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == [
        "catalog/algorithms/ppo.yaml:5:7: year",
        "catalog/conversions/gb200_to_h100.yaml:2:16: from_hardware",
    ]
    assert run.err.strip() == "2 problem(s) in 2 file(s)"


def test_every_mistake_in_one_file_is_reported(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    replace_in(root, "algorithms/ppo.yaml", "memory_profile: high", "memory_profile: huge")
    replace_in(root, "algorithms/ppo.yaml", "async_support: false\n",
               "async_support: false\nasync_suport: true\n")
    run = run_validate(tmp_path, "catalog")
    assert run.wheres == [
        "catalog/algorithms/ppo.yaml:5:7: year",
        "catalog/algorithms/ppo.yaml:9:17: memory_profile",
        "catalog/algorithms/ppo.yaml:17:1: async_suport",
    ]


def test_rules_still_run_when_a_file_is_invalid(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "algorithms/dapo.yaml", b"id: dapo\nname: \xff\n")
    replace_in(root, "algorithms/grpo.yaml", "needs_reward_model: false",
               "needs_reward_model: true")
    run = run_validate(tmp_path, "catalog")
    assert run.wheres == [
        "catalog/algorithms/dapo.yaml:2:7: (file)",
        "catalog/algorithms/grpo.yaml:8:21: needs_reward_model",
    ]


def test_link_to_an_invalid_file_is_not_reported_twice(tmp_path: Path) -> None:
    """The reference exists but is broken: report the reference, not every entry citing it."""
    root = copy_valid(tmp_path)
    replace_in(root, "references/ppo_schulman.yaml", "year: 2017", "year: 1066")
    run = run_validate(tmp_path, "catalog")
    assert run.wheres == ["catalog/references/ppo_schulman.yaml:5:7: year"]


def test_github_annotations(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    plain = run_validate(tmp_path, "catalog")
    assert "::error" not in plain.out
    run = run_validate(tmp_path, "catalog", github=True)
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[0] == plain.out.splitlines()[0]
    assert lines[1] == ("::error file=catalog/algorithms/ppo.yaml,line=5,col=7::"
                        "year: Input should be a valid integer "
                        '(hint: remove the quotes: write 2017, not "2017")')


def test_github_annotation_escapes_newlines_and_percent() -> None:
    """A message is one line: a line feed in it is written as an escape (issue 40), in the
    annotation too, which escapes % as GitHub's toolkit does."""
    problem = Problem("a.yaml", 3, 4, "x", "50% off\nsecond line", "hint")
    assert problem.github() == ("::error file=a.yaml,line=3,col=4::"
                                "x: 50%25 off\\nsecond line (hint: hint)")
    assert problem.format() == "a.yaml:3:4: x: 50% off\\nsecond line (hint: hint)"


@pytest.mark.parametrize("mutate", [False, True], ids=["valid", "invalid"])
def test_validate_modifies_nothing(tmp_path: Path, mutate: bool) -> None:
    root = copy_valid(tmp_path)
    if mutate:
        replace_in(root, "algorithms/ppo.yaml", "needs_critic: true", "needs_critic: &a yes")
        write_file(root, "algorithms/empty.yaml", "")
        write_file(root, "hardware/bad.yaml", b"\xff\xfe")
    before = tree_digest(tmp_path)
    run = run_validate(tmp_path, "catalog", github=True)
    assert run.code == (1 if mutate else 0)
    assert tree_digest(tmp_path) == before


def test_paths_are_relative_to_the_current_directory(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    (tmp_path / "elsewhere").mkdir()
    assert run_validate(root, ".").wheres == ["algorithms/ppo.yaml:5:7: year"]
    assert run_validate(tmp_path / "elsewhere", "../catalog").wheres == [
        "../catalog/algorithms/ppo.yaml:5:7: year"]
    assert run_validate(tmp_path).wheres == ["catalog/algorithms/ppo.yaml:5:7: year"]


def test_missing_catalog_folder(tmp_path: Path) -> None:
    run = run_validate(tmp_path, "nope")
    assert run.code == 1
    assert run.wheres == ["nope:1:1: (file)"]


def test_load_valid_catalog_raises_with_every_problem(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    replace_in(root, "hardware/h100.yaml", "value: 80\n", "value: -80\n")
    with pytest.raises(CatalogError) as caught:
        load_valid_catalog(root)
    assert [p.field for p in caught.value.problems] == ["year", "memory_gb.value"]
    assert str(caught.value).endswith("2 problem(s) in the catalog")


# --------------------------------------------------------------------------- YAML 1.1 traps


def test_exponent_without_dot_is_a_float(tmp_path: Path) -> None:
    """`1e-5` is a string to PyYAML (YAML 1.1); the catalog reads it as the number."""
    assert yaml.safe_load("v: 1e-5")["v"] == "1e-5"  # the trap is real
    root = copy_valid(tmp_path)
    replace_in(root, "tinker/losses/ppo.yaml", "value: 0.8", "value: 1e-5")
    catalog, problems = load_catalog(root)
    assert problems == []
    default = catalog.losses["ppo"].hyperparameters[0].default
    assert default is not None
    assert isinstance(default.value, float)
    assert default.value == pytest.approx(1e-5)
    example = catalog.formulas["rollout_flops"].variables[0].example  # written 8.0e9
    assert example == pytest.approx(8.0e9)


@pytest.mark.parametrize("word", ["no", "on", "yes", "off", "No", "ON"])
def test_yaml11_boolean_words_stay_text_in_text_fields(tmp_path: Path, word: str) -> None:
    assert isinstance(yaml.safe_load(f"v: {word}")["v"], bool)  # the trap is real
    root = copy_valid(tmp_path)
    replace_in(root, "references/transformer_math.yaml", "venue: Blog", f"venue: {word}")
    catalog, problems = load_catalog(root)
    assert problems == []
    assert catalog.references["transformer_math"].venue == word


def test_date_like_id_stays_text(tmp_path: Path) -> None:
    catalog, problems = load_catalog(VALID_CATALOG)
    assert problems == []
    plist = catalog.price_lists["2026-07-17"]
    assert plist.id == "2026-07-17"
    assert plist.effective.isoformat() == "2026-07-17"
