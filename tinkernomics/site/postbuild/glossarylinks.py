"""Glossary links at first use (pipeline step 6, in the link-preview pass over every page).

Every page links the first occurrence of each glossary term in its prose to the term's entry on
the Glossary page (``docs/glossary.md``; ``TERMS`` maps each term's spelling to its anchor there,
and a test checks every anchor exists). ``previews.tag_page`` passes each finished page through
``link_first_uses``, so the rule is the same on every page, hand-written or built from the
catalog, and a page needs no markup of its own.

It works on the finished HTML, after every piece of catalog text has been escaped, and only
wraps text that is already there: it never unescapes, never touches a tag or an attribute, and
skips what is not prose (the content of ``a``, ``code``, ``pre``, ``kbd``, headings, ``script``,
``style``, ``template``, ``svg``, ``math``, form controls and ``summary``). Only the page's
``<article>`` is read (not the navigation); the Glossary page itself is left alone, and a term
the page already links to the glossary by hand is not linked again. A link is a plain ``<a>``
(issue 47: no stylesheet or script read the class it carried, 16 bytes a link, 0.2 MB over
1,000 algorithm pages); its address says it is a glossary link.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator

GLOSSARY_PAGE = "glossary/"
"""The Glossary page's site path (``docs/glossary.md`` with directory URLs)."""

TERMS: tuple[tuple[str, str], ...] = (
    ("mfu", r"MFU"),
    ("zero", r"ZeRO(?:-[123])?"),
    ("kv-cache", r"KV[ -]cache"),
    ("context-length", r"[Cc]ontext (?:length|window)"),
    ("mean-at-k", r"mean@(?:\d+|k)"),
    ("fsdp", r"FSDP"),
    ("flops", r"FLOPs"),
    ("gpu-hour", r"GPU-hours?"),
    ("bf16", r"[Bb][Ff]16"),
    ("moe", r"MoE|[Mm]ixture[- ]of[- ]experts"),
    ("lora", r"LoRA"),
    ("full-fine-tuning", r"[Ff]ull fine-tuning"),
    ("prefill", r"[Pp]refill"),
    ("decode", r"[Dd]ecode"),
    ("throughput", r"[Tt]okens per second"),
    ("break-even", r"[Bb]reak-even"),
    ("free-tier", r"[Ff]ree tier"),
    ("kl", r"KL penalty"),
    ("group-size", r"[Gg]roup size"),
    ("reward-model", r"[Rr]eward model"),
    ("reference", r"[Rr]eference model"),
    ("critic", r"[Cc]ritic"),
    ("offline", r"[Oo]ffline method"),
    ("scalerl", r"ScaleRL fit"),
)
"""(glossary anchor, the term's spellings as a regular expression), matched as whole words."""

_SKIPPED = frozenset({"a", "code", "pre", "kbd", "samp", "h1", "h2", "h3", "h4", "h5", "h6",
                      "script", "style", "template", "svg", "math", "textarea", "select",
                      "option", "button", "label", "summary", "title", "noscript"})
"""Elements whose content is never linked: links, code, headings, not-prose."""
_VOID_END = re.compile(r"/\s*>$")
_WORDISH = re.compile(r"[\w@-]")
"""A character that joins a term to its neighbour (a term is matched as a whole word)."""


def _any_case(name: str) -> str:
    """``name`` as a pattern matching it in any ASCII case (``a`` -> ``[Aa]``)."""
    return "".join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in name)


def _any_case_trie(names: list[str]) -> str:
    """A pattern matching any of ``names`` in any ASCII case, as a tree of their first
    characters (``code|kbd`` -> ``[Cc](?:[Oo](?:...))|[Kk](?:...)``): at a tag the matcher
    tries the names that start with its first letter, not every name in turn."""
    rests: dict[str, list[str]] = {}
    for name in names:
        rests.setdefault(name[0], []).append(name[1:])
    branches = []
    for first, tails in sorted(rests.items()):
        longer = [tail for tail in tails if tail]
        inner = f"(?:{_any_case_trie(longer)})" if longer else ""
        optional = "?" if longer and len(longer) < len(tails) else ""
        branches.append(f"{_any_case(first)}{inner}{optional}")
    return "|".join(branches)


