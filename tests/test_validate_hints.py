"""Messages that used to be bare get a hint that says what to write (issue: data pull requests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

PPO = "algorithms/ppo.yaml"
SOURCED_K = ("typical_k:\n  values: [4]\n  status: unverified\n  asserted_by: original_site\n"
             "  source: original_site\n")


@pytest.mark.parametrize(("old", "new", "field", "hint"), [
    ("year: 2017", "year: 2017a", "year", "write a whole number without quotes or letters, "
     "e.g. 2017"),
    ("id: ppo", "id: TOPR_Paper", "id", "write topr_paper"),
    (SOURCED_K, "typical_k:\n  values: [4]\n  status: reported\n", "typical_k.source",
     "add source: <reference id>"),
    ("tinker_losses: [ppo]", "tinker_losses: [ppo, topr]", "tinker_losses[1]",
     "the known ones: importance_sampling, ppo"),
])
def test_bare_messages_get_a_hint(tmp_path: Path, old: str, new: str, field: str,
                                  hint: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PPO, old, new)
    run = run_validate(tmp_path, "catalog")
    found = [p for p in run.problems if PPO in p.where and p.where.endswith(f": {field}")]
    assert found, run.out
    assert found[0].hint and hint in found[0].hint, found[0]


def test_unknown_loss_does_not_invite_a_new_loss_file(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PPO, "tinker_losses: [ppo]", "tinker_losses: [topr]")
    run = run_validate(tmp_path, "catalog")
    [problem] = [p for p in run.problems if "tinker_losses" in p.where]
    assert "losses/topr.yaml" not in (problem.hint or "")


def test_each_kind_shows_its_own_id_example() -> None:
    """The Fields reference showed 'Example: grpo' for every kind's id (price lists, losses...)."""
    from tinkernomics.catalog.entries import KINDS
    from tinkernomics.site.contributing.fieldsdoc import field_docs

    examples = {k.name: next(d for d in field_docs(k.model) if d.name == "id").examples
                for k in KINDS}
    assert all(examples.values()), examples
    firsts = [e[0] for e in examples.values()]
    assert len(set(firsts)) == len(firsts), examples


def test_a_reference_in_memory_agrees_with_the_kl_term(tmp_path: Path, repo_root: Path) -> None:
    """models_in_memory (shown to readers) holds a reference exactly when the algorithm's
    sourced semantics say it has a KL term to one (the memory model reads the latter)."""
    import shutil

    from tinkernomics.catalog.loader import load_valid_catalog

    shutil.copytree(repo_root / "catalog", tmp_path / "catalog")
    catalog = load_valid_catalog(tmp_path / "catalog")
    key, algo = next((k, a) for k, a in sorted(catalog.algorithms.items()) if a.semantics)
    path = tmp_path / "catalog" / "algorithms" / f"{key}.yaml"
    roles = [r.value for r in algo.models_in_memory]
    flipped = [r for r in roles if r != "reference"] if "reference" in roles else \
        [*roles, "reference"]
    text = path.read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("models_in_memory:"))
    path.write_text(text.replace(line, f"models_in_memory: [{', '.join(flipped)}]"),
                    encoding="utf-8")
    run = run_validate(tmp_path, "catalog")
    [problem] = [p for p in run.problems if p.where.endswith(": models_in_memory")]
    assert f"algorithms/{key}.yaml:" in problem.where and "kl_reference" in problem.message
