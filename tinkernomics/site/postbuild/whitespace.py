"""Indentation out of built pages (pipeline step 6, in the link-preview pass over every page).

Material's templates indent their markup and leave runs of blank lines: about 4.2 KB of every
page, 4.3 MB of the site at 1,000 algorithms. The link-preview pass (``previews.tag_page``, in
``postbuild.finish``'s one pass) already reads and rewrites every built page, so it passes each
one through ``strip_theme_indentation`` on the way. That strips only the theme's chrome,
around the page's ``<article>``: the article (the page's own content, markup from Markdown and
the macros) has 2% of the indentation and two thirds of the bytes, so it is copied as it is,
and stripping costs a fraction of what the whole page would.

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
    for byte (a page without one is stripped whole)."""
    start, end = page.find("<article"), page.rfind("</article>")
    if start < 0 or end < start:
        return strip_indentation(page)
    return strip_indentation(page[:start]) + page[start:end] + strip_indentation(page[end:])