_SKIPPED_NAMES = _any_case_trie(sorted(_SKIPPED))
_TAG = re.compile(rf"""<!--.*?-->|<(/?)(?:({_SKIPPED_NAMES})(?![\w-])|[A-Za-z][\w-]*)"""
                  r"""[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>""", re.S)
"""A comment or a tag; group 2 is the tag's name when it is a skipped element's (any case)."""
_NO_SLASH_BODY = r"""[^>"'/]*(?:(?:"[^"]*"|'[^']*')[^>"'/]*)*>"""
"""A tag's inside and ``>`` with no ``/`` outside its quoted values (so not ``_VOID_END``)."""
_WHOLE_SKIPPED = "<(?:{})".format("|".join(
    rf"""{_any_case(name)}(?![\w-]){_NO_SLASH_BODY}[^<]*</{_any_case(name)}(?![\w-]){_NO_SLASH_BODY}"""
    for name in sorted(_SKIPPED, key=lambda name: (name != "a", name))))
"""A skipped element holding only text, closed by its own name (a citation's ``<a href="...">
[3]</a>``): it leaves the stack of open skipped elements as it found it, so the run may read
it whole, without a step in Python for each of its tags. One branch per name, not a
back-reference (a group inside the possessive run trips Python 3.11's ``re``)."""
_UNSKIPPED = re.compile(rf"""(?:[^<]++|<(?!/?(?:{_SKIPPED_NAMES})(?![\w-]))/?[A-Za-z][\w-]*"""
                        rf"""[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>|{_WHOLE_SKIPPED}"""
                        r"""|<!--.*?-->)*+""", re.S)
"""A run of text, comments, tags ``_TAG`` reads as not a skipped element's and whole skipped
elements that hold only text (possessive: the run is read once, never backtracked into). No
two alternatives match at the same place (text has no ``<``; a tag's name is a skipped
element's or not; a comment's ``<!`` starts no name), so their order changes what is read in
no way, only how fast: the most frequent first, the 26 skipped names' last but one."""


def _first_chars(pattern: str) -> str | None:
    """The characters a term's pattern can start with (``[Cc]ritic`` -> ``Cc``), None when the
    pattern starts otherwise (then the finder has no prefilter)."""
    if pattern.startswith("[") and "]" in pattern:
        return pattern[1:pattern.index("]")]
    return pattern[0] if pattern[:1].isalnum() else None


def _finder() -> re.Pattern[str]:
    """One pattern for every term, each its own named group, tried in ``TERMS`` order. The word
    boundary before a term is checked apart, not by a look-behind."""
    terms = "|".join(f"(?P<t{i}>(?:{pattern})(?![\\w@-]))" for i, (_, pattern) in enumerate(TERMS))
    firsts = [_first_chars(pattern) for _, pattern in TERMS]
    if any(f is None for f in firsts):
        return re.compile(terms)
    chars = "".join(sorted(set("".join(f or "" for f in firsts))))
    return re.compile(f"(?=[{re.escape(chars)}])(?:{terms})")


_FINDER = _finder()
_ANCHORS = {f"t{i}": anchor for i, (anchor, _) in enumerate(TERMS)}
"""The finder's group names (each term's one capturing group) -> the terms' anchors."""
_LITERAL = re.compile(r"[A-Za-z0-9 @-](?![?*+{])|\[([A-Za-z0-9 @-]+)\](?![?*+{])")
"""One character of a pattern's literal start: a character, or a set of them (``[Cc]``),
not followed by a repetition."""


def _alternatives(pattern: str) -> list[str]:
    """``pattern``'s top-level alternatives (``MoE|[Mm]ixture...`` -> two)."""
    parts, depth, start, in_set = [], 0, 0, False
    for i, char in enumerate(pattern):
        if in_set or char == "[":
            in_set = char != "]"
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    return [*parts, pattern[start:]]


