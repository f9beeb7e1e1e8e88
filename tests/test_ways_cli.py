"""``tinkernomics estimate --ways --recipe`` (issue 33): the comparison and the recipe on the
command line and in ``--json``; without the flags the output is unchanged. No price asserted."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from helpers_catalog import estimate_reads_the_session_catalog

from tinkernomics import cli
from tinkernomics.catalog.entries import Catalog

CATALOG = str(Path(__file__).resolve().parent.parent / "catalog")


def run(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["estimate", CATALOG, *args]) == 0
    return out.getvalue()


def test_json_carries_ways_and_recipe() -> None:
    plain = json.loads(run("--json", "--algorithm", "opd"))
    both = json.loads(run("--json", "--algorithm", "opd", "--ways", "--recipe"))
    assert "ways" not in plain and "recipe" not in plain
    assert both["quantities"] == plain["quantities"]
    keys = {row["key"] for row in both["ways"]}
    assert "tinker" in keys and len(keys) >= 5
    assert any(row["not_offered"] for row in both["ways"])  # a managed RFT runs no teacher
    assert both["recipe"]["args"]["teacher_model"]
    assert both["recipe"]["command"].startswith("python -m tinker_cookbook.")


def test_text_output_adds_the_comparison_and_the_command(monkeypatch: pytest.MonkeyPatch,
                                                         catalog: Catalog) -> None:
    estimate_reads_the_session_catalog(monkeypatch, catalog)  # the test above loads it
    text = run("--ways", "--recipe", "--algorithm", "grpo")
    assert "ways to run" in text and "python -m tinker_cookbook.recipes.math_rl.train" in text
    assert "ways to run" not in run("--algorithm", "grpo")
