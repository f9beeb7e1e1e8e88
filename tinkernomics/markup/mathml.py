"""LaTeX to MathML at build time (pipeline step 6, rendering): no JavaScript, works offline.

Formulas in the catalog (``latex`` fields, variable symbols) and math in markdown are turned
into MathML here, with ``latex2mathml``, so the browser shows real math and never raw LaTeX.

- ``to_mathml(latex, display=...)`` converts one formula; it raises ``MathError`` when the
  LaTeX uses a command the converter does not know (it would otherwise print ``\\foo`` as text).
- ``MathExtension`` is a Python-Markdown extension (``tinkernomics.markup.mathml`` in
  mkdocs.yml): it takes what ``pymdownx.arithmatex`` (generic mode) found -- ``\\(...\\)``
  inline, ``\\[...\\]`` blocks -- and replaces it with MathML, so no client-side renderer is
  needed. Catalog text is rendered through ``markup.prose``, which sanitises the MathML too.

``to_mathml`` also refuses what would render but break the page or hide text: a space, rule or
size larger than ``MAX_EM`` (``\\hspace{100000em}`` made a page 1.8 million px wide), and an
invisible character written as ``\\unicode{x202E}`` or an entity (``markup.invisible``).

Lesson: browsers implement MathML Core, which ignores ``mathvariant`` except ``normal``; script,
bold, double-struck and fraktur letters are therefore mapped to their Unicode math letters.
"""

from __future__ import annotations

import html
import re
import unicodedata
import xml.etree.ElementTree as etree
from functools import lru_cache

from latex2mathml.converter import convert
from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from tinkernomics.markup.invisible import hidden_message

ARITHMATEX_CLASS = "arithmatex"
MATH_CLASS = "tn-math"

_VARIANT = re.compile(r'<mi mathvariant="(script|bold|double-struck|fraktur)">([A-Za-z])</mi>')
_VARIANT_NAMES = {
    "script": ("MATHEMATICAL SCRIPT", "SCRIPT"),
    "bold": ("MATHEMATICAL BOLD", "BOLD"),
    "double-struck": ("MATHEMATICAL DOUBLE-STRUCK", "DOUBLE-STRUCK"),
    "fraktur": ("MATHEMATICAL FRAKTUR", "BLACK-LETTER"),
}
_TEXT = re.compile(r">([^<]*)<")
MAX_EM = 20.0
"""Largest space, rule, stretch or size LaTeX may ask for, in em (``\\quad`` is 1, ``\\Bigg``
2.47)."""
_DIMENSION = re.compile(r'\b(width|height|depth|lspace|rspace|voffset|minsize|maxsize|mathsize)'
                        r'="\s*([-+]?[0-9]*\.?[0-9]+)\s*([a-z%]*)\s*"')
_EM_PER_UNIT = {"em": 1.0, "ex": 0.5, "mu": 1 / 18, "px": 1 / 16, "pt": 0.1, "pc": 1.2,
                "in": 6.0, "cm": 2.4, "mm": 0.24, "%": 0.01}
"""Units latex2mathml writes, in em (16 px to the em); any other counts one em per unit."""
_WRAPS = (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"), ("$", "$"))


class MathError(ValueError):
    """The LaTeX cannot be rendered to MathML."""


def _math_letter(variant: str, letter: str) -> str:
    case = "CAPITAL" if letter.isupper() else "SMALL"
    for prefix in _VARIANT_NAMES[variant]:
        try:
            return unicodedata.lookup(f"{prefix} {case} {letter.upper()}")
        except KeyError:
            continue
    return letter


def _fix_variants(mathml: str) -> str:
    return _VARIANT.sub(lambda m: f"<mi>{_math_letter(m.group(1), m.group(2))}</mi>", mathml)


@lru_cache(maxsize=1024)
def to_mathml(latex: str, *, display: bool = False) -> str:
    """MathML for ``latex``; raise MathError if anything would be left as raw LaTeX."""
    try:
        mathml = convert(latex.strip(), display="block" if display else "inline")
    except Exception as err:  # latex2mathml raises several exception types
        raise MathError(f"cannot render LaTeX {latex!r}: {err}") from err
    texts = [html.unescape(t) for t in _TEXT.findall(mathml)]
    leftovers = [t for t in texts if "\\" in t]
    if leftovers:
        raise MathError(f"unknown LaTeX command {leftovers[0]!r} in {latex!r}")
    _check_sizes(mathml, latex)
    hidden = hidden_message("".join(texts), "\\unicode or an entity in LaTeX")
    if hidden is not None:
        raise MathError(hidden)
    return _fix_variants(mathml)


def _check_sizes(mathml: str, latex: str) -> None:
    """Raise MathError for a dimension over ``MAX_EM``."""
    for name, number, unit in _DIMENSION.findall(mathml):
        if abs(float(number)) * _EM_PER_UNIT.get(unit, 1.0) > MAX_EM:
            raise MathError(f"{name} {number}{unit} is too large in {latex!r}: spaces, rules and "
                            f"sizes are at most {MAX_EM:g}em")


def _unwrap(text: str) -> str:
    text = html.unescape(text.strip())
    for start, end in _WRAPS:
        if text.startswith(start) and text.endswith(end) and len(text) >= len(start) + len(end):
            return text[len(start):len(text) - len(end)]
    return text


class _MathTreeprocessor(Treeprocessor):
    """Swap arithmatex's generic output (LaTeX text) for stashed MathML."""

    def run(self, root: etree.Element) -> None:
        for el in root.iter():
            classes = (el.get("class") or "").split()
            if ARITHMATEX_CLASS not in classes or not el.text:
                continue
            display = el.tag != "span"
            mathml = to_mathml(_unwrap(el.text), display=display)
            el.text = self.md.htmlStash.store(mathml)
            el.set("class", " ".join(c if c != ARITHMATEX_CLASS else MATH_CLASS for c in classes))


class MathExtension(Extension):
    """Render arithmatex-found math as MathML (register after pymdownx.arithmatex)."""

    def extendMarkdown(self, md: Markdown) -> None:  # Python-Markdown API name
        # Priority 15: after the inline patterns (20) found inline math, before prettify (10).
        md.treeprocessors.register(_MathTreeprocessor(md), "tinkernomics_mathml", 15)


def makeExtension(**kwargs: object) -> MathExtension:  # Python-Markdown API name
    return MathExtension(**kwargs)
