"""Hand the search indexer only what it indexes (pipeline: pages, build speed).

The theme's search plugin (Material's) parses every page's HTML with Python's ``HTMLParser`` to
split it into sections, then drops what carries its exclusion mark: an element, or a heading's
whole section. On an algorithm page most of the HTML is excluded (the chart's fallback SVGs, the
ScaleRL parameters, the typical-run panel, the unverified values, the references), yet parsing it
was the largest single cost of a build at 1,000 algorithms.

``cut(html, theme)`` takes those excluded parts out before the indexer runs, leaving a numbered
placeholder comment; ``restore`` puts them back afterwards (the MkDocs hooks in
``macros/mkdocs_hooks.py`` call the two around the search plugin). What marks an exclusion, which
elements the parser takes as void and which attributes it strips after indexing are the theme
adapter's (``ThemeProfile``'s ``search_*``, rule 1 of ``macros/theme.py``): an empty mark cuts
nothing. Only what the indexer would certainly ignore is cut, so the index is the same, entry
for entry:

- the inside of an element carrying the mark (the element's tags stay);
- the body of a section whose heading carries the mark, up to the next heading.

A part is cut only if it is a balanced fragment (every tag it opens it closes, so the parser's
nesting is the same after it), holds no heading (a heading starts a section even inside an
excluded element), no element of the excluded element's own tag (the parser ends the exclusion
at the first end tag of that name), and no unfinished ``<script>`` or ``<style>``. Anything else is
left for the parser as it was: a missed cut costs time, never a search entry.

Once the page is indexed the mark has done its work: no script or stylesheet reads it, so
``unmark`` drops it from the page's tags (the restored parts' and the rest's; 0.4 MB of the
site at 1,000 algorithms, issue 47), as an attribute only, never as text. The generators that
index the finished HTML themselves (Zensical) run no hooks, and their pages keep it.
"""

from __future__ import annotations

import bisect
import re

from tinkernomics.site.build import ThemeProfile

PLACEHOLDER = "<!--tn:search-cut:{}-->"
_PLACEHOLDER_START = PLACEHOLDER.split("{")[0]
_PLACEHOLDER = re.compile(re.escape(_PLACEHOLDER_START) + r"(\d+)-->")
_NAME = r"[a-zA-Z][^\s/>]*"
_ATTRS = r"[^>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^>\"']*)*"
"""A tag's attributes up to its closing ``>``; quoted values may hold ``>``."""
_TAG = re.compile(rf"<(/?)({_NAME})({_ATTRS})>")
"""A start or end tag: group 1 ``/`` for an end tag, 2 the name, 3 the attributes."""
_ATTR_NAME = re.compile(r"""[\s/]*([^\s=>/"']+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?""")
_MARKUP = re.compile(
    r"<!--.*?-->|<(script|style)\b[^>]*>.*?</\1\s*>"
    r"|(<!--|<(?:script|style)\b)"
    rf"|<(/?{_NAME})({_ATTRS})>", re.S | re.I)
"""What the scan of a part steps through: whole comments, scripts and styles (skipped; group 1
names a script or style), the start of an unfinished one (group 2), and tags (group 3 the name,
with ``/`` for an end tag; group 4 its attributes, ending in ``/`` if it closes itself)."""
_HEADING = re.compile(r"<h[1-6][\s>]", re.I)
_HEADINGS = frozenset(f"h{level}" for level in range(1, 7))
_SKIPPED = re.compile(r"<!--|<(?:script|style)\b", re.I)
"""The start of what ``_MARKUP`` steps over (a comment, a script, a style): a part without any
is scanned for tags alone (``_PLAIN_TAG``), the same tags at a third of the cost."""
_PLAIN_TAG = re.compile(rf"<(/?{_NAME})({_ATTRS})>")


def cut(html: str, theme: ThemeProfile) -> tuple[str, list[str]]:
    """``html`` without the parts the search index ignores, and those parts in order (none if
    the page already holds a placeholder's text, which ``restore`` would then misread)."""
    if not theme.search_exclude or theme.search_exclude not in html \
            or _PLACEHOLDER_START in html:
        return html, []
    parts: list[str] = []
    out: list[str] = []
    pos = 0
    for start, end in sorted(_excluded_spans(html, theme.search_exclude, theme.search_void)):
        if start < pos:  # inside a part already cut
            continue
        out.append(html[pos:start])
        out.append(PLACEHOLDER.format(len(parts)))
        parts.append(html[start:end])
        pos = end
    out.append(html[pos:])
    return "".join(out), parts


def restore(html: str, parts: list[str], theme: ThemeProfile) -> str:
    """``html`` from ``cut`` (and the indexer) with its parts back in their places, less the
    attributes the indexer strips from a page (``search_stripped``), as it would have left them."""
    if not parts:
        return html
    stripped = re.compile(theme.search_stripped) if theme.search_stripped else None
    needle = _stripped_needle(theme.search_stripped)
    return _PLACEHOLDER.sub(lambda m: _finished(parts[int(m.group(1))], stripped, needle), html)


