"""Quoted locators for papers and web pages (issue 43), on copies of the fixture catalog: a
reported value citing a paper or page quotes two words or more of it, one citing a GitHub
repository names the file, line and words; an unverified value need not quote. Each failure
names the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

from tinkernomics.catalog import quotes

MODEL = "models/qwen3-8b.yaml"
OLD = "locator: 'Fixture: price table, \"row Qwen3-8B\"'"
REPO = """id: example_repo
title: Example repository
authors: Example
url: https://github.com/example/repo
checked: 2026-12-01
"""


def with_locator(tmp_path: Path, locator: str, source: str = "tinker_pricing_2026_07") -> Path:
    """The fixture catalog with the model's reported total_params located by ``locator``."""
    root = copy_valid(tmp_path)
    write_file(root, "references/example_repo.yaml", REPO)
    replace_in(root, MODEL, "source: tinker_pricing_2026_07\n  " + OLD,
               f"source: {source}\n  locator: {locator}")
    return root


def problems(root: Path) -> list[str]:
    return [f"{p.where}: {p.message}" for p in run_validate(root.parent).problems]


@pytest.mark.parametrize("locator", [
    "'Table 2, row Qwen3-8B'",
    "'Table 2: \"Architecture\"'",
    "'§2 (the architecture section)'",
])
def test_a_paper_locator_without_a_quote_fails(tmp_path: Path, locator: str) -> None:
    found = problems(with_locator(tmp_path, locator))
    assert len(found) == 1, found
    assert found[0].startswith("catalog/models/qwen3-8b.yaml:10:"), found
    assert "total_params.locator" in found[0]
    assert "from a paper or web page carries a short verbatim quote" in found[0]


@pytest.mark.parametrize("locator", [
    "'Table 2: \"Qwen3-8B 36 32 / 8\"'",
    "'§2: “with 8.2B parameters”'",
    "'the config: `parameters: 8B`'",
    "'Table 2, row Qwen3-8B, cell \"8\"'",
])
def test_a_paper_locator_quoting_two_words_passes(tmp_path: Path, locator: str) -> None:
    run = run_validate(with_locator(tmp_path, locator).parent)
    assert run.code == 0, run.out


def test_an_unverified_value_need_not_quote(tmp_path: Path) -> None:
    root = with_locator(tmp_path, "'Table 2, row Qwen3-8B'")
    replace_in(root, MODEL, "status: reported\n  source: tinker_pricing_2026_07",
               "status: unverified\n  asserted_by: contributor\n  reported_instead: x\n"
               "  source: tinker_pricing_2026_07")
    assert problems(root) == []


def test_a_repository_locator_names_the_file_line(tmp_path: Path) -> None:
    found = problems(with_locator(tmp_path, "'config.json, \"parameters: 8B\"'",
                                  source="example_repo"))
    assert len(found) == 1, found
    assert found[0].startswith("catalog/models/qwen3-8b.yaml:10:"), found
    assert "from a repository names the file, the line and the words" in found[0]


@pytest.mark.parametrize(("text", "passages", "enough"), [
    ('§4.2: "For each question, we sample 64 outputs."',
     ["For each question, we sample 64 outputs."], True),
    ("“Performance” table, row BF16", ["Performance"], False),
    ("a `two  words` code quote", ["two words"], True),
    ("no quote at all", [], False),
    ('Table 1, row ScaleRL-32k, cells "11272", "1.89"', ["11272", "1.89"], True),
])
def test_quoted_passages(text: str, passages: list[str], enough: bool) -> None:
    assert quotes.quoted_passages(text) == passages
    assert quotes.quotes_enough(text) is enough


@pytest.mark.parametrize(("rel", "old", "new", "where"), [
    ("hardware/h100.yaml", "locator: 'Fixture: \"Specifications list\"'",
     "locator: 'Fixture: Specifications list'", "catalog/hardware/h100.yaml:14:"),
    ("runs/fx-run.yaml",
     "steps: {value: 10, unit: steps, status: reported, source: tinker_docs, "
     "locator: 'Fixture: \"row fx-run\"'}",
     "steps: {value: 10, unit: steps, status: reported, source: tinker_docs, "
     "locator: 'Fixture: row fx-run'}", "catalog/runs/fx-run.yaml:11:"),
], ids=["hardware", "run"])
def test_hardware_and_run_locators_quote_too(tmp_path: Path, rel: str, old: str, new: str,
                                             where: str) -> None:
    """Hardware and runs are no longer exempt: an unquoted reported locator there fails."""
    root = copy_valid(tmp_path)
    replace_in(root, rel, old, new)
    found = problems(root)
    assert len(found) == 1, found
    assert found[0].startswith(where), found
    assert "carries a short verbatim quote" in found[0]
