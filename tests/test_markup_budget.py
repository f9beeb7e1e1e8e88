"""Markdown fields have a budget (issue 40): Python-Markdown's cost grows with the square of
the ``[`` (and other inline markup) in a text, and one field of 3,990 ``[`` took 3.3 s. Over
the budget, the validator refuses the field at its line and the renderer never parses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.markup import prose
from tinkernomics.markup.prose import MAX_BRACKETS, MAX_MARKUP

OVER = {
    "brackets": "[" * 3990,
    "brackets_spread": "see [x " * (MAX_BRACKETS + 1),
    "images": "![" * 1500,
    "footnotes": "[^" * 1500,
    "tags": "<a " * 1300,
    "entities": "&#91;" * (MAX_MARKUP + 1),
    "emphasis": "*a " * (MAX_MARKUP + 1),
    "quotes": ">" * 3000,
}


@pytest.mark.parametrize("name", sorted(OVER))
def test_a_field_over_the_budget_is_refused_at_its_line(tmp_path: Path, name: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "  The clipped-ratio objective with a learned value "
               "model; four models share the accelerators.", f"  x{OVER[name]}")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == ["catalog/algorithms/ppo.yaml:18:8: notes"], run.out
    assert "at most" in run.problems[0].message


@pytest.mark.parametrize("name", sorted(OVER))
def test_the_renderer_never_parses_a_text_over_the_budget(monkeypatch, name: str) -> None:
    class NoMarkdown:
        def reset(self) -> NoMarkdown:
            raise AssertionError("Markdown parsed a text over the budget")

    monkeypatch.setattr(prose, "_MARKDOWN", NoMarkdown())
    text = "a <b>" + OVER[name]
    html = prose.to_html.__wrapped__(text)
    assert html.startswith("<p>a &lt;b&gt;") and "<b>" not in html
    assert prose.problems(text) and prose.over_budget(text)


def test_text_within_the_budget_is_markdown() -> None:
    text = "[a](https://example.org/) " * MAX_BRACKETS
    assert prose.over_budget(text) is None and prose.problems(text) == []
    assert prose.to_html(text).count("<a href") == MAX_BRACKETS
