"""Plain catalog text skips Markdown and the sanitiser (``markup.prose.is_plain``, issue 47),
and comes out exactly as the two would have made it."""

from __future__ import annotations

import random

import pytest

from tinkernomics.markup import prose, sanitise

EDGES = [
    'Table 3, p. 5-6: "B: 1.97, A: 0.610" (50%)', "it's", "x = y / z + 1", "é “q” — ü ~ | $x$",
    "a  b", "1.5 GPUs", "2024 paper", "16 GPUs. 8 nodes", "(see below)", '"quoted"',
    # not plain: what Markdown or the sanitiser change
    "1. foo", "2) bar", "3.", "# heading", "- item", "+ item", "* item", "> quote", "= x",
    "    code", " lead", "trail ", "a\tb", "a\nb", "a\u00a0b", "a\u200bb", "a\u2028b", "a\xadb",
    "x > y", "a & b", "a_b", "_a", "*a*", "`a`", "[a](b)", "!a", "a\\(x\\)", "", "---", "a\x7fb",
]
ALPHABET = 'aZé9 .,:;()"\'“‘-+=#|$~%/?\u00a0\t\n<>&_*`[]!\\0123'
PLAINISH = 'aZé9 .,:;()"\'“‘-+=#|$~%/?0123'


def full(text: str) -> str:
    """What ``to_html`` made of every text before the plain path."""
    return sanitise.clean(prose._render(text))


def texts() -> list[str]:
    rng = random.Random(47)
    made = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
            for alphabet in (ALPHABET, PLAINISH) for _ in range(2000)]
    return EDGES + made


@pytest.mark.parametrize("text", EDGES)
def test_edges_render_as_markdown_would(text: str) -> None:
    assert prose.to_html(text) == full(text)


def test_plain_texts_render_as_markdown_would() -> None:
    plain = [t for t in texts() if prose.is_plain(t)]
    assert len(plain) > 500  # the generator reaches the plain path
    for text in plain:
        assert full(text) == f"<p>{text}</p>", text
        assert prose.problems(text) == [] and prose.over_budget(text) is None


def test_what_markdown_changes_is_not_plain() -> None:
    for text in ["1. foo", "# h", "- a", "    code", "trail ", "a\u00a0b", "a & b", "x > y"]:
        assert not prose.is_plain(text)
    assert prose.is_plain('Figure 2 legend: "Magistral B: 1.44, A: 0.535"')


def test_plain_text_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_text: str) -> str:
        raise AssertionError("parsed")

    monkeypatch.setattr(prose, "_render", refuse)
    text = 'Abstract, v1 (unseen 4711): "on par with 16-GRPO"'
    assert prose.to_html(text) == f"<p>{text}</p>"
    assert prose.to_plain(text + " 2") == text + " 2"
    assert prose.problems(text) == []
