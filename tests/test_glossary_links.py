"""Glossary terms are linked at their first use on every page (``site/postbuild/glossarylinks``),
only in prose: never inside code, links, headings, templates or attributes, never by unescaping
catalog text. Synthetic pages only; the anchors are read from ``docs/glossary.md``."""

from __future__ import annotations

import itertools
import random
import re
import re._parser as sre_parse
from pathlib import Path
from typing import Any

import pytest

from tinkernomics.site.postbuild import glossarylinks
from tinkernomics.site.postbuild.previews import tag_page

ROOT = Path(__file__).resolve().parent.parent
HEAD = '<html><head><title>t</title></head><body><nav>MFU in the menu</nav>'
OPEN = '<article class="md-content__inner md-typeset">'


def page(article: str) -> str:
    return f"{HEAD}{OPEN}{article}</article><footer>MFU</footer></body></html>"


def links(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<a href="([^"]*glossary/#[^"]*)">([^<]*)</a>', html)


def test_every_term_points_at_an_anchor_of_the_glossary() -> None:
    anchors = set(re.findall(r"\{ #([\w-]+) \}", (ROOT / "docs/glossary.md").read_text("utf-8")))
    assert {anchor for anchor, _ in glossarylinks.TERMS} <= anchors


def test_first_prose_use_is_linked_once_with_a_relative_href() -> None:
    html = page("<p>MFU sets the hours; MFU again. A KV cache and mean@16.</p><p>MFU.</p>")
    out = glossarylinks.link_first_uses(html, "algorithms/grpo/")
    assert links(out) == [("../../glossary/#mfu", "MFU"), ("../../glossary/#kv-cache", "KV cache"),
                          ("../../glossary/#mean-at-k", "mean@16")]
    assert "<nav>MFU in the menu</nav>" in out and "<footer>MFU</footer>" in out  # article only


def test_code_links_headings_templates_and_attributes_are_left_alone() -> None:
    article = ('<h2 id="mfu">MFU</h2><p><code>MFU</code> <a href="x">MFU</a> '
               '<span title="MFU">x</span></p><template><p>MFU</p></template>'
               '<svg><text>MFU</text></svg><details><summary>MFU</summary></details>'
               '<pre><code>ZeRO</code></pre><p>Then MFU.</p>')
    out = glossarylinks.link_first_uses(page(article), "")
    assert links(out) == [("glossary/#mfu", "MFU")]
    assert out.count('title="MFU"') == 1 and "<p>Then <a " in out


