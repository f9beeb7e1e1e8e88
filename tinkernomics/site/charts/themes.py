"""The charts' light and dark themes (pipeline step 6, shared by ``spec`` and ``plotlyspec``).

Overrides of the Plotly layout as ``relayout`` keys: the browser applies the one of the page's
palette on top of the figure (``charts.js``). The static SVG's paints (``PAINT``) are here
too: a page's stylesheet rules (``page_css``) and a file's presentation attributes (``paint``),
and the markers ``svg`` draws with once per chart and layout (``MARKED``, ``_resolve``). And
the log axes' labelled ticks (``decade_ticks``, ``short_number``), which the SVG, the cards and
the Plotly spec write alike (``spec`` re-exports them).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from tinkernomics.derived import derive

THEMES: dict[str, dict[str, str]] = {
    "light": {
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font.color": "#1f2328",
        "xaxis.gridcolor": "#e4e6eb",
        "yaxis.gridcolor": "#e4e6eb",
        "xaxis.linecolor": "#8c8f94",
        "yaxis.linecolor": "#8c8f94",
        "xaxis2.linecolor": "#8c8f94",
        "legend.bgcolor": "rgba(255,255,255,0)",
        "hoverlabel.bgcolor": "#ffffff",
        "hoverlabel.font.color": "#1f2328",
    },
    "dark": {
        # Material's slate background is hsl(232, 15%, 14%) = #1e2029.
        "paper_bgcolor": "#1e2029",
        "plot_bgcolor": "#1e2029",
        "font.color": "#e2e4ee",
        "xaxis.gridcolor": "#343746",
        "yaxis.gridcolor": "#343746",
        "xaxis.linecolor": "#8a8ea3",
        "yaxis.linecolor": "#8a8ea3",
        "xaxis2.linecolor": "#8a8ea3",
        "legend.bgcolor": "rgba(30,32,41,0)",
        "hoverlabel.bgcolor": "#2b2e3b",
        "hoverlabel.font.color": "#e2e4ee",
    },
}
"""Theme overrides as Plotly ``relayout`` keys; the browser applies one on top of the layout."""

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"

SVG_VARS = {"fg": "font.color", "bg": "paper_bgcolor", "grid": "xaxis.gridcolor",
         "axis": "xaxis.linecolor"}


PAINT: dict[str, tuple[tuple[str, str], ...]] = {
    "bg": (("fill", "@bg"),),
    "text": (("fill", "@fg"), ("font-family", FONT), ("font-size", "13px")),
    "grid": (("stroke", "@grid"),),
    "axis": (("stroke", "@axis"), ("fill", "none")),
    "curve": (("fill", "none"), ("stroke-width", "2.5")),
    "asym": (("stroke-width", "1.2"), ("stroke-dasharray", "6 4")),
}
"""How each class of element is drawn (``text``: every text), ``@name`` a colour of
``SVG_VARS``. Inline on a page these are the ``<style>`` rules (``_css``), colours as variables
that follow the palette; in a file or image (a theme given) they are written on each element as
presentation attributes with that theme's literal colours, which every renderer reads (ThorVG
and image viewers ignore or mishandle ``<style>``). A property at SVG's initial value is not
written (issue 47: the grid's and axes' 1 px stroke width; ``asym`` is only ever a ``<line>``,
which has no fill)."""


def _value(value: str, theme: str | None) -> str:
    if not value.startswith("@"):
        return value
    return THEMES[theme][SVG_VARS[value[1:]]] if theme else f"var(--tn-svg-{value[1:]})"


def _css() -> str:
    """The page's rules (prefix ``tn-svg``): colours are variables for both themes, switched by
    the palette attribute."""

    def block(name: str) -> str:
        return ";".join(f"--tn-svg-{var}:{THEMES[name][key]}" for var, key in SVG_VARS.items())

    rules = "".join(
        f".tn-svg {'' if name == 'text' else '.'}{name}"
        f"{{{';'.join(f'{k}:{_value(v, None)}' for k, v in props)}}}"
        for name, props in PAINT.items())
    switch = f".tn-svg{{{block('light')}}}[data-md-color-scheme=slate] .tn-svg{{{block('dark')}}}"
    return switch + rules


def page_css() -> str:
    """``_css`` for a stylesheet (the embed pages' shared ``embed/theme.css``, ``files``)."""
    return _css()


MARKED = "\x00"
"""The theme a chart's drawing is made in once per layout (``_drawing``): each element's paint
is a marker (``\x00name\x00``) that ``_resolve`` replaces for the page or a file's theme, so
a chart's light and dark files and its page SVG share one drawing (issue 47: every variant
was drawn from scratch, 40% of the charts' outputs)."""
LEGEND = "legend"
"""The marker of the legend group's attributes (its class on a page, nothing in a file)."""
_MARKER = re.compile("\x00(\\w+)\x00")


def paint(name: str, theme: str | None) -> str:
    """The attributes of an element of class ``name``: on a page its class (the stylesheet
    draws it), in a file or image the properties themselves (no class: nothing styles a file).
    ``text`` is the chart's own element, which its texts inherit the properties from (no
    class: it has its own)."""
    if theme == MARKED:
        return f"{MARKED}{name}{MARKED}"
    if theme is None:
        return "" if name == "text" else f' class="{name}"'
    return "".join(f' {k}="{_value(v, theme)}"' for k, v in PAINT[name])


@lru_cache(maxsize=8)
def _paints(theme: str | None) -> dict[str, str]:
    table = {name: paint(name, theme) for name in PAINT}
    table[LEGEND] = ' class="tn-svg__legend"' if theme is None else ""
    return table


def _resolve(drawing: str, theme: str | None) -> str:
    """A drawing made with markers (``MARKED``) painted for ``theme`` (None: a page's)."""
    table = _paints(theme)
    return _MARKER.sub(lambda found: table[found.group(1)], drawing)


# --------------------------------------------------------------------------- axis labels


def decade_ticks(low: float, high: float) -> list[float]:
    """Powers of ten within [low, high]: the labelled ticks of a log axis."""
    first = math.ceil(math.log10(low) - 1e-9)
    last = math.floor(math.log10(high) + 1e-9)
    return [10.0**k for k in range(first, last + 1)]


def short_number(value: float) -> str:
    """Tick label: 100, 1k, 10k, 1M."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{derive.format_number(value / size)}{suffix}"
    return derive.format_number(value)
