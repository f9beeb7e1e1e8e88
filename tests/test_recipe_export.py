"""The run as a tinker-cookbook recipe (issue 33): every argument the export names exists in the
recipe's config class at the pinned commit, read from the quote-checked copies of the
repository's files (catalog/sources/github/<repository>/<commit>/), and the export follows the
calculator's inputs.

The real catalog's cookbook pin is what is checked (no price is read)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import recipe
from tinkernomics.derived.calculator.estimate import estimate

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "catalog" / "sources" / "github"
"""The quote-checked copies of cited files (catalog/sources/README.md): the pinned cookbook's
recipe files are among them, read here, never imported."""
ALGORITHMS = ("grpo", "dapo", "opd")


def config_fields(path: Path, class_name: str) -> set[str]:
    """The annotated fields of ``class_name`` in ``path`` (read, never imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return {s.target.id for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    raise AssertionError(f"{path}: no class {class_name}")


def pinned_file(catalog: Catalog, algorithm: str) -> tuple[Path, str]:
    pin = recipe.pin(catalog)
    rec = recipe.recipe_for(catalog, algorithm)
    assert pin is not None and rec is not None
    return SOURCES / pin.repository / pin.commit / rec.path, rec.config_class


def test_the_pinned_commit_has_its_recipe_files(catalog: Catalog) -> None:
    pin = recipe.pin(catalog)
    assert pin is not None
    for rec in pin.recipes:
        assert (SOURCES / pin.repository / pin.commit / rec.path).is_file(), rec.path


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_export_names_only_arguments_of_the_pinned_cookbook(catalog: Catalog,
                                                            algorithm: str) -> None:
    path, cls = pinned_file(catalog, algorithm)
    fields = config_fields(path, cls)
    out = recipe.export(catalog, estimate(catalog, {"a": algorithm}))
    assert out is not None
    assert out.names and set(out.names) <= fields, set(out.names) - fields
    command = out.command().splitlines()[0].split()
    assert command[:3] == ["python", "-m", out.module]
    assert {arg.split("=", 1)[0] for arg in command[3:]} <= fields
    assert f"from {out.module} import {cls}, cli_main" in out.python()
    compile(out.python(), "<recipe>", "exec")
    assert out.commit == recipe.pin(catalog).commit  # type: ignore[union-attr]


def test_the_loss_and_its_thresholds_come_from_the_pin(catalog: Catalog) -> None:
    dapo = recipe.export(catalog, estimate(catalog, {"a": "dapo"}))
    grpo = recipe.export(catalog, estimate(catalog, {"a": "grpo"}))
    assert dapo is not None and grpo is not None
    assert dapo.args["loss_fn"] == "ppo" and set(dapo.loss_fn_config) == {
        "clip_low_threshold", "clip_high_threshold"}
    assert dapo.loss_fn_config["clip_high_threshold"] > dapo.loss_fn_config["clip_low_threshold"]
    assert "loss_fn_config" in dapo.python() and "loss_fn_config" not in grpo.python()
    assert all(name in dapo.sources for name in dapo.args)


def tinker_name(catalog: Catalog, model_id: str) -> str:
    """The Tinker name the cookbook pin gives a catalog model (read from the entry)."""
    pin = next(iter(catalog.of("cookbook").values()))
    return next(n.name for n in pin.model_names if n.model == model_id)


def test_distillation_names_its_teacher(catalog: Catalog) -> None:
    out = recipe.export(catalog, estimate(catalog, {"a": "opd", "tm": "qwen3-32b"}))
    assert out is not None
    assert out.args["teacher_model"] == tinker_name(catalog, "qwen3-32b")


@pytest.mark.parametrize(("key", "value", "arg", "expected"), [
    ("G", "8", "group_size", 8), ("n", "32", "groups_per_batch", 32),
    ("out", "1024", "max_tokens", 1024), ("steps", "250", "max_steps", 250),
    ("r", "64", "lora_rank", 64), ("m", "qwen3-32b", "model_name", None),  # its Tinker name
])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_export_follows_the_inputs(catalog: Catalog, algorithm: str, key: str, value: str,
                                   arg: str, expected: object) -> None:
    base = {"a": algorithm, "m": "qwen3-8b", "G": "4", "n": "16", "out": "512",
            "steps": "10", "r": "8"}
    before = recipe.export(catalog, estimate(catalog, base))
    after = recipe.export(catalog, estimate(catalog, {**base, key: value}))
    assert before is not None and after is not None
    expected = tinker_name(catalog, value) if expected is None else expected
    assert after.args[arg] == expected and before.args[arg] != expected
    assert after.command() != before.command() and after.python() != before.python()


def test_what_the_recipe_cannot_express_is_said(catalog: Catalog) -> None:
    out = recipe.export(catalog, estimate(catalog, {"a": "grpo", "ft": "full", "K": "2"}))
    assert out is not None
    text = " ".join(out.warnings)
    assert "LoRA" in text and "K > 1" in text
    assert recipe.export(catalog, estimate(catalog, {"a": "ppo"})) is None


def test_the_pin_names_only_catalog_entries(catalog: Catalog) -> None:
    pin = recipe.pin(catalog)
    assert pin is not None
    assert {n.model for n in pin.model_names} <= set(catalog.models)
    for rec in pin.recipes:
        assert rec.algorithm in catalog.algorithms and rec.loss in catalog.losses
        hyper = {h.name for h in catalog.losses[rec.loss].hyperparameters}
        assert {s.name for s in rec.loss_config} <= hyper
