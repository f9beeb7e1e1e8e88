"""One run, every problem: type errors, per-file rules and cross-file checks report together.

The first-fill fixture (tests/fixtures/first_fill/algorithms/rloo.yaml) is a new algorithm with
seven independent mistakes of different kinds; one `validate` run must list all seven, sorted by
line, each with its hint. Then one test per hint a newcomer gets, and how holes (values that
failed their type) are skipped by the rules without hiding anything else.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers_catalog import FIXTURES, copy_valid, replace_in, run_validate, write_file

from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.partial import HOLE, HoleTouched

FIRST_FILL = FIXTURES / "first_fill" / "algorithms" / "rloo.yaml"
RLOO = "catalog/algorithms/rloo.yaml"

FIRST_FILL_EXPECTED = [
    (f"{RLOO}:7:7: year", "valid integer", 'remove the quotes: write 2024, not "2024"'),
    (f"{RLOO}:9:15: needs_critic", "models_in_memory lacks critic", None),
    (f"{RLOO}:11:17: memory_profile", "'low', 'medium' or 'high'", "did you mean 'medium'?"),
    (f"{RLOO}:14:11: typical_k.status", "needs `asserted_by`", "contributor"),
    (f"{RLOO}:15:11: typical_k.source", "unknown reference 'grpo_deepseekmth'",
     "did you mean 'grpo_deepseekmath'?"),
    (f"{RLOO}:19:11: typical_g.status", "'reported', 'derived' or 'unverified'",
     "did you mean 'reported'?"),
    (f"{RLOO}:39:11: scalerl.C_mid.unit", "C_mid must be in gb200_hours (got gpu_hours)",
     "unit: gb200_hours"),
]


def with_docs(tmp_path: Path, *pages: str) -> Path:
    """``tmp_path/docs/algorithms/<page>.md`` for each page; returns the docs folder."""
    docs = tmp_path / "docs"
    for page in pages:
        write_file(docs, f"algorithms/{page}.md", f"# {page}\n")
    return docs


def test_first_fill_reports_every_mistake_in_one_run(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    shutil.copy(FIRST_FILL, root / "algorithms" / "rloo.yaml")
    with_docs(tmp_path, "grpo", "ppo", "rloo")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == [where for where, _, _ in FIRST_FILL_EXPECTED], run.out
    for problem, (_, message, hint) in zip(run.problems, FIRST_FILL_EXPECTED, strict=True):
        assert message in problem.message, problem
        if hint is not None:
            assert problem.hint is not None and hint in problem.hint, problem
    assert "7 problem(s) in 1 file(s)" in run.err


def test_a_failed_value_is_skipped_by_rules_but_the_rest_of_the_file_is_checked(
        tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    # needs_critic has the wrong type: the critic rule must skip it (no second message), while
    # the unknown reference and loss a few fields away are still reported in the same run.
    replace_in(root, "algorithms/ppo.yaml", "needs_critic: true", 'needs_critic: "yes"')
    replace_in(root, "algorithms/ppo.yaml", "references: [ppo_schulman]",
               "references: [ppo_shulman]")
    replace_in(root, "algorithms/ppo.yaml", "tinker_losses: [ppo]", "tinker_losses: [ppoo]")
    run = run_validate(tmp_path, "catalog")
    assert [w.split(": ", 1)[1] for w in run.wheres] == \
        ["needs_critic", "tinker_losses[0]", "references[0]"], run.out


def test_partial_entries_are_kept_for_the_rules(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "year: 2017", 'year: "2017"')
    catalog, _ = load_catalog(root)
    entry = catalog.entry("algorithm", "ppo")
    assert entry.partial and entry.model.year is HOLE and entry.model.name == "PPO"
    assert not catalog.entry("algorithm", "grpo").partial


@pytest.mark.parametrize("touch", [
    lambda h: h == 1, lambda h: h < 1, lambda h: hash(h), lambda h: h.value,
    lambda h: list(h), lambda h: f"{h}", lambda h: h + 1, lambda h: 1 in h, lambda h: not h,
])
def test_touching_a_hole_raises(touch) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(HoleTouched):
        touch(HOLE)
    assert repr(HOLE) == "HOLE"


# --------------------------------------------------------------------------- hints


def test_quoted_number_hint(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "hardware/h100.yaml", "value: 989.4", 'value: "989.4"')
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.hint == 'remove the quotes: write 989.4, not "989.4"'


def test_enum_typo_hint_names_the_closest_value(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "memory_profile: high", "memory_profile: hihg")
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.hint == "did you mean 'high'?"


def test_enum_without_a_close_value_lists_the_choices(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "memory_profile: high", "memory_profile: zzz")
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.hint == "one of: low, medium, high"


def test_an_entry_in_another_kinds_folder_is_told_where_it_belongs(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    shutil.copy(root / "algorithms" / "ppo.yaml", root / "references" / "ppo_algo.yaml")
    run = run_validate(tmp_path, "catalog")
    assert run.wheres == ["catalog/references/ppo_algo.yaml:1:1: (file)"], run.out
    [problem] = run.problems
    assert problem.message == "this looks like an algorithm, not a reference"
    assert problem.hint == "move it to catalog/algorithms/"


def test_one_unknown_field_is_a_typo_not_a_wrong_folder(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "async_support:", "async_suport:")
    run = run_validate(tmp_path, "catalog")
    assert any("unknown field 'async_suport'" in p.message for p in run.problems), run.out
    assert not any("looks like" in p.message for p in run.problems)


def test_catalog_yaml_in_docs_is_an_error_naming_its_folder(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    docs = with_docs(tmp_path, "grpo", "ppo")
    shutil.copy(root / "algorithms" / "ppo.yaml", docs / "algorithms" / "rloo.yaml")
    write_file(docs, "notes.yml", "a: 1\n")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == ["docs/algorithms/rloo.yaml:1:1: (file)", "docs/notes.yml:1:1: (file)"]
    catalog_like, other = run.problems
    assert "looks like an algorithm entry outside catalog/" in catalog_like.message
    assert catalog_like.hint is not None and "catalog/algorithms/" in catalog_like.hint
    assert "do not belong in docs/" in other.message


def test_id_differing_from_a_free_file_name(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "id: ppo", "id: ppo_clip")
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.message == "id 'ppo_clip' differs from the file name 'ppo'"
    assert problem.hint == "rename the file to ppo_clip.yaml or set id: ppo"


def test_copy_saved_under_a_new_name_is_a_duplicate_id_never_told_to_take_a_used_name(
        tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    shutil.copy(root / "algorithms" / "ppo.yaml", root / "algorithms" / "ppo2.yaml")
    run = run_validate(tmp_path, "catalog")
    [problem] = [p for p in run.problems if p.where.endswith(": id")]
    assert problem.where == "catalog/algorithms/ppo2.yaml:1:5: id"
    assert problem.message == "duplicate id 'ppo': catalog/algorithms/ppo.yaml already has it"
    assert problem.hint == "set id: ppo2 (the file name)"
    assert "ppo.yaml" not in problem.hint


def test_id_of_another_entry_inside_a_file_is_a_duplicate(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "id: ppo", "id: grpo")
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.message == "duplicate id 'grpo': catalog/algorithms/grpo.yaml already has it"
    assert problem.hint == "set id: ppo (the file name)"


def test_duplicate_id_in_a_file_with_an_invalid_name_proposes_a_free_one(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    shutil.copy(root / "algorithms" / "ppo.yaml", root / "algorithms" / "PPO.yaml")
    run = run_validate(tmp_path, "catalog")
    [problem] = [p for p in run.problems if p.where.endswith(": id")]
    assert problem.hint == "rename the file to ppo_2.yaml and set the same id"
