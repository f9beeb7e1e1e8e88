"""Catalog Markdown to sanitised HTML: the one renderer for contributor prose and LaTeX.

``to_html`` renders Markdown with inline and block math (``\\(...\\)``, ``\\[...\\]``, as MathML)
and sanitises the result (``sanitise.clean``); ``math`` does the same for a ``latex`` field.
``problems`` is the validator's view of the same pipeline: what the sanitiser would remove, an
invisible character an entity writes (``markup.invisible``), or why the math cannot be rendered,
as messages. Results are cached per text: the same note is
shown on many pages.

Plain text (issue 47): most catalog texts (a locator, a note, a name) hold no Markdown at all.
``is_plain`` recognises them -- one line of printable characters, none of ``MARKUP``, not
starting with what opens a block (a heading, list, quote, rule or code block) and not padded
with spaces -- and ``to_html`` writes such a text as the paragraph Markdown and the sanitiser
make of it, ``<p>text</p>``, without running either (``problems`` finds nothing in it); at
1,000 algorithms that was most of the Markdown parsed in a build. ``tests/test_prose_plain.py``
holds the two paths equal.

Budget: Python-Markdown looks for the end of a link from every ``[`` it meets, and rebuilds the
text after every inline match (an entity, a tag, math, emphasis), which is quadratic: a field of
4,000 ``[`` took 3.3 s, of 1,300 ``<a `` 0.5 s. A text holds at most ``MAX_BRACKETS`` ``[`` and
``MAX_MARKUP`` characters that start inline Markdown (``MARKUP``): the validator refuses more
(``over_budget``), and the renderer shows such a text as plain escaped text, never parsed, so no
text costs Markdown more than a few milliseconds whatever reaches it.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from markdown import Markdown

from tinkernomics.markup import sanitise
from tinkernomics.markup.invisible import hidden_message
from tinkernomics.markup.mathml import MathError, MathExtension, to_mathml

CACHE_SIZE = 65_536
"""Distinct texts kept rendered; bounded so memory stays small."""

_MARKDOWN = Markdown(
    extensions=["pymdownx.arithmatex", MathExtension()],
    extension_configs={"pymdownx.arithmatex": {
        "generic": True, "inline_syntax": ["round"], "block_syntax": ["square"],
    }},
)
MAX_BRACKETS = 32
"""Most ``[`` in one text (links, images, footnotes). Catalog prose uses one or two."""
MARKUP = "[]<>&\\`*_!"
"""Characters that start or end an inline Markdown match."""
MAX_MARKUP = 200
"""Most ``MARKUP`` characters in one text; the catalog's busiest field has about 35."""
_SINGLE_P = re.compile(r"^<p>(.*)</p>$", re.DOTALL)
_NOT_PLAIN = re.compile(r"[" + re.escape(MARKUP) + r"]|^[^\w(\"'“‘]|^_|^\d+[.)](?:\s|$)|\s$")
"""What makes a printable one-line text more than a paragraph of itself: a ``MARKUP``
character, a first character that is not a letter, digit, bracket or quote (``#``, ``-``,
``+``, ``=``, a space...), an ordered list's number, trailing space."""

HINT = ("write Markdown: links as [text](https://...) or [text](../page/), images as "
        "![description](path/on/this/site.png); no HTML tags, comments or headings")


def over_budget(text: str) -> str | None:
    """Why ``text`` is not parsed as Markdown (too many ``[`` or markup characters), or None."""
    brackets = text.count("[")
    if brackets > MAX_BRACKETS:
        return (f"{brackets} '[' characters: at most {MAX_BRACKETS} in one text (each may start "
                "a link, and Markdown's cost grows with their square)")
    markup = sum(map(text.count, MARKUP))
    if markup > MAX_MARKUP:
        return (f"{markup} Markdown characters ({' '.join(MARKUP)}): at most {MAX_MARKUP} in "
                "one text (Markdown's cost grows with their square)")
    return None


def is_plain(text: str) -> bool:
    """True if Markdown and the sanitiser make ``text`` the paragraph ``<p>text</p>``: one
    non-empty line of printable characters (no tab, no-break space, line or format
    character) that ``_NOT_PLAIN`` finds nothing in."""
    return bool(text) and text.isprintable() and _NOT_PLAIN.search(text) is None


def _render(text: str) -> str:
    """Markdown and math, before sanitising (raises MathError on LaTeX it cannot render); a text
    over the budget as plain escaped text."""
    if over_budget(text) is not None:
        return "<p>" + html.escape(text, quote=False) + "</p>"
    return _MARKDOWN.reset().convert(text)


@lru_cache(maxsize=CACHE_SIZE)
def to_html(text: str) -> str:
    """Catalog Markdown as safe HTML paragraphs (a plain text without parsing it)."""
    if is_plain(text):
        return f"<p>{text}</p>"
    return sanitise.clean(_render(text))


@lru_cache(maxsize=CACHE_SIZE)
def to_inline_html(text: str) -> str:
    """Catalog Markdown as safe inline HTML (without a single wrapping paragraph)."""
    html = to_html(text)
    match = _SINGLE_P.match(html)
    return match.group(1) if match and "<p>" not in match.group(1) else html


@lru_cache(maxsize=CACHE_SIZE)
def to_plain(text: str) -> str:
    """Catalog Markdown as plain text (for title attributes: the caller escapes it)."""
    from markupsafe import Markup  # Jinja's dependency; striptags also decodes entities

    return Markup(to_html(text)).striptags()


@lru_cache(maxsize=1024)
def math(latex: str, *, display: bool = False) -> str:
    """A ``latex`` field as safe MathML."""
    return sanitise.clean(to_mathml(latex, display=display))


def problems(text: str) -> list[str]:
    """Why ``text`` would not reach the page as written: what the sanitiser would remove from
    its rendering, or why its math cannot be rendered. Empty when it is fine (a plain text
    always is)."""
    if is_plain(text):
        return []
    if (why := over_budget(text)) is not None:
        return [why]
    try:
        rendered = _render(text)
    except MathError as err:
        return [str(err)]
    hidden = hidden_message(html.unescape(rendered), "an HTML entity")
    return [*sanitise.removed(rendered), *([hidden] if hidden else [])]


def latex_problems(latex: str) -> list[str]:
    """The same verdict for a ``latex`` field or a symbol (rendered as display math: inline, the
    same LaTeX gives the same verdict)."""
    try:
        mathml = to_mathml(latex, display=True)
    except MathError as err:
        return [str(err)]
    return [f"in LaTeX, {what}" for what in sanitise.removed(mathml)]
