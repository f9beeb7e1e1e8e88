"""Indentation out of built pages (pipeline step 6, in the link-preview pass over every page).

Material's templates indent their markup and leave runs of blank lines: about 4.2 KB of every
page, 4.3 MB of the site at 1,000 algorithms. The link-preview pass (``previews.tag_page``, in
``postbuild.finish``'s one pass) already reads and rewrites every built page, so it passes each
one through ``strip_theme_indentation`` on the way. That strips only the theme's chrome,
around the page's ``<article>``: the article (the page's own content, markup from Markdown and
the macros) has 2% of the indentation and two thirds of the bytes, so it is copied as it is,
and stripping costs a fraction of what the whole page would. Only its edges, where the theme's
templates leave runs of blank lines (after its start tag; after the page's content, around the
build date), are stripped too (``_article``): 92 KB at 1,000 algorithms.

The transform changes nothing a reader sees. It touches only text between tags, never a tag
(attribute values stay byte for byte) and never the content of an element whose whitespace
matters: ``pre``, ``textarea``, ``script``, ``style``, ``template``, and ``code``/``kbd`` (the
theme sets ``white-space: pre-wrap`` on them). In the text it touches, a whitespace run that
holds a line break becomes that one line break: CSS removes the spaces and tabs around a line
break and collapses consecutive ones (CSS Text 3, "white space processing"), so for every
element with ``white-space: normal`` or ``nowrap`` -- everything else on these pages -- the
rendered text is the same. Runs without a line break (spaces between words) are left alone.
"""

from __future__ import annotations

import re

_KEPT = ("pre", "textarea", "script", "style", "template", "code", "kbd")
"""Elements whose content is copied as it is (whitespace significant or not markup)."""
_TAG_BODY = r"""[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*"""
"""A tag's inside up to its ``>``, quoted attribute values included (they may hold ``>``)."""
_OPAQUE = re.compile(
    r"(<!--.*?-->"
    rf"|<({'|'.join(_KEPT)})(?=[\s/>]){_TAG_BODY}>.*?</\2\s*>"
    rf"|<{_TAG_BODY}>)",
    re.S | re.I,
)
"""What is copied unchanged: comments, kept elements with their content, and every tag (group 1:
all of it, so that ``split`` returns it; group 2: a kept element's name)."""
_BROKEN_RUN = re.compile(r"[ \t\r\f]*\n[ \t\r\n\f]*")
"""A whitespace run holding at least one line break."""


def _squeeze(text: str) -> str:
    return _BROKEN_RUN.sub("\n", text)


_SEPARATOR = "\0"
"""Joins the texts for their one substitution: not whitespace, so no run spans two texts."""


def strip_indentation(page: str) -> str:
    """``page`` without indentation and blank lines outside tags and kept elements.

    ``_OPAQUE.split`` cuts the page into texts and what is copied unchanged; the texts are
    squeezed in one substitution, joined by a character no whitespace run holds (NUL; each
    text on its own if the page holds one), so no text costs a step in Python."""
    parts = _OPAQUE.split(page)  # text, opaque, kept element's name, text, ...
    texts = parts[0::3]
    if _SEPARATOR in page:
        parts[0::3] = [_squeeze(text) for text in texts]
    else:
        parts[0::3] = _squeeze(_SEPARATOR.join(texts)).split(_SEPARATOR)
    parts[2::3] = [""] * (len(parts) // 3)
    return "".join(parts)


def strip_theme_indentation(page: str) -> str:
    """``page`` with ``strip_indentation`` applied around its ``<article>``, which is kept byte
    for byte but for its edges (``_article``; a page without one is stripped whole)."""
    start, end = page.find("<article"), page.rfind("</article>")
    if start < 0 or end < start:
        return strip_indentation(page)
    return strip_indentation(page[:start]) + _article(page, start, end) \
        + strip_indentation(page[end:])


_ARTICLE_START = re.compile(rf"<article{_TAG_BODY}>")
_SPACE_RUN = re.compile(r"[ \t\r\n\f]*")
_EDGE = 400
"""How far before ``</article>`` its tail is looked at (the theme's blank lines after the page's
content, the build date: about 250 characters)."""
_UNSAFE_TAIL = re.compile(rf"<!--|-->|</?(?:{'|'.join(_KEPT)})(?=[\s/>])", re.I)
"""In the tail: the start or end of a comment or a kept element, any of which may be open there."""


def _article(page: str, start: int, end: int) -> str:
    """``page[start:end]``, the article, with the blank lines the theme's templates leave at its
    edges squeezed (44 + 48 KB at 1,000 algorithms, issue 47): the whitespace right after its start
    tag, and its tail from the first tag end in its last ``_EDGE`` characters. The tail is
    stripped only if nothing kept can be open in it (no comment or kept element starts or ends
    there) and its texts hold no quote or angle bracket (a ``>`` in a quoted attribute value
    would put a tag's rest among them): else it is kept as it is, as the rest of the article."""
    head = _ARTICLE_START.match(page, start)
    if head is None:
        return page[start:end]
    body, content = head.end(), _SPACE_RUN.match(page, head.end(), end).end()  # type: ignore[union-attr]
    tail = page.find(">", max(content, end - _EDGE), end) + 1
    if tail <= 0 or not _plain_tail(page[tail:end]):
        tail = end
    return (page[start:body] + _squeeze(page[body:content]) + page[content:tail]
            + strip_indentation(page[tail:end]))


def _plain_tail(tail: str) -> bool:
    if _UNSAFE_TAIL.search(tail):
        return False
    texts = _OPAQUE.split(tail)[0::3]
    return not any(c in text for text in texts for c in "\"'<>")