def needles(pattern: str) -> list[str]:
    """Every text a match of ``pattern`` must start with (its literal start spelled out:
    ``[Cc]ritic`` -> ``Critic``, ``critic``); a pattern with a start shorter than two
    characters is refused (the finder would have to try every position)."""
    found: list[str] = []
    for alternative in _alternatives(pattern):
        spelled, pos = [""], 0
        while (step := _LITERAL.match(alternative, pos)) is not None:
            chars = step.group(1) or step.group()
            spelled = [s + c for s in spelled for c in chars]
            pos = step.end()
        if len(spelled[0]) < 2:
            raise ValueError(f"glossary pattern {pattern!r}: no literal start to search for")
        found.extend(spelled)
    return found


_NEEDLES = tuple(sorted({n for _, pattern in TERMS for n in needles(pattern)}))
_ANCHOR_SET = frozenset(anchor for anchor, _ in TERMS)
_LINKED = re.compile(rf'(?:{re.escape(GLOSSARY_PAGE)}|glossary\.md)#([\w-]*)"')
"""A link to a glossary entry (the page's address or its Markdown source): its anchor."""
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">')


def root_of(rel_url: str) -> str:
    """Relative path from a page (site path such as ``algorithms/grpo/``) to the site root."""
    return "../" * len([part for part in rel_url.split("/")[:-1] if part])


def link_first_uses(page: str, rel_url: str) -> str:
    """``page`` with the first prose occurrence of each glossary term in its article linked to
    the Glossary; unchanged without an article, on the Glossary page, or with nothing to link."""
    start_tag = _ARTICLE.search(page)
    if rel_url == GLOSSARY_PAGE or start_tag is None:
        return page
    start = start_tag.end()
    end = page.find("</article>", start)
    if end < 0:
        return page
    href = f"{root_of(rel_url)}{GLOSSARY_PAGE}"
    article = page[start:end]
    done = set(_ANCHOR_SET.intersection(_LINKED.findall(article)))
    return page[:start] + _link_article(article, href, done) + page[end:]


def _link_article(article: str, href: str, done: set[str]) -> str:
    """``article`` with the first prose use of each term not in ``done`` linked.

    The terms' matches are tried in the whole article, in order (``_matches``): a term holds no
    ``<`` or ``>``, so a match never spans a tag, and the matches lying in the article's texts
    are the ones a search of each text finds. The article is read only as far as a match of a
    term still unlinked lies, to tell whether it sits in a tag or in a skipped element
    (``_Reader``): an article whose terms are all linked or absent is not read at all."""
    out: list[str] = []
    copied = 0
    reader = _Reader(article)
    for start, end, anchor in _matches(article, done):
        if not reader.in_prose(start):
            continue
        done.add(anchor)
        out.extend((article[copied:start], _link(href, anchor, article[start:end])))
        copied = end
    out.append(article[copied:])
    return "".join(out)


class _Reader:
    """The tags of an article read in order, as ``_TAG.finditer`` finds them, as far as asked.

    ``_UNSKIPPED`` reads the comments, the tags of elements that are not skipped and the text
    between them in one call, without a step in Python for each; it stops at a skipped
    element's tag, at a ``<`` that starts no tag, and at a tag that ends past where it was
    asked to read (``endpos``), which ``_TAG`` then tells apart."""

    def __init__(self, article: str) -> None:
        self.article = article
        self.pos = 0
        """Where the next tag or text starts: every tag before it is read."""
        self.skipped: list[str] = []

    def in_prose(self, at: int) -> bool:
        """Whether offset ``at`` (at or after the last one asked) lies in a text, outside the
        skipped elements."""
        article = self.article
        while True:
            run = _UNSKIPPED.match(article, self.pos, at)  # matches, if only the empty run
            pos = self.pos = run.end() if run else self.pos
            if pos == at:
                return not self.skipped
            tag = _TAG.match(article, pos)
            if tag is None:  # a `<` that starts no tag: text
                self.pos = pos + 1
                continue
            if tag.end() > at:
                return False  # inside this tag
            self.pos = tag.end()
            if tag[2] is not None:
                _track(tag, self.skipped)


