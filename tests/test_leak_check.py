"""The site-wide check for raw template and LaTeX source (``helpers_leaks``) tells a real leak
from catalog text that holds the same characters: a fixture catalog in a temporary folder,
the check's verdicts on page texts made for it."""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers_leaks import catalog_text, leaks

QUOTE = "examples/config.yaml line 12 \"batch: ${mul:${a}, ${b}}\" sets the batch"
PROMPT = "The prompt template reads {{ question }} then {% if image %}the diagram{% endif %}."


def fixture_catalog(root: Path) -> Path:
    """A run whose locator quotes a config and whose notes quote a Jinja template, an
    algorithm whose prose holds inline math and a formula's LaTeX, and a kept source copy."""
    (root / "runs").mkdir(parents=True)
    (root / "algorithms").mkdir()
    (root / "formulas").mkdir()
    (root / "sources").mkdir()
    run = {"id": "r", "notes": PROMPT, "stages": [{"steps": {"value": 1, "locator": QUOTE}}]}
    (root / "runs" / "r.yaml").write_text(yaml.safe_dump(run), encoding="utf-8")
    algo = {"id": "a", "notes": "The loss is \\(\\frac{1}{G} \\sum_i r_i\\) over the group."}
    (root / "algorithms" / "a.yaml").write_text(yaml.safe_dump(algo), encoding="utf-8")
    formula = {"id": "f", "latex": "\\frac{a}{b} + \\text{tokens}"}
    (root / "formulas" / "f.yaml").write_text(yaml.safe_dump(formula), encoding="utf-8")
    (root / "sources" / "copy.yaml").write_text("x: \"{{ secret }}\"\n", encoding="utf-8")
    return root


def test_catalog_text_with_template_characters_is_not_a_leak(tmp_path: Path) -> None:
    catalog = catalog_text(fixture_catalog(tmp_path / "catalog"))
    page = f"Stages\nSteps: 1 ({QUOTE})\nNotes: {PROMPT}\nNext run"
    assert not leaks(page, catalog)
    assert not leaks(page.replace('"', "\u201c", 1).replace('"', "\u201d", 1), catalog)


def test_a_real_leak_beside_catalog_text_is_found(tmp_path: Path) -> None:
    catalog = catalog_text(fixture_catalog(tmp_path / "catalog"))
    page = f"Notes: {PROMPT}\nTotal: {{{{ run.total }}}} GPU-hours"
    found = leaks(page, catalog)
    assert len(found) == 2 and "{{ run" in found[0] and "}} GPU" in found[1], found
    assert leaks("Brand new {{ answer }}", catalog)  # the same markers, other words
    assert leaks("x: {{ secret }}", catalog)  # kept source copies are never page text


def test_math_the_catalog_means_to_render_is_still_a_leak(tmp_path: Path) -> None:
    """A formula or an inline math span shown as source failed to render: reported, though
    the catalog holds the characters."""
    catalog = catalog_text(fixture_catalog(tmp_path / "catalog"))
    assert leaks("The loss is \\(\\frac{1}{G} \\sum_i r_i\\) over the group.", catalog)
    assert leaks("Formula: \\frac{a}{b} + \\text{tokens}", catalog)
    assert not leaks("The loss is 1/G Σ r over the group.", catalog)
