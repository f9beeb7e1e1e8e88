"""Catalog Markdown to sanitised HTML: the one renderer for contributor prose and LaTeX.

``to_html`` renders Markdown with inline and block math (``\\(...\\)``, ``\\[...\\]``, as MathML)
and sanitises the result (``sanitise.clean``); ``math`` does the same for a ``latex`` field.
``problems`` is the validator's view of the same pipeline: what the sanitiser would remove, an
invisible character an entity writes (``markup.invisible``), or why the math cannot be rendered,
as messages. Results are cached per text: the same note is
shown on many pages.

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


def _render(text: str) -> str:
    """Markdown and math, before sanitising (raises MathError on LaTeX it cannot render); a text
    over the budget as plain escaped text."""
    if over_budget(text) is not None:
        return "<p>" + html.escape(text, quote=False) + "</p>"
    return _MARKDOWN.reset().convert(text)


@lru_cache(maxsize=CACHE_SIZE)
def to_html(text: str) -> str:
    """Catalog Markdown as safe HTML paragraphs."""
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
    its rendering, or why its math cannot be rendered. Empty when it is fine."""
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