def _searched(spelled: tuple[str, ...]) -> tuple[bytes, ...]:
    """What to look for in a lower-cased article so as to find every place one of ``spelled``
    starts: each lower-cased, those with the first ``_SHARED`` characters in common as their
    common prefix (``mixture of experts``, ``mixture-of-experts``... -> ``mixture``), and none
    that starts with another (``Critic`` and ``critic``: one search, not two)."""
    groups: dict[str, list[str]] = {}
    for needle in {n.lower() for n in spelled}:
        groups.setdefault(needle[:_SHARED], []).append(needle)
    merged = {_common_start(group) for group in groups.values()}
    return tuple(sorted(n.encode("ascii") for n in merged
                        if not any(n != m and n.startswith(m) for m in merged)))


def _common_start(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
                len(first))
    return first[:size]


_SHARED = 5
_SEARCHED = _searched(_NEEDLES)


def _anchors_of(searched: bytes) -> frozenset[str]:
    """The anchors of the terms a match where ``searched`` starts can be: those with a needle
    that, lower-cased, starts with it or that it starts with (both start the same text)."""
    return frozenset(anchor for anchor, pattern in TERMS for needle in needles(pattern)
                     if needle.lower().encode("ascii").startswith(searched)
                     or searched.startswith(needle.lower().encode("ascii")))


_SEARCHED_ANCHORS = tuple(_anchors_of(searched) for searched in _SEARCHED)


def _matches(article: str, done: set[str]) -> Iterator[tuple[int, int, str]]:
    """(start, end, anchor) of the finder's whole-word matches of terms not in ``done`` (read
    again at each step: the caller adds what it links), in order of their start.

    A match is tried only where a term's literal start may be (``needles``): the places of the
    lower-cased searched texts in the article's bytes, every non-ASCII character a ``?`` (one
    byte for one character: the offsets stay the article's) and the ASCII letters lower-cased.
    Each searched text is looked for one place at a time, the nearest first, and no longer once
    every term it may start is in ``done`` (issue 47: most pages link most of their terms early,
    and finding every place of every text was half the pass). No term's spelling holds another
    searched text past its first character (``tests/test_glossary_links.py``), so a match never
    covers a place where another starts, and each place is tried on its own."""
    if len(done) == len(TERMS):
        return
    low = article.encode("ascii", "replace").lower()
    heap = [(at, i) for i, searched in enumerate(_SEARCHED)
            if not _SEARCHED_ANCHORS[i] <= done and (at := low.find(searched)) >= 0]
    heapq.heapify(heap)
    while heap:
        start, i = heap[0]
        if _SEARCHED_ANCHORS[i] <= done:
            heapq.heappop(heap)
            continue
        after = low.find(_SEARCHED[i], start + 1)
        if after < 0:
            heapq.heappop(heap)
        else:
            heapq.heapreplace(heap, (after, i))
        match = _FINDER.match(article, start)
        if match is None or (start and _WORDISH.match(article, start - 1)):
            continue  # not a term here, or inside a longer word
        anchor = _ANCHORS[match.lastgroup or ""]
        if anchor not in done:
            yield start, match.end(), anchor


def _link(href: str, anchor: str, text: str) -> str:
    return f'<a href="{href}#{anchor}">{text}</a>'


def _track(tag: re.Match[str], skipped: list[str]) -> None:
    """Keep the stack of open skipped elements (a skipped element's content may nest tags);
    ``tag`` is a skipped element's."""
    if _VOID_END.search(tag.group()):
        return
    name = tag.group(2).lower()
    if not tag.group(1):
        skipped.append(name)
    elif name in skipped:
        while skipped and skipped.pop() != name:
            pass