def test_escaped_catalog_text_stays_escaped() -> None:
    """Catalog text reaches the page escaped; wrapping a term never decodes it."""
    article = "<p>&lt;script&gt;alert(1)&lt;/script&gt; uses MFU &amp; ZeRO-3.</p>"
    out = glossarylinks.link_first_uses(page(article), "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "<script>" not in out
    assert links(out) == [("glossary/#mfu", "MFU"), ("glossary/#zero", "ZeRO-3")]


def test_a_hand_made_glossary_link_counts_as_the_first_use() -> None:
    article = '<p><a href="../glossary/#mfu">model FLOPs utilisation</a> and MFU, LoRA.</p>'
    out = glossarylinks.link_first_uses(page(article), "calculator/")
    assert links(out) == [("../glossary/#mfu", "model FLOPs utilisation"),  # the hand-made one
                          ("../glossary/#lora", "LoRA")]  # MFU is not linked again


def test_the_glossary_page_and_pages_without_an_article_are_unchanged() -> None:
    html = page("<p>MFU</p>")
    assert glossarylinks.link_first_uses(html, "glossary/") == html
    assert glossarylinks.link_first_uses("<p>MFU</p>", "") == "<p>MFU</p>"


def test_whole_words_only() -> None:
    out = glossarylinks.link_first_uses(page("<p>MFUs, xMFU, GPU-hours-ish and GPU-hours.</p>"),
                                        "")
    assert links(out) == [("glossary/#gpu-hour", "GPU-hours")]


def test_the_preview_pass_links_every_page() -> None:
    out = tag_page(page("<p>Sampling is decode-bound: low MFU.</p>"), "hardware/", "")
    assert ("../glossary/#mfu", "MFU") in links(out)


def test_needles_spell_out_each_terms_literal_start() -> None:
    """The finder tries a term only where one of its needles is: every needle a match must
    start with, and a pattern with no literal start is refused rather than never found."""
    assert glossarylinks.needles("[Cc]ritic") == ["Critic", "critic"]
    assert glossarylinks.needles("KV[ -]cache") == ["KV cache", "KV-cache"]
    assert glossarylinks.needles("GPU-hours?") == ["GPU-hour"]
    assert glossarylinks.needles("ZeRO(?:-[123])?") == ["ZeRO"]
    assert glossarylinks.needles("MoE|[Mm]ixture")[:1] == ["MoE"]
    for pattern in (r"\d+ GPUs", "(?:a|b)c", "[Xx]?y"):
        with pytest.raises(ValueError, match="no literal start"):
            glossarylinks.needles(pattern)
    assert all(glossarylinks.needles(pattern) for _, pattern in glossarylinks.TERMS)


_PIECES = ("MFU", "mfu", "xMFU", "ZeRO-3", "KV cache", "KV-cache", "critic", "Critic", "critics",
           "reward model", "Reward model", "mean@k", "GPU-hours", "decode", "prefill", "BF16",
           " ", ", ", ". ", "<p>", "</p>", "<a href=\"x\">", "</a>", "<A HREF='y'>", "</A>",
           "<code>", "</code>", "<span title=\"MFU critic\">", "</span>", "<h2>", "</h2>",
           "<!-- MFU -->", "<svg>", "<text>", "</text>", "</svg>", "<br/>", "<a/>", "&lt;",
           "<em>", "</em>", "<pre>", "</pre>", "a < b", "<Summary>", "</SUMMARY>", "x>y",
           "<span title=\"a > critic\">", "<!-- critic", "-->", "CRITIC", "MIXTURE-of-experts",
           "mixture of experts", "İ", "é", "<b class='x'>", "</b>", "<a title=\"/\">",
           "<a / >", "</a/>", "</a >", "<abbr>", "</abbr>")


def _per_text(article: str, href: str) -> str:
    """The reference: every text between two tags searched on its own, in order."""
    done: set[str] = set()
    out: list[str] = []
    skipped: list[str] = []
    position = 0

    def text(part: str) -> str:
        def wrap(match: re.Match[str]) -> str:
            if match.start() and re.match(r"[\w@-]", part[match.start() - 1]):
                return match.group()
            anchor = glossarylinks.TERMS[int(match.lastgroup[1:])][0]  # type: ignore[index]
            if anchor in done:
                return match.group()
            done.add(anchor)
            return f'<a href="{href}#{anchor}">{match.group()}</a>'
        return part if skipped else glossarylinks._FINDER.sub(wrap, part)

    for tag in re.finditer(r"""<!--.*?-->|<(/?)([A-Za-z][\w-]*)[^>"']*(?:(?:"[^"]*"|'[^']*')"""
                           r"""[^>"']*)*>""", article, re.S):
        out += [text(article[position:tag.start()]), tag.group()]
        position = tag.end()
        name = (tag.group(2) or "").lower()
        if name in glossarylinks._SKIPPED and not re.search(r"/\s*>$", tag.group()):
            if not tag.group(1):
                skipped.append(name)
            elif name in skipped:
                while skipped and skipped.pop() != name:
                    pass
    return "".join([*out, text(article[position:])])


def test_whole_article_search_links_what_a_search_of_each_text_links() -> None:
    rng = random.Random(47)
    for _ in range(400):
        article = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 40)))
        expected = _per_text(article, "g/")
        assert glossarylinks._link_article(article, "g/", set()) == expected, article


