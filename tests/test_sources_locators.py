"""Locators and sourced ScaleRL fits (issue 29), on copies of the fixture catalog.

A reported value in an algorithm's ScaleRL blocks without a ``locator`` is a validation error
naming the field; elsewhere it is listed (``missing_locators``) for the Data quality page. The
charted fit takes sourced figures only (``rule_scalerl_sourced``).
"""

from __future__ import annotations

from pathlib import Path

from helpers_catalog import copy_valid, replace_in

from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.locators import missing_locators, rule_scalerl_sourced

GRPO = "algorithms/grpo.yaml"
VARIANT = """scalerl_record:
  summary: What the paper gives.
  variants:
  - name: Baseline
    setting: 8B dense model, GB200 GPU-hours.
    A:
      value: 52
      unit: percent
      status: reported
      source: scalerl_khatri
{locator}notes: >-"""


def _with_variant(tmp_path: Path, locator: str) -> Path:
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, "notes: >-", VARIANT.format(locator=locator))
    return root


def test_reported_scalerl_value_without_locator_is_an_error_naming_the_field(
        tmp_path: Path) -> None:
    _, problems = load_catalog(_with_variant(tmp_path, ""))
    found = [p for p in problems if p.field.startswith("scalerl_record")]
    assert [p.field for p in found] == ["scalerl_record.variants[0].A.status"]
    assert "needs `locator`" in found[0].message
    assert found[0].hint and "Table 1" in found[0].hint and "quoted sentence" in found[0].hint
    assert str(found[0].path).endswith("grpo.yaml") and found[0].line > 0


def test_a_locator_satisfies_the_rule(tmp_path: Path) -> None:
    _, problems = load_catalog(_with_variant(tmp_path, "      locator: Table 1\n"))
    assert not [p for p in problems if p.field.startswith("scalerl_record")]


def test_whitespace_is_not_a_locator(tmp_path: Path) -> None:
    _, problems = load_catalog(_with_variant(tmp_path, "      locator: '   '\n"))
    assert [p.field for p in problems if p.field.startswith("scalerl_record")] in (
        [["scalerl_record.variants[0].A.status"], ["scalerl_record.variants[0].A.locator"]])


def test_missing_locators_lists_reported_values_outside_scalerl(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    cat, problems = load_catalog(root)
    assert not problems
    fields = {(i.entry.key, i.field) for i in missing_locators(cat)}
    assert ("grpo", "claims[0].locator") in fields
    replace_in(root, GRPO, "    source: grpo_deepseekmath\nreferences:",
               "    source: grpo_deepseekmath\n    locator: §4.2\nreferences:")
    cat, _ = load_catalog(root)
    assert ("grpo", "claims[0].locator") not in {(i.entry.key, i.field)
                                                for i in missing_locators(cat)}


def test_unverified_values_need_no_locator(tmp_path: Path) -> None:
    cat, _ = load_catalog(copy_valid(tmp_path))
    assert not [i for i in missing_locators(cat) if i.loc and i.loc[0] == "scalerl"]


def test_charted_fit_from_the_original_site_is_refused(tmp_path: Path) -> None:
    cat, _ = load_catalog(copy_valid(tmp_path))
    found = list(rule_scalerl_sourced(cat))
    assert [p.field for p in found] == ["scalerl.A.source", "scalerl.B.source",
                                        "scalerl.C_mid.source"]
    assert "sourced figures only" in found[0].message
