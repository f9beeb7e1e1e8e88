"""The allow-list sanitiser for contributor HTML (nh3, the binding of the Rust crate ammonia).

``clean(html)`` keeps only the tags and attributes that catalog Markdown and its MathML produce,
links whose scheme is http(s) or that are relative to this site, and images from this site.
Entities are decoded by the HTML parser before any URL is checked, so ``&#106;avascript:`` is
``javascript:``; a URL holding whitespace or a control character is removed (browsers drop tabs
and line feeds from a URL, so ``/&#9;/evil.example/p.png`` would load from another host).
``removed(html)`` is the verdict: what ``clean`` would take out, each as a
short description, empty when the HTML is already safe; the validator reports those.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from html.parser import HTMLParser

import nh3

MARKDOWN_TAGS = frozenset({
    "p", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "br", "hr", "img",
    "span", "div",
})
"""What Python-Markdown writes for catalog prose (no raw HTML, no headings, no tables)."""

MATHML_TAGS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "mmultiscripts", "mprescripts",
    "none", "semantics", "annotation",
})
"""MathML Core presentation elements (what latex2mathml writes); no ``href`` on any of them."""

MATHML_ATTRIBUTES = frozenset({
    "xmlns", "display", "accent", "accentunder", "stretchy", "fence", "separator", "form",
    "lspace", "rspace", "mathvariant", "columnalign", "rowalign", "columnspacing", "rowspacing",
    "columnlines", "rowlines", "frame", "width", "height", "depth", "linethickness",
    "displaystyle", "scriptlevel", "movablelimits", "largeop", "symmetric", "minsize",
    "maxsize", "notation", "mathsize", "encoding",
})

ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    **{tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS},
}
CLASSES: dict[str, set[str]] = {"span": {"tn-math"}, "div": {"tn-math"}}
"""The only classes prose may carry: the wrapper the math extension writes."""
URL_SCHEMES = frozenset({"http", "https"})

_FOREIGN = ("//", "\\", "/\\")
_BLANK = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")
"""Whitespace (any) and control characters: never in a URL the site keeps."""


def _is_relative(url: str) -> bool:
    """A path on this site: no scheme (nh3 checks schemes) and not protocol-relative."""
    stripped = url.strip()
    return ":" not in stripped.split("/", 1)[0] and not stripped.startswith(_FOREIGN)


def _attribute_filter(tag: str, name: str, value: str) -> str | None:
    """Links go to http(s) or this site; images come from this site only; no URL holds
    whitespace or a control character."""
    if name in ("href", "src") and _BLANK.search(value):
        return None
    if name == "src" and tag == "img":
        return value if value.strip() and _is_relative(value) else None
    if name == "href" and value.strip().startswith(_FOREIGN):
        return None
    return value


_BIDI = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                                 "\u2066\u2067\u2068\u2069"))
"""Bidi controls, which make text read in another order: the validator refuses them, as written
or as an entity; ``clean`` drops any that reach it (nh3 writes entities as characters)."""


@lru_cache(maxsize=65_536)
def clean(html: str) -> str:
    """``html`` with everything outside the allow-list removed (script and style content too)
    and no bidi control."""
    return nh3.clean(
        html, tags=set(MARKDOWN_TAGS | MATHML_TAGS), attributes=ATTRIBUTES,
        allowed_classes=CLASSES, url_schemes=set(URL_SCHEMES), link_rel=None,
        attribute_filter=_attribute_filter, strip_comments=True,
    ).translate(_BIDI)


class _Markup(HTMLParser):
    """The tags and attributes of a fragment, entities decoded, as a multiset."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: Counter[tuple[str, ...]] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.items[(tag,)] += 1
        for name, value in attrs:
            self.items[(tag, name, value or "")] += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag not in MARKDOWN_TAGS | MATHML_TAGS:  # an end tag alone is dropped, never paired
            self.items[("/" + tag,)] += 1

    def handle_comment(self, data: str) -> None:
        self.items[("!--",)] += 1


def _markup(html: str) -> Counter[tuple[str, ...]]:
    parser = _Markup()
    parser.feed(html)
    parser.close()
    return parser.items


_NAME = re.compile(r"/?[a-z][a-z0-9-]*")
_HEADINGS = frozenset(f"h{level}" for level in range(1, 7))


def _describe(item: tuple[str, ...]) -> str:
    if item == ("!--",):
        return "raw HTML is not allowed: an HTML comment"
    if len(item) == 1:
        name = m.group() if (m := _NAME.match(item[0])) else item[0]
        if name in _HEADINGS:
            return "headings are not allowed in catalog text: a line starting with #"
        return f"raw HTML is not allowed: the <{name}> tag"
    tag, name, value = item
    if name in ("href", "src") and _BLANK.search(value):
        return f"spaces and control characters are not allowed in a link or image URL: {value!r}"
    if (tag, name) == ("img", "src"):
        return f"images must come from this site: {value!r}"
    if name in ("href", "src"):
        return f"links must be http(s) or a path on this site: {value!r}"
    return f"raw HTML is not allowed: the {name}={value!r} attribute on <{tag}>"


@lru_cache(maxsize=65_536)
def removed(html: str) -> tuple[str, ...]:
    """What ``clean`` takes out of ``html``: a description of each removed tag, attribute or
    link, in a stable order; empty when the HTML passes unchanged."""
    lost = _markup(html) - _markup(clean(html))
    gone = {item[0] for item in lost if len(item) == 1}
    shown = [item for item in lost
             if (item[0] not in gone if len(item) > 1 else item[0].lstrip("/") == item[0]
                 or item[0][1:] not in gone)]
    return tuple(sorted({_describe(item) for item in shown}))