def restore_unmarked(html: str, parts: list[str], theme: ThemeProfile) -> str:
    """``unmark(restore(html, parts, theme), theme)``, scanning only what may hold a mark: the
    page between the parts, and the parts that hold the text every stripped attribute holds if
    the mark holds it too (``restore`` looks for that text in each part anyway). A part in a
    comment, script or style of the page around it is left marked, as ``unmark`` would."""
    if not parts:
        return unmark(html, theme)
    stripped = re.compile(theme.search_stripped) if theme.search_stripped else None
    needle = _stripped_needle(theme.search_stripped)
    if not theme.search_exclude or needle not in theme.search_exclude:
        return unmark(restore(html, parts, theme), theme)
    html = unmark(html, theme)
    opaque = _opaque_spans(html)

    def finished(m: re.Match[str]) -> str:
        part = parts[int(m.group(1))]
        if needle not in part:
            return part
        part = _finished(part, stripped, needle)
        return part if opaque and _inside(opaque, m.start()) else unmark(part, theme)

    return _PLACEHOLDER.sub(finished, html)


def unmark(html: str, theme: ThemeProfile) -> str:
    """``html`` without the bare exclusion mark (``search_exclude``, no value: Material strips a
    valued one, ``search_stripped``) wherever it is an attribute of a tag: a start tag that
    begins at the last ``<`` before it, names it as an attribute there and is in no comment,
    script or style. Text that spells it (escaped, in an attribute's value) stays. Like ``cut``,
    it takes the last ``<`` for a tag's start: a raw ``<`` in an attribute's value could mislead
    it, which escaped text (every catalog string, Jinja's and Markdown's escaping) never holds."""
    mark = theme.search_exclude
    pieces = html.split(mark) if mark else [html]
    if len(pieces) == 1:
        return html
    opaque = _opaque_spans(html)
    out = [pieces[0]]
    at = len(pieces[0])
    last_tag = _LAST_TAG.fullmatch
    for piece in pieces[1:]:
        before = out[-1]
        attribute = (piece[:1] == ">" and last_tag(before, before.rfind("<"))) or (
            before[-1:] in _SPACE and piece[:1] in _MARK_END and _is_attribute(html, at, mark))
        if attribute and not (opaque and _inside(opaque, at)):
            out[-1] = before[:-1]
        else:
            out.append(mark)
        out.append(piece)
        at += len(mark) + len(piece)
    return "".join(out)


_LAST_TAG = re.compile(rf"<{_NAME}{_ATTRS}(?<![=\s])\s")
"""The start of a tag up to the mark as its last attribute, after one whitespace character (the
common case, read without ``_is_attribute``: a start tag open to here, no ``=`` before the mark)."""


_NOT_A_PLACEHOLDER = rf"(?!{re.escape(_PLACEHOLDER_START[4:])}\d+-->)"
_OPAQUE = re.compile(rf"<!--{_NOT_A_PLACEHOLDER}.*?(?:-->|\Z)|<(script|style)\b.*?(?:</\1\s*>|\Z)",
                     re.S | re.I)
"""A comment (not a placeholder), script or style, to its end or the page's: text, not tags."""
_OPAQUE_START = re.compile(rf"<!--{_NOT_A_PLACEHOLDER}|<(?:script|style)\b", re.I)


def _opaque_spans(html: str) -> list[tuple[int, int]]:
    """(start, end) of the comments, scripts and styles of ``html`` (none scanned for if it
    holds no start of one: most articles)."""
    if _OPAQUE_START.search(html) is None:
        return []
    return [m.span() for m in _OPAQUE.finditer(html)]


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    """True if ``at`` is inside one of ``spans`` (in order, not overlapping)."""
    index = bisect.bisect_left(spans, (at,)) - 1  # the last span that starts before ``at``
    return index >= 0 and at < spans[index][1]


_SPACE = frozenset(" \t\n\r\f")
_MARK_END = frozenset((">", "/", " ", "\t", "\n", "\r", "\f"))
"""What follows a bare attribute's name in a tag (a ``=`` would start its value)."""


def _is_attribute(html: str, at: int, mark: str) -> bool:
    """True if ``html[at:]`` starts with ``mark`` as an attribute name of the start tag around
    it (``_TAG`` reads quoted values whole, so the mark in a value is not a name). The mark as
    the tag's last word (most) is one if the tag ends right after it and no ``=`` precedes it
    (it would be that attribute's value): no need to read the other attributes."""
    lt = html.rfind("<", 0, at)
    match = _TAG.match(html, lt) if lt >= 0 else None
    if match is None or match.end() <= at or match.group(1):
        return False
    if match.end() == at + len(mark) + 1:
        before = at - 1
        while html[before] in _SPACE:
            before -= 1
        return html[before] != "="
    offset = match.start(3)
    return any(m.start(1) + offset == at and m.end() == m.end(1)  # a name with no value
               for m in _ATTR_NAME.finditer(match.group(3)) if m.group(1) == mark)


