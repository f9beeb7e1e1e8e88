"""Prose that cannot spoof (issue 16): bidi controls, zero-width and other invisible format
characters (Unicode category Cf) and images from other hosts are refused by `validate`.

Each case is the valid fixture catalog with ONE mutation and asserts the exact
``path:line:col: field`` printed, a fragment of the message and exit code 1 (as
tests/test_validate_problems.py does for the other classes of problem).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import VALID_CATALOG, copy_valid, replace_in, run_validate

from tinkernomics.markup import prose

PPO = "algorithms/ppo.yaml"
GRPO = "algorithms/grpo.yaml"
REFERENCE = "references/transformer_math.yaml"


def at(rel: str, key_line: str, field: str) -> str:
    """``catalog/<rel>:line:col: field`` of the value on the fixture line starting with
    ``key_line`` (``"  key:"``): where the validator must point."""
    lines = (VALID_CATALOG / rel).read_text(encoding="utf-8").splitlines()
    line, text = next((i, t) for i, t in enumerate(lines, 1) if t.startswith(key_line))
    return f"catalog/{rel}:{line}:{text.index(':') + 3}: {field}"


NOTES_AT = at(PPO, "notes:", "notes")
NOTES_TEXT = "  The clipped-ratio objective"
INVISIBLE = "bidi controls and zero-width characters can make text read differently"
IMAGES = "images must come from this site"

BIDI = [*(chr(c) for c in range(0x202A, 0x202F)), *(chr(c) for c in range(0x2066, 0x206A))]
"""Embeddings and overrides (U+202A-U+202E) and isolates (U+2066-U+2069)."""
ZERO_WIDTH_AND_OTHER_CF = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e",
                           "\u061c"]
"""Zero-width space/non-joiner/joiner, word joiner, a BOM mid-text, soft hyphen, LRM, ALM."""

CASES = [
    *[pytest.param(PPO, NOTES_TEXT, f"  The clipped-{ch}ratio objective", NOTES_AT,
                   f"U+{ord(ch):04X}", id=f"notes-U+{ord(ch):04X}")
      for ch in BIDI + ZERO_WIDTH_AND_OTHER_CF],
    pytest.param(PPO, "name: PPO\n", "name: P\u202ePO\n", at(PPO, "name:", "name"),
                 "U+202E (RIGHT-TO-LEFT OVERRIDE) at character 2", id="short-text-rlo"),
    pytest.param(GRPO, "tinker_mapping: Compute group-centred",
                 "tinker_mapping: Compute\u2067 group-centred",
                 at(GRPO, "tinker_mapping:", "tinker_mapping"),
                 "U+2067 (RIGHT-TO-LEFT ISOLATE)", id="optional-prose-isolate"),
    pytest.param(REFERENCE, "title: Transformer Math 101", "title: Transformer\u200b Math 101",
                 at(REFERENCE, "title:", "title"),
                 "U+200B (ZERO WIDTH SPACE)", id="title-zero-width-space"),
    pytest.param(REFERENCE, "url: https://blog.eleuther.ai/transformer-math/",
                 "url: https://blog.eleuther.ai/\u202etransformer-math/",
                 at(REFERENCE, "url:", "url"), "U+202E", id="url-rlo"),
]


@pytest.mark.parametrize(("rel", "old", "new", "where", "detail"), CASES)
def test_invisible_characters_are_refused_where_they_stand(
        tmp_path: Path, rel: str, old: str, new: str, where: str, detail: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, rel, old, new)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1, run.out
    assert run.wheres == [where], run.out
    assert detail in run.problems[0].message and INVISIBLE in run.problems[0].message, run.out
    assert "1 problem(s)" in run.err


@pytest.mark.parametrize("image", [
    "![chart](https://evil.example/pixel.png)",
    "![chart](http://evil.example/pixel.png)",
    "![chart](//evil.example/pixel.png)",
    "![chart]( <https://evil.example/pixel.png> )",
    "![chart](ftp://evil.example/pixel.png)",
    "![chart][pixel]\n\n  [pixel]: https://evil.example/pixel.png\n\n ",
    "![chart]()",
], ids=["https", "http", "protocol-relative", "angle-brackets", "ftp", "reference-style",
        "empty"])
def test_images_from_other_hosts_are_refused(tmp_path: Path, image: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PPO, NOTES_TEXT, f"  {image} The clipped-ratio objective")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1, run.out
    assert run.wheres == [NOTES_AT], run.out
    assert IMAGES in run.problems[0].message, run.out


@pytest.mark.parametrize("text", ["![chart][pixel]", "![chart]"])
def test_an_image_reference_without_its_definition_is_plain_text(text: str) -> None:
    """Markdown leaves an undefined image reference as the text it is: no image, no request."""
    html = prose.to_html(text)
    assert "<img" not in html and "![chart]" in html


def test_an_image_from_the_site_itself_and_plain_unicode_pass(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PPO, NOTES_TEXT,
               "  ![The clipped objective](../../assets/images/clip.png) The clipped-ratio "
               "objective (ε ≈ 0.2, «ratio» × advantage, 日本語, עברית)")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 0, run.out
