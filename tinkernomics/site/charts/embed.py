"""What a blogger pastes and what a link preview reads (pipeline step 6, embeds).

- ``embed_snippet``: the iframe code. It holds without any script on the host page: a wrapper
  is a CSS size container and the iframe's height is a formula of the wrapper's width (``cqw``)
  with this chart's own numbers, estimated at build from its layouts and text
  (``EmbedHeight``); the embed page lays its chart out to fill whatever height it gets, so an
  estimate a few pixels off shrinks the chart a little instead of clipping it. ``resize.js``
  (optional) then sets the exact height the embed page reports.
- ``oembed``: the static ``embed/<id>/oembed.json`` (``OEMBED_FILE``, type ``rich``), whose
  thumbnail is the chart's PNG.
- ``embed_theme_css``: the embed page's colours, which need no script.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

from tinkernomics.site.charts.spec import LICENCE, LICENCE_URL, PUBLISHER, Chart
from tinkernomics.site.charts.spec import THEMES as CHART_THEMES
from tinkernomics.site.charts.svg import LAYOUTS, SVG_VARS, svg_height

EMBED_DIR = "embed"
EMBED_MAX_WIDTH_PX = 960
NARROW_MAX_PX = 600
"""The embed page takes the narrow layout at or below this width (charts.css, same number)."""
FALLBACK_WIDTH_PX = 720
"""Width the plain ``height`` (for browsers without container units) is computed for."""


@dataclass(frozen=True)
class TextBlock:
    """A run of text in the embed page: its line height and average character width (px)."""

    line: float
    char: float

    def height(self, chars: int, width: float) -> float:
        return max(1, math.ceil(chars * self.char / max(width, 1))) * self.line if chars else 0


@dataclass(frozen=True)
class EmbedMetrics:
    """The embed page's box model (charts.css ``.tn-embed``), measured in Chromium: keep both
    in step. Text widths are averages for a sans-serif system font."""

    pad_x: float = 28  # 14 px each side
    pad_y: float = 22  # 12 px top, 10 px bottom
    title: TextBlock = TextBlock(22.5, 8.6)  # 15 px bold
    caption: TextBlock = TextBlock(22.5, 8.0)  # 15 px
    flag: TextBlock = TextBlock(20.25, 7.2)  # 0.9 em
    tools: TextBlock = TextBlock(17, 5.9)  # 0.85 em
    credit: TextBlock = TextBlock(14, 5.6)  # 0.8 em
    gaps: float = 9 + 6.4 + 7.2  # margins under the caption, over the tools and the credit


METRICS = EmbedMetrics()
TOOLS_CHARS = 62
"""Characters of the tools row ("Share: Link (copy) · PNG · SVG · CSV · JSON Interactive ...")."""
CREDIT_CHARS = 78
"""Characters of the credit line ("From tinker-nomics · open the data · data CC BY 4.0 · ...")."""


@lru_cache(maxsize=16384)
def embed_height(chart: Chart, width: float) -> float:
    """The embed page's natural height at an iframe ``width`` (px), estimated: once per chart
    and width (issue 47: the box's facts, the oEmbed height and its snippet's formula asked
    for the same 8 widths 23 times a chart, each secant's ends twice)."""
    mm = METRICS
    inner = min(width, EMBED_MAX_WIDTH_PX) - mm.pad_x
    layout = "narrow" if width <= NARROW_MAX_PX else "wide"
    ratio = svg_height(chart, layout) / LAYOUTS[layout].width
    text = (mm.title.height(len(chart.title), inner)
            + mm.caption.height(len(chart.description) + 1, inner)
            + mm.flag.height(len(chart.unverified_note), inner)
            + mm.tools.height(TOOLS_CHARS, inner) + mm.credit.height(CREDIT_CHARS, inner))
    return mm.pad_y + mm.gaps + text + inner * ratio


NARROW_NODES = (300, 360, 440, NARROW_MAX_PX)
WIDE_NODES = (NARROW_MAX_PX + 1, 768, EMBED_MAX_WIDTH_PX)
"""Widths (px) where the height formula meets the estimate; between them it is linear."""


WIDTH_CSS = f"min(100cqw, {EMBED_MAX_WIDTH_PX}px)"
"""The frame's width in the height formula. Capped at the embed page's widest layout: where the
wrapper's style is stripped, ``cqw`` measures the viewport, and beyond the cap the page no
longer grows (the formula would leave a blank band under it)."""


def _secants(chart: Chart, nodes: tuple[int, ...]) -> str:
    """``max()`` of the lines through consecutive estimates: for a height that falls with
    width faster at first (text re-wrapping), that is the line joining the estimates."""
    lines = [f"{b}px + {s} * {WIDTH_CSS}" for b, s in secant_terms(chart, nodes)]
    return f"max({', '.join(lines)})" if len(lines) > 1 else lines[0]


def secant_terms(chart: Chart, nodes: tuple[int, ...]) -> list[list[str]]:
    """(intercept px, slope) of each line of ``_secants``, as the formula prints them (the
    embed box ships these and charts.js writes the same formula)."""
    terms = []
    for w1, w2 in itertools.pairwise(nodes):
        h1, h2 = embed_height(chart, w1), embed_height(chart, w2)
        slope = (h2 - h1) / (w2 - w1)
        terms.append([f"{h1 - slope * w1:.0f}", f"{slope:.4f}"])
    return terms


def one_height(chart: Chart, width: int = FALLBACK_WIDTH_PX) -> int:
    """THE height of the chart's frame (px) wherever a number is given: the iframe's ``height``
    attribute, the plain ``height`` before the formula, the oEmbed response. It is the embed
    page's natural height at ``width`` (a typical blog column, ``FALLBACK_WIDTH_PX``), from the
    chart's own layout; a frame that is shorter (a narrow one without script, a fixed box)
    drops the Share row, the legend and the caption in turn (charts.js), and a host script
    (resize.js, WordPress's) sets the exact height."""
    return math.ceil(embed_height(chart, width))


def height_css(chart: Chart) -> str:
    """``height`` declarations for the iframe: a plain px value, then a formula of the wrapper's
    width (``100cqw``) that takes the narrow layout's line at or below ``NARROW_MAX_PX`` and the
    wide layout's above it (the huge ``clamp`` term rules the wide line out below the switch)."""
    step = f"clamp(0px, ({NARROW_MAX_PX + 0.5}px - 100cqw) * 1000, 100000px)"
    return (f"height:{one_height(chart)}px;"
            f"height:min({_secants(chart, NARROW_NODES)}, "
            f"{_secants(chart, WIDE_NODES)} + {step})")


def embed_src(chart: Chart, base: str, theme: str = "auto") -> str:
    """The embed page's URL. ``?theme=`` is read by its script; a fixed theme is repeated as
    the fragment ``#theme=`` so that it holds with scripts off in the frame (CSS ``:target``)."""
    pinned = "" if theme == "auto" else f"#theme={theme}"
    return f"{base}{EMBED_DIR}/{chart.id}/?theme={theme}{pinned}"


def _frame_attributes(chart: Chart, base: str, theme: str, height: int) -> str:
    title = escape(f"{chart.title} (tinker-nomics)")
    return (f'src="{escape(embed_src(chart, base, theme))}" width="100%" height="{height}" '
            f'title="{title}" frameborder="0" scrolling="no" loading="lazy" '
            f'allow="clipboard-write"')


def embed_iframe(chart: Chart, base: str, theme: str = "auto", height: int | None = None,
                 css: str | None = None) -> str:
    """The iframe in its size-container wrapper (no script needed). ``width``, ``height``,
    ``frameborder`` and ``scrolling`` are attributes as well as style, so a host that strips
    styles (WordPress's oEmbed sanitiser, a ``style-src 'self'`` policy) still gets a frame as
    wide as the column and ``one_height`` tall; ``allow="clipboard-write"`` lets the embed
    page's copy button write to the clipboard from another origin. ``css``: the chart's
    ``height_css``, when the caller has it already."""
    attributes = _frame_attributes(chart, base, theme, height or one_height(chart))
    return (
        f'<div style="container-type:inline-size;max-width:{EMBED_MAX_WIDTH_PX}px">'
        f'<iframe {attributes} '
        f'style="display:block;width:100%;{css or height_css(chart)};border:0"></iframe></div>'
    )


def resize_script(base: str) -> str:
    return f'<script src="{base}{EMBED_DIR}/resize.js" async></script>'


def embed_snippet(chart: Chart, base: str, theme: str = "auto", height: int | None = None,
                  css: str | None = None) -> str:
    """The code a blogger pastes: the iframe, then the optional script for exact heights."""
    return f"{embed_iframe(chart, base, theme, height, css)}\n{resize_script(base)}"


OEMBED_FILE = "oembed.json"
"""The chart's one oEmbed response, ``FALLBACK_WIDTH_PX`` wide, which the discovery links name.
Until issue 47 an ``oembed-<width>.json`` per width (360, 480, 640, 960) stood beside it (2.4 MB
at 1,000 algorithms); no link or page named them and a static host answers a consumer's
``maxwidth`` with this file, so none was ever read. The iframe's height formula fits any width."""


def oembed(chart: Chart, base: str, thumbnail: tuple[int, int],
           width: int = FALLBACK_WIDTH_PX, css: str | None = None) -> dict[str, Any]:
    """The chart's oEmbed response (https://oembed.com, type ``rich``) for a frame ``width``
    px wide, keys in a fixed order; ``thumbnail`` is the (width, height) of its ``chart.png``.
    ``height`` is the embed page's natural height at that width, the iframe's attribute too."""
    height = one_height(chart, width)
    return {
        "version": "1.0",
        "type": "rich",
        "title": chart.title,
        "provider_name": PUBLISHER,
        "provider_url": base,
        "author_name": PUBLISHER,
        "author_url": f"{base}{chart.page}",
        "html": embed_snippet(chart, base, height=height, css=css),
        "width": width,
        "height": height,
        "thumbnail_url": f"{base}{EMBED_DIR}/{chart.id}/chart.png",
        "thumbnail_width": thumbnail[0],
        "thumbnail_height": thumbnail[1],
        "license": LICENCE,
        "license_url": LICENCE_URL,
    }


# --------------------------------------------------------------------------- embed page theme

EMBED_LINK_COLORS = {"light": "#1a5fb4", "dark": "#8cb4ff"}


def _theme_rules(theme: str, selectors: list[str]) -> str:
    """The page's colours in ``theme`` under ``selectors``: text, links, an export's inline
    SVG, and which of the static chart's pictures shows (``fallback.pictures``)."""
    values = CHART_THEMES[theme]
    other = "dark" if theme == "light" else "light"
    svg_vars = ";".join(f"--tn-svg-{k}:{values[v]}" for k, v in SVG_VARS.items())

    def each(suffix: str) -> str:
        return ",".join(f"{sel}{suffix}" for sel in selectors)

    return (f"{each('')}{{background:{values['paper_bgcolor']};"
            f"color:{values['font.color']}}}"
            f"{each(' a')},{each(' .tn-chart__button')}{{color:{EMBED_LINK_COLORS[theme]}}}"
            f"{each(' .tn-svg')}{{{svg_vars}}}"
            f"{each(f' .tn-chart__pic--{other}')}{{display:none}}"
            f"{each(f' .tn-chart__pic--{theme}')}{{display:block}}")


def _pinned(theme: str) -> str:
    """The wrapper ``<div id="theme=<theme>">`` while the URL's fragment names it (``:target``,
    no script). The light wrapper sits inside the dark one, so each overrides what is above."""
    return f'[id="theme={theme}"]:target'


def embed_theme_css() -> str:
    """Page colours of the embed page, from the chart themes (one source). Without a script the
    page follows ``prefers-color-scheme``, and a ``#theme=dark`` / ``#theme=light`` fragment
    (which the snippet adds to ``?theme=``) pins a theme through ``:target``; with a script the
    theme script pins ``?theme=`` with the palette attribute as well, follows the host's scheme
    when it posts one, and clears the background for ``?bg=transparent``."""
    return (_theme_rules("light", ["html body"])
            + "@media (prefers-color-scheme: dark){"
            + _theme_rules("dark", ["html:not([data-md-color-scheme=default]) body"]) + "}"
            + _theme_rules("dark", ["html[data-md-color-scheme=slate] body", _pinned("dark")])
            + _theme_rules("light", [_pinned("light")]) + TRANSPARENT_CSS)


TRANSPARENT_CSS = ("html[data-tn-bg=transparent] body,html[data-tn-bg=transparent] "
                   ".tn-embed__theme{background:transparent!important}"
                   "html[data-tn-bg=transparent] .tn-svg{--tn-svg-bg:transparent!important}")
"""``?bg=transparent`` (the theme script sets the attribute): the host's background shows."""
