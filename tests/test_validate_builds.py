"""Everything that validates builds (issue 40): a catalog that passed `validate` could still crash
`mkdocs build` or break a page. Each case is now a validate error at its field (the build runs
the same checks, through the same renderer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.markup import prose, sanitise

FORMULA = "formulas/rollout_flops.yaml"
GRPO = "algorithms/grpo.yaml"
NOTES = ("Drops the critic: the advantage of a sample is its reward normalised within a group "
         "of samples\n  for the same prompt.")


def _one(tmp_path: Path, rel: str, old: str, new: str) -> tuple[str, str]:
    root = copy_valid(tmp_path)
    replace_in(root, rel, old, new)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1, run.out
    assert len(run.problems) == 1, run.out
    return run.wheres[0], run.problems[0].message


@pytest.mark.parametrize(("symbol", "says"), [
    ("\\evilcmd{R}", "unknown LaTeX command"),
    ("\\hspace{100000em}", "too large"),
    ("P\\kern{-5000em}", "too large"),
    ("\\rule{1em}{99999px}", "too large"),
    ("\\unicode{x202E}P", "invisible character U+202E"),
    ("\\text{&#x200B;}P", "invisible character U+200B"),
])
def test_a_symbol_the_renderer_refuses_is_a_validate_error(tmp_path: Path, symbol: str,
                                                             says: str) -> None:
    where, message = _one(tmp_path, FORMULA, "symbol: P_{active}",
                          f"symbol: {json.dumps(symbol)}")
    assert where == "catalog/formulas/rollout_flops.yaml:10:13: variables[0].symbol"
    assert says in message


@pytest.mark.parametrize(("latex", "says"), [
    ("2 \\cdot P_{active} \\hspace{100000em}", "too large"),
    ("2 \\cdot \\mkern{99999mu} P_{active}", "too large"),
    ("2 \\cdot \\unicode{x202E} P_{active}", "invisible character U+202E"),
    ("2 \\cdot \\text{&#x2066;} P_{active}", "invisible character U+2066"),
])
def test_latex_dimensions_and_hidden_characters_are_refused(tmp_path: Path, latex: str,
                                                            says: str) -> None:
    where, message = _one(tmp_path, FORMULA, "latex: 2 \\cdot P_{active}",
                          f"latex: {json.dumps(latex)}")
    assert where == "catalog/formulas/rollout_flops.yaml:5:8: latex"
    assert says in message


@pytest.mark.parametrize(("note", "says"), [
    ("An image ![p](/&#9;/evil.example/p.png) here.", "control characters are not allowed"),
    ("An image ![p](/&#10;/evil.example/p.png) here.", "control characters are not allowed"),
    ("An image ![p](/&#x3000;/evil.example/p.png).", "control characters are not allowed"),
    ("A link [p](/&#13;/evil.example/) here.", "control characters are not allowed"),
    ("A link [p](https://a.example/&#12;x) here.", "control characters are not allowed"),
    ("Reads &#x202E;backwards.", "invisible character U+202E"),
    ("Reads &#8203;hidden.", "invisible character U+200B"),
    ("Math \\(\\unicode{x202E} x\\) here.", "invisible character U+202E"),
    ("Math \\(x \\hspace{100000em}\\) here.", "too large"),
])
def test_prose_urls_and_decoded_text_are_checked(tmp_path: Path, note: str, says: str) -> None:
    where, message = _one(tmp_path, GRPO, NOTES, note)
    assert where == "catalog/algorithms/grpo.yaml:48:8: notes"
    assert says in message


def test_the_site_drops_a_url_with_a_control_character() -> None:
    """The sanitiser never relies on the validator: the image is kept, its source is not."""
    html = prose.to_html("![p](/&#9;/evil.example/p.png)")
    assert "evil.example" not in html and "<img" in html
    assert sanitise.removed('<a href="/&#9;/x">x</a>')


def _new_algorithm(root: Path, name: str) -> None:
    text = (root / "algorithms" / "ppo.yaml").read_text(encoding="utf-8")
    text = text.replace("id: ppo\n", f"id: {name}\n").replace("name: PPO\n", "name: Other\n")
    (root / "algorithms" / f"{name}.yaml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize(("name", "says"), [
    ("constructor", "JavaScript object"),
    ("prototype", "JavaScript object"),
    ("hasownproperty", "JavaScript object"),
    ("index.html", "ends like a file name"),
    ("grpo.json", "ends like a file name"),
    ("x.csv", "ends like a file name"),
])
def test_ids_the_site_cannot_use_are_refused(tmp_path: Path, name: str, says: str) -> None:
    root = copy_valid(tmp_path)
    _new_algorithm(root, name)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == [f"catalog/algorithms/{name}.yaml:1:5: id"], run.out
    assert says in run.problems[0].message


@pytest.mark.parametrize(("old", "new", "where", "says"), [
    ("checked: 2026-12-01", "checked: 0001-01-01", "7:10: checked", "out of range"),
    ("checked: 2026-12-01", "checked: 1900-01-01", "7:10: checked", "out of range"),
])
def test_dates_in_a_sane_range(tmp_path: Path, old: str, new: str, where: str,
                               says: str) -> None:
    got, message = _one(tmp_path, "references/ppo_schulman.yaml", old, new)
    assert got == f"catalog/references/ppo_schulman.yaml:{where}"
    assert says in message


def test_a_date_far_ahead_is_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    prices = next((root / "tinker" / "prices").glob("*.yaml"))
    rel = prices.relative_to(root).as_posix()
    text = prices.read_text(encoding="utf-8")
    effective = next(line for line in text.splitlines() if line.startswith("effective:"))
    replace_in(root, rel, effective, "effective: 9999-12-31")
    run = run_validate(tmp_path, "catalog")
    assert any(w.endswith(": effective") for w in run.wheres) and any(
        "out of range" in p.message for p in run.problems), run.out


def test_hidden_characters_in_plain_strings(tmp_path: Path) -> None:
    """A field the models keep as plain text (a formula's expression) holds no bidi control."""
    root = copy_valid(tmp_path)
    replace_in(root, FORMULA, "symbol: P_{active}", "symbol: \"P_{active}\u2067\"")
    run = run_validate(tmp_path, "catalog")
    assert run.wheres == ["catalog/formulas/rollout_flops.yaml:10:13: variables[0].symbol"]
    assert "invisible character U+2067" in run.problems[0].message


@pytest.mark.parametrize("name", ["__proto__", "toString", "constructor", "hasOwnProperty"])
def test_variable_names_the_browser_cannot_use_are_refused(tmp_path: Path, name: str) -> None:
    """The calculator looks a formula's variables up by name in plain JavaScript objects."""
    root = copy_valid(tmp_path)
    replace_in(root, FORMULA, "expression: 2 * P_active", f"expression: 2 * {name}")
    replace_in(root, FORMULA, "  - name: P_active", f"  - name: {name}")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == ["catalog/formulas/rollout_flops.yaml:9:11: variables[0].name"], run.out
    assert "JavaScript object" in run.problems[0].message


def test_the_site_drops_bidi_controls() -> None:
    """Whatever reaches the renderer, written or as an entity, no bidi control reaches a page."""
    html = prose.to_html.__wrapped__('a &#x202E;b \u2067c [x](https://a.org/ "t&#x2066;")')
    assert html == '<p>a b c <a href="https://a.org/" title="t">x</a></p>'
