"""Offline methods priced from their own data shape (issue 44).

On fixture algorithms (an offline copy of the fixture GRPO with a made-up data shape), then as
properties of the real catalog's offline methods: no sampling, the link's G does not apply,
sequences per example from the shape. No price or total is asserted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_calc import real_catalog

from tinkernomics.catalog import models as m
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.models.algorithms import ExampleShape
from tinkernomics.derived.calculator import offline
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site.calculator import estimate_cli

ROOT = Path(__file__).resolve().parent.parent


def offline_copy(algo: m.Algorithm, shape: ExampleShape | None) -> m.Algorithm:
    """The algorithm as an offline method (made-up semantics) of the given data shape."""
    fact = {"status": "reported", "source": "grpo_deepseekmath", "locator": "fixture locator"}
    sem = m.algorithms.Semantics.model_validate({
        "kl_reference": {**fact, "value": True}, "reward": {**fact, "value": "preferences"},
        "rollouts": {**fact, "value": False},
        **({"examples": {**fact, "value": shape.value}} if shape is not None else {})},
        strict=False)
    return algo.model_copy(update={"semantics": sem})


@pytest.fixture(scope="module")
def grpo(valid_catalog_dir: Path) -> m.Algorithm:
    return load_valid_catalog(valid_catalog_dir).algorithms["grpo"]


def test_a_pair_is_two_sequences_a_single_answer_one(grpo: m.Algorithm) -> None:
    assert offline.overrides(offline_copy(grpo, ExampleShape.pair)) == {"run.G": 2.0}
    assert offline.overrides(offline_copy(grpo, ExampleShape.single)) == {"run.G": 1.0}
    assert "chosen and a rejected" in offline.describe(offline_copy(grpo, ExampleShape.pair))


def test_online_or_unstated_methods_keep_their_g(grpo: m.Algorithm) -> None:
    assert offline.overrides(grpo) == {} and offline.describe(grpo) == ""
    assert offline.overrides(offline_copy(grpo, None)) == {}


@pytest.fixture(scope="module")
def real() -> object:
    return real_catalog()


def _offline_ids(catalog: object) -> list[str]:
    return [a for a, algo in catalog.algorithms.items()  # type: ignore[attr-defined]
            if offline.shape(algo) is not None]


def test_real_offline_methods_sample_nothing_and_ignore_the_links_g(real: object) -> None:
    ids = _offline_ids(real)
    assert ids, "the catalog states the data shape of its offline methods"
    for a in ids:
        algo = real.algorithms[a]  # type: ignore[attr-defined]
        base = estimate(real, {"a": a, "G": "16"})  # type: ignore[arg-type]
        other = estimate(real, {"a": a, "G": "4"})  # type: ignore[arg-type]
        assert base["run.G"] == offline.sequences_per_example(algo), a
        assert base.values["tokens.sample"] == 0 and base.values["tokens.prefill"] == 0, a
        assert base.values["tinker.total"] == other.values["tinker.total"], a
        assert base.values["tokens.episodes"] == pytest.approx(
            base["run.steps"] * base["run.prompts"] * base["run.G"]), a


def test_the_command_line_bills_an_offline_method_and_says_its_shape(real: object) -> None:
    for a in _offline_ids(real):
        est = estimate(real, {"a": a})  # type: ignore[arg-type]
        assert est.values["tinker.total"] is not None, a  # no G needed any more
        notes = estimate_cli.notes(real, est)  # type: ignore[arg-type]
        assert any("nothing is sampled" in n for n in notes), a
