"""Contributor text that would become markup: the sanitiser's verdict, reported by `validate`.

Every payload below passed the old pattern-based check (a tag name followed by whitespace, plain
``javascript:`` links only) or is a variant of one. Each is rejected at its own file:line:col
with a message naming what the sanitiser would remove and a hint; what the site renders for it
(``tinkernomics.markup``) carries no tag, attribute or link outside the allow-list.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.markup import prose, sanitise

GRPO = "algorithms/grpo.yaml"
NOTE_LINE = ("notes: >-\n  Drops the critic: the advantage of a sample is its reward normalised "
             "within a group of samples\n  for the same prompt.")

PROSE_PAYLOADS = {
    "svg-slash-onload": "<svg/onload=alert(1)>",
    "img-slash-onerror": "<img/src=x onerror=alert(1)>",
    "angle-link": "[x](<javascript:alert(1)>)",
    "entity-link": "[x](&#106;avascript:alert(1))",
    "hex-entity-tab-link": "[x](java&#x09;script:alert(1))",
    "mixed-case-link": "[x](JaVaScRiPt:alert(1))",
    "reference-link": "[x][r]\n\n  [r]: javascript:alert(1)",
    "data-link": "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "vbscript-link": "[x](vbscript:msgbox(1))",
    "protocol-relative-link": "[x](//evil.example/)",
    "remote-image": "![x](https://evil.example/pixel.png)",
    "reference-image": "![x][i]\n\n  [i]: https://evil.example/pixel.png",
    "math-href": "\\(\\href{javascript:alert(1)}{x}\\)",
    "math-text-html": "\\(\\text{<img src=x onerror=alert(1)>}\\)",
    "math-style": "\\(\\style{position:fixed}{x}\\)",
    "mathml-raw": "<math><mi href=\"javascript:alert(1)\">x</mi></math>",
    "title-breakout": "GRPO</title/x><svg/onload=alert(1)// x>",
    "iframe-srcdoc": "<iframe srcdoc=\"<script>alert(1)</script>\">",
    "details-ontoggle": "<details open ontoggle=alert(1)>",
    "comment": "x <!-- hidden -->",
    "nested-quote-attr": "<a href='x' onmouseover=\"alert(1)\">x</a>",
    "uppercase-tag": "<SCRIPT>alert(1)</SCRIPT>",
    "form-action": "<form action=javascript:alert(1)><button>x</button></form>",
}


def _yaml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


@pytest.mark.parametrize("payload", list(PROSE_PAYLOADS.values()), ids=list(PROSE_PAYLOADS))
def test_prose_payload_rejected_at_its_line(tmp_path: Path, payload: str) -> None:
    root = copy_valid(tmp_path)
    text = payload.replace("\n\n  ", "\n\n")
    replace_in(root, GRPO, NOTE_LINE, f"notes: {_yaml(text)}")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    line = next(i for i, t in enumerate((root / GRPO).read_text().splitlines(), 1)
                if t.startswith("notes:"))
    assert run.wheres == [f"catalog/{GRPO}:{line}:8: notes"], run.out
    problem = run.problems[0]
    assert ("not allowed" in problem.message or "must" in problem.message
            or "LaTeX" in problem.message), problem.message
    assert problem.hint and "Markdown" in problem.hint


@pytest.mark.parametrize("payload", list(PROSE_PAYLOADS.values()), ids=list(PROSE_PAYLOADS))
def test_rendered_payload_is_inert(payload: str) -> None:
    """What the site writes for the payload passes the sanitiser unchanged and holds no
    script, event handler or script URL."""
    text = payload.replace("\n\n  ", "\n\n")
    html = prose.to_html(text)
    assert sanitise.removed(html) == ()
    lowered = html.lower()
    for bad in ("<script", "javascript:", "vbscript:", "data:", "onload", "onerror", "<svg",
                "<iframe", "ontoggle", "onmouseover", "srcdoc", "evil.example", "<form"):
        assert bad not in lowered, (bad, html)


def test_name_is_checked_like_prose(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    hostile = _yaml("GRPO</title/x><svg/onload=alert(1)// x>")
    replace_in(root, GRPO, "name: GRPO\n", f"name: {hostile}\n")
    run = run_validate(tmp_path, "catalog")
    assert run.wheres == [f"catalog/{GRPO}:2:7: name"], run.out
    assert "<svg>" in run.problems[0].message


def test_latex_field_is_checked(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = "formulas/rollout_flops.yaml"
    replace_in(root, rel, "latex: 2 \\cdot P_{active}",
               "latex: '\\href{javascript:alert(1)}{2} \\cdot P_{active}'")
    run = run_validate(tmp_path, "catalog")
    assert [w.rsplit(":", 3)[-1].strip() for w in run.wheres] == ["latex"], run.out
    assert "javascript:alert(1)" in run.problems[0].message


def test_unknown_latex_command_is_reported_not_raised(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = "formulas/rollout_flops.yaml"
    replace_in(root, rel, "latex: 2 \\cdot P_{active}", "latex: 2 \\nosuchcommand P")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1 and "nosuchcommand" in run.out


@pytest.mark.parametrize("text", [
    "Plain text with 51.7% and a_b * c.",
    "A [link](https://arxiv.org/abs/2402.03300 \"title\") and <https://example.org>.",
    "A [page on this site](../formulas/) and ![a chart](../img/chart.png).",
    "Math \\(\\frac{a}{b}\\) inline and `code` and **bold** and *em*.",
    "Lists:\n\n- one\n- two\n\n> quoted",
    "Escaped &lt;b&gt; and a < b > c and 3 & 4.",
])
def test_ordinary_markdown_passes(text: str) -> None:
    assert prose.problems(text) == []
    assert sanitise.removed(prose.to_html(text)) == ()


def test_every_allowed_tag_survives_the_sanitiser() -> None:
    """The allow-list is what the verdict compares against: a tag Markdown writes for ordinary
    prose must never be stripped (or the site would lose text the validator accepted)."""
    for tag in sorted(sanitise.MARKDOWN_TAGS - {"img", "br", "hr", "a", "span", "div"}):
        html = f"<{tag}>x</{tag}>"
        assert sanitise.clean(html) == html, tag