def test_every_place_a_term_may_start_is_tried() -> None:
    """The lower-cased search (``_matches``) tries every place a term's exact spelling starts,
    at the article's offsets, in plain and non-ASCII articles (``İ`` lower-cases to two
    characters: bytes lower-cased do not move an offset), and yields each whole-word match."""
    rng = random.Random(4747)
    for _ in range(300):
        article = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 40)))
        exact = {at for needle in glossarylinks._NEEDLES for at in range(len(article))
                 if article.startswith(needle, at) and glossarylinks._FINDER.match(article, at)
                 and not (at and glossarylinks._WORDISH.match(article, at - 1))}
        assert {start for start, _, _ in glossarylinks._matches(article, set())} == exact, article
    found = list(glossarylinks._matches("İé critic MoE ≈ CRITIC critic", set()))
    assert found == [(3, 9, "critic"), (10, 13, "moe"), (23, 29, "critic")]


def test_a_search_stops_once_its_terms_are_linked() -> None:
    """What the caller links leaves the search: a searched text whose terms are all done is not
    looked for again (nor is any, once every term is)."""
    done: set[str] = set()
    starts = []
    for start, _, anchor in glossarylinks._matches("critic MFU critic MFU", done):
        starts.append(start)
        done.add(anchor)
    assert starts == [0, 7]
    assert not list(glossarylinks._matches("MFU", {anchor for anchor, _ in glossarylinks.TERMS}))


def _spellings(pattern: str) -> list[str]:
    """Every text ``pattern`` matches, a repeat taken at most twice and ``\\d`` as ``1``."""
    def expand(items: Any) -> list[str]:
        outs = [""]
        for op, value in items:
            outs = [a + b for a in outs for b in one(str(op), value)]
        return outs

    def one(op: str, value: Any) -> list[str]:
        if op == "LITERAL":
            return [chr(value)]
        if op == "IN":
            return ["1" if str(o) == "CATEGORY" else chr(v) for o, v in value]
        if op == "BRANCH":
            return [text for branch in value[1] for text in expand(branch)]
        if op == "SUBPATTERN":
            return expand(value[-1])
        low, high, sub = value
        return ["".join(parts) for count in range(low, min(high, 2) + 1)
                for parts in itertools.product(expand(sub), repeat=count)]
    return expand(sre_parse.parse(pattern))


def test_no_term_spelling_holds_another_searched_text() -> None:
    """``_matches`` tries each place on its own, as a scan resuming after each match would,
    only because no match can cover the start of a searched text: no spelling of a term holds
    one past its first character (or starts one it would end in a word character)."""
    assert "mixture-of-experts" in _spellings(r"MoE|[Mm]ixture[- ]of[- ]experts")
    assert "mean@11" in _spellings(r"mean@(?:\d+|k)")
    for _, pattern in glossarylinks.TERMS:
        for spelled in _spellings(pattern):
            low = spelled.lower()
            for at in range(1, len(low)):
                rest = low[at:]
                for searched in glossarylinks._SEARCHED:
                    text = searched.decode()
                    covered = rest.startswith(text) or (
                        text.startswith(rest) and not re.match(r"[\w@-]", text[len(rest)]))
                    assert not covered, (spelled, text)


def test_one_search_serves_the_spellings_of_a_term() -> None:
    searched = glossarylinks._searched(("Critic", "critic", "Mixture of experts",
                                         "mixture-of-experts", "MoE", "KV cache", "KV-cache"))
    assert searched == (b"critic", b"kv cache", b"kv-cache", b"mixture", b"moe")


def test_skipped_names_pattern_matches_exactly_the_skipped_names() -> None:
    names = re.compile(rf"(?:{glossarylinks._SKIPPED_NAMES})\Z")
    for name in glossarylinks._SKIPPED:
        for spelled in (name, name.upper(), name.title()):
            assert names.match(spelled), spelled
    for other in ("abbr", "b", "s", "span", "sup", "h7", "header", "codes", "scrip", "tbody", ""):
        assert not names.match(other), other
    assert glossarylinks._any_case_trie(["a", "ab", "abc", "b"]) == "[Aa](?:[Bb](?:[Cc])?)?|[Bb]"
