"""What a blogger pastes and what a link preview reads (pipeline step 6, embeds).

- ``embed_snippet``: the iframe code. It holds without any script on the host page: a wrapper
  is a CSS size container and the iframe's height is a formula of the wrapper's width (``cqw``)
  with this chart's own numbers, estimated at build from its layouts and text
  (``EmbedHeight``); the embed page lays its chart out to fill whatever height it gets, so an
  estimate a few pixels off shrinks the chart a little instead of clipping it. ``resize.js``
  (optional) then sets the exact height the embed page reports.
- ``oembed``: the static ``embed/<id>/oembed.json`` (type ``rich``), whose thumbnail is the
  chart's PNG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tinkernomics.site.charts.spec import LICENCE, LICENCE_URL, PUBLISHER, Chart
from tinkernomics.site.charts.svg import LAYOUTS, svg_height

EMBED_DIR = "embed"
EMBED_MAX_WIDTH_PX = 960
NARROW_MAX_PX = 600
"""The embed page takes the narrow layout at or below this width (charts.css, same number)."""
FALLBACK_WIDTH_PX = 720
"""Width the plain ``height`` (for browsers without container units) is computed for."""
THEMES = ("auto", "light", "dark")
COLOR_SCHEME = {"auto": "light dark", "light": "light", "dark": "dark"}
"""The iframe's ``color-scheme``: the embed page's ``prefers-color-scheme`` follows it, so the
theme holds without a script in the frame."""


@dataclass(frozen=True)
class EmbedMetrics:
    """The embed page's box model (charts.css ``.tn-embed``): keep both in step."""

    pad_x: float = 28  # 14 px each side
    pad_y: float = 22  # 12 px top, 10 px bottom
    caption_line: float = 22.5  # 15 px at line-height 1.5
    caption_char: float = 7.3  # average character width, 15 px sans-serif
    caption_gap: float = 9
    tools_line: float = 20
    tools_char: float = 6.2
    tools_gap: float = 6.4
    credit: float = 25
    slack: float = 6


METRICS = EmbedMetrics()
TOOLS_TEXT_CHARS = 64
"""Length of the tools row ("Share: Link · PNG · SVG · CSV · JSON   Interactive chart ...")."""


def _lines(chars: int, width: float, char_px: float) -> int:
    return max(1, math.ceil(chars * char_px / max(width, 1)))


def embed_height(chart: Chart, width: float) -> float:
    """The embed page's natural height at an iframe ``width`` (px), estimated."""
    mm = METRICS
    inner = min(width, EMBED_MAX_WIDTH_PX) - mm.pad_x
    layout = "narrow" if width <= NARROW_MAX_PX else "wide"
    ratio = svg_height(chart, layout) / LAYOUTS[layout].width
    title = _lines(len(chart.title), inner, mm.caption_char * 1.05)
    text = len(chart.description) + (len(_flag(chart)) + 40 if chart.any_unverified else 0)
    caption = (title + _lines(text, inner, mm.caption_char)) * mm.caption_line + mm.caption_gap
    tools = _lines(TOOLS_TEXT_CHARS, inner, mm.tools_char) * mm.tools_line + mm.tools_gap
    return mm.pad_y + caption + inner * ratio + tools + mm.credit + mm.slack


def _flag(chart: Chart) -> str:
    return ("Parameters marked unverified are as given by the original site; no source "
            "confirms them.") if chart.any_unverified else ""


def _line_through(chart: Chart, w1: float, w2: float) -> tuple[float, float]:
    """(px at width 0, px per px of width) of the line through the estimates at w1 and w2."""
    h1, h2 = embed_height(chart, w1), embed_height(chart, w2)
    slope = (h2 - h1) / (w2 - w1)
    return h1 - slope * w1, slope


def height_css(chart: Chart) -> str:
    """``height`` declarations for the iframe: a plain px value, then a formula of the wrapper's
    width (``100cqw``) that takes the narrow layout's line at or below ``NARROW_MAX_PX`` and the
    wide layout's above it (the huge ``clamp`` term rules the wide line out below the switch)."""
    na, nb = _line_through(chart, 320, NARROW_MAX_PX)
    wa, wb = _line_through(chart, NARROW_MAX_PX + 1, EMBED_MAX_WIDTH_PX)
    narrow = f"{na:.0f}px + {nb * 100:.2f}cqw"
    wide = f"{wa:.0f}px + {wb * 100:.2f}cqw"
    step = f"clamp(0px, ({NARROW_MAX_PX + 0.5}px - 100cqw) * 1000, 100000px)"
    return (f"height:{embed_height(chart, FALLBACK_WIDTH_PX):.0f}px;"
            f"height:min({narrow}, {wide} + {step})")


def embed_src(chart: Chart, base: str, theme: str = "auto") -> str:
    return f"{base}{EMBED_DIR}/{chart.id}/?theme={theme}"


def embed_iframe(chart: Chart, base: str, theme: str = "auto") -> str:
    """The iframe in its size-container wrapper (no script needed)."""
    title = f"{chart.title} (tinker-nomics)"
    return (
        f'<div style="container-type:inline-size;max-width:{EMBED_MAX_WIDTH_PX}px">'
        f'<iframe src="{embed_src(chart, base, theme)}" title="{title}" loading="lazy" '
        f'scrolling="no" style="display:block;width:100%;{height_css(chart)};border:0;'
        f'color-scheme:{COLOR_SCHEME[theme]}"></iframe></div>'
    )


def embed_snippet(chart: Chart, base: str, theme: str = "auto") -> str:
    """The code a blogger pastes: the iframe, then the optional script for exact heights."""
    return (f"{embed_iframe(chart, base, theme)}\n"
            f'<script src="{base}{EMBED_DIR}/resize.js" async></script>')


def oembed(chart: Chart, base: str, thumbnail: tuple[int, int]) -> dict[str, Any]:
    """The chart's oEmbed response (https://oembed.com, type ``rich``), keys in a fixed order;
    ``thumbnail`` is the (width, height) of its ``chart.png``."""
    width = EMBED_MAX_WIDTH_PX
    return {
        "version": "1.0",
        "type": "rich",
        "title": chart.title,
        "provider_name": PUBLISHER,
        "provider_url": base,
        "author_name": PUBLISHER,
        "author_url": f"{base}{chart.page}",
        "html": embed_snippet(chart, base),
        "width": width,
        "height": round(embed_height(chart, width)),
        "thumbnail_url": f"{base}{EMBED_DIR}/{chart.id}/chart.png",
        "thumbnail_width": thumbnail[0],
        "thumbnail_height": thumbnail[1],
        "license": LICENCE,
        "license_url": LICENCE_URL,
    }