def _finished(part: str, stripped: re.Pattern[str] | None, needle: str) -> str:
    """``part`` less the stripped attributes; a part without ``needle``, text every match of
    the pattern holds, is not scanned (most parts: a chart's SVG, a panel's table)."""
    if stripped is None or needle not in part:
        return part
    return stripped.sub("", part)


_SET = re.compile(r"\[\^?\]?[^\]]*\][?*+]?")
_NOT_PLAIN = re.compile(r"[][|(){}.^$]|\\[^A-Za-z]|\\[A-Za-z]\{")
"""What ``_stripped_needle`` does not read, outside sets: alternation, groups, counted repeats,
any-character, anchors, escaped punctuation."""
_OPTIONAL = re.compile(r"\\[A-Za-z][?*+]?|[^?*+][?*]")
"""A class escape (``\\w``) or an optional character: not literal text of a match."""
_LITERAL_RUN = re.compile(r"[A-Za-z0-9_=\"'-]+")


def _stripped_needle(pattern: str) -> str:
    """The longest literal text every match of ``pattern`` holds (``data-search-`` of
    ``\\s?data-search-\\w+="[^"]+"``), read only off a plain sequence of characters, sets
    and class escapes; "" (every part is scanned) for any other pattern."""
    rest = _SET.sub(" ", pattern)
    if _NOT_PLAIN.search(rest):
        return ""
    return max(_LITERAL_RUN.findall(_OPTIONAL.sub(" ", rest)), key=len, default="")


def _excluded_spans(html: str, mark: str, void: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of each part safe to cut; an excluded element inside another, or inside an
    excluded section, gives a span within the outer one, which ``cut`` skips: so an excluded
    element whose start tag ends inside the last span found is not looked into (the locators
    inside an excluded section, a panel inside an excluded element)."""
    spans: list[tuple[int, int]] = []
    last = (0, 0)
    at = html.find(mark)
    while at >= 0:
        match = _TAG.match(html, html.rfind("<", 0, at))
        at_mark = at
        at = html.find(mark, at + len(mark))
        if match is None or match.end() <= at_mark or match.group(1):
            continue
        if last[0] <= match.end() < last[1]:
            continue  # its span would start inside the last one: cut skips it
        if mark not in _attribute_names(match.group(3)):
            continue
        tag = match.group(2).lower()
        if tag in void or match.group(3).endswith("/"):
            continue
        span = (_section_body(html, match, tag, void) if _is_heading(tag)
                else _interior(html, match, tag, void))
        if span is not None:
            spans.append(span)
            last = span
    return spans


def _attribute_names(attributes: str) -> set[str]:
    return {m.group(1).lower() for m in _ATTR_NAME.finditer(attributes) if m.group(1)}


def _is_heading(tag: str) -> bool:
    return len(tag) == 2 and tag[0] == "h" and tag[1] in "123456"


def _interior(html: str, start_tag: re.Match[str], tag: str,
              void: frozenset[str]) -> tuple[int, int] | None:
    """The inside of an excluded element, up to the first end tag of its name."""
    start = start_tag.end()
    end = html.find(f"</{tag}>", start)
    if end > start and _safe(html, start, end, tag, void):
        return start, end
    return None


def _section_body(html: str, start_tag: re.Match[str], tag: str,
                  void: frozenset[str]) -> tuple[int, int] | None:
    """The body of an excluded heading's section: from its end tag to the next heading."""
    close = html.find(f"</{tag}>", start_tag.end())
    if close < 0:
        return None
    start = close + len(tag) + 3
    following = _HEADING.search(html, start)
    end = following.start() if following else len(html)
    if end > start and _safe(html, start, end, None, void):
        return start, end
    return None


def _safe(html: str, start: int, end: int, own_tag: str | None, void: frozenset[str]) -> bool:
    """True if the indexer's parser leaves ``html[start:end]`` in the state it entered it:
    balanced tags, no heading, no element named ``own_tag``, every comment, script and style
    closed inside it (their text is not markup, so the scan steps over it)."""
    tags = _tags(html, start, end)
    if tags is None:
        return False
    forbidden = _HEADINGS | {own_tag} if own_tag else _HEADINGS
    stack: list[str] = []
    for name, attributes in tags:
        name = name.lower()
        if name[0] == "/":
            if not stack or stack.pop() != name[1:]:
                return False
        elif name in forbidden:
            return False
        elif name not in void and not attributes.endswith("/"):
            stack.append(name)
    return not stack


def _tags(html: str, start: int, end: int) -> list[tuple[str, str]] | None:
    """The tags of ``html[start:end]`` as (name with ``/`` for an end tag, attributes), outside
    comments, scripts and styles; None if one of those is unfinished."""
    if _SKIPPED.search(html, start, end) is None:
        return _PLAIN_TAG.findall(html, start, end)
    tags = []
    for _, unfinished, name, attributes in _MARKUP.findall(html, start, end):
        if unfinished:
            return None
        if name:  # else a whole comment, script or style
            tags.append((name, attributes))
    return tags
