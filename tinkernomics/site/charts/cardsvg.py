"""Link-preview cards (pipeline step 6, output): the 1200x630 SVGs ``charts.images`` rasterises
as a chart's ``embed/<id>/card.png`` and the site's ``assets/images/site-card.png``.

A social network shows a card about 500 px wide (0.42 of its size), so the card has a layout of
its own, drawn at card scale instead of the page's chart shrunk into it: a 52 px title (48 at
least: a long one is shrunk, then cut with an ellipsis), a subtitle that states the chart's
finding, the plot across the card's width with few 24 px tick labels, thick curves and large
C_mid diamonds, and a 24 px credit line; at preview size the title is about 20 px and the
smallest text 10 px. It is kept out of ``svg.LAYOUTS`` (the page's aspect-ratio CSS variables
are generated from those) and draws from the same ``Chart`` view model and ``charts.spec``
helpers as ``charts.svg``. Texts are measured with the Roboto faces the rasteriser draws
(``raster.text_width``), so a long name (catalog text) is cut, never run off the card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from tinkernomics.derived import derive
from tinkernomics.site.charts import raster
from tinkernomics.site.charts.spec import (
    LICENCE,
    PUBLISHER,
    THEMES,
    X_TITLE,
    Y_TITLE,
    Chart,
    decade_ticks,
    short_number,
)
from tinkernomics.site.charts.svg import FONT, SVG_CACHE_SIZE
from tinkernomics.site.identity import CARD_HEIGHT_PX, CARD_WIDTH_PX

INK = THEMES["light"]["font.color"]
MUTED = "#57606a"
ACCENT = "#3f51b5"
"""Material's indigo, the site's primary colour."""
GRID = THEMES["light"]["xaxis.gridcolor"]
AXIS = THEMES["light"]["xaxis.linecolor"]

TITLE_PX = 52
TITLE_MIN_PX = 48
SUBTITLE_PX = 30
TEXT_PX = 24
"""Ticks, legend, axis titles and credit: 10 px when the card is shown 500 px wide."""
MARGIN = 48
CURVE_WIDTH = 6
ASYMPTOTE_WIDTH = 3
GRID_WIDTH = 2
DIAMOND_R = 13
Y_TICKS_MAX = 4
"""Intervals on the reward axis at most (0, 20, 40, 60%): a preview has room for few labels."""
X_TICKS_MAX = 5
LEGEND_ROW = 38
FACE = {400: "Roboto-Regular", 700: "Roboto-Bold"}


@dataclass(frozen=True)
class CardPlot:
    """Where the plot sits on the card (card pixels) and how data map onto it."""

    chart: Chart
    left: float
    top: float
    right: float
    bottom: float

    def x(self, gb200_hours: float) -> float:
        lo, hi = math.log10(self.chart.x_low), math.log10(self.chart.x_high)
        share = (math.log10(gb200_hours) - lo) / (hi - lo)
        return round(self.left + share * (self.right - self.left), 1)

    def y(self, reward: float) -> float:
        return round(self.bottom - reward / self.chart.y_high * (self.bottom - self.top), 1)


PLOT_LEFT = 142
"""Room for the rotated y-axis title and the "100%" labels left of the plot."""
PLOT_BOTTOM = CARD_HEIGHT_PX - 118
"""Below it: tick labels, the x-axis title, the credit line."""


def fitted(text: str, size: float, width: float, weight: int = 400) -> str:
    """``text`` as drawn at ``size`` px, cut with an ellipsis to fit ``width`` px."""
    face = FACE[weight]
    if raster.text_width(face, size, text) <= width:
        return text
    while text and raster.text_width(face, size, text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _title_size(title: str, width: float) -> int:
    """The largest size from ``TITLE_PX`` down to ``TITLE_MIN_PX`` at which the title fits."""
    for size in range(TITLE_PX, TITLE_MIN_PX - 1, -1):
        if raster.text_width(FACE[700], size, title) <= width:
            return size
    return TITLE_MIN_PX


def _text(x: float, y: float, text: str, size: float, *, fill: str = INK, weight: int = 400,
          anchor: str = "start", extra: str = "") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-family="{FONT}" font-size="{size:g}" '
            f'font-weight="{weight}" fill="{fill}" text-anchor="{anchor}"{extra}>'
            f"{escape(text)}</text>")


def y_step(y_high: float) -> float:
    """The reward axis's label step: the smallest of 10, 20, 25, 50% giving at most
    ``Y_TICKS_MAX`` intervals."""
    return next(s for s in (0.1, 0.2, 0.25, 0.5) if y_high / s <= Y_TICKS_MAX + 1e-9)


def x_ticks(chart: Chart) -> list[float]:
    """Decade ticks, every other one (from the last) when there are more than ``X_TICKS_MAX``."""
    ticks = decade_ticks(chart.x_low, chart.x_high)
    stride = math.ceil(len(ticks) / X_TICKS_MAX)
    return ticks[::-1][::stride][::-1]


def _axes(p: CardPlot) -> list[str]:
    step, c = y_step(p.chart.y_high), p.chart
    grid = f'stroke="{GRID}" stroke-width="{GRID_WIDTH}"'
    out = []
    for k in range(int(c.y_high / step + 1e-9) + 1):
        y = p.y(k * step)
        out.append(f'<line {grid} x1="{p.left}" x2="{p.right}" y1="{y}" y2="{y}"/>')
        out.append(_text(p.left - 12, y + 8, f"{derive.format_number(k * step * 100)}%",
                         TEXT_PX, anchor="end"))
    for value in x_ticks(c):
        x = p.x(value)
        out.append(f'<line {grid} x1="{x}" x2="{x}" y1="{p.top}" y2="{p.bottom}"/>')
        out.append(_text(x, p.bottom + 34, short_number(value), TEXT_PX, anchor="middle"))
    out.append(f'<rect x="{p.left}" y="{p.top}" width="{p.right - p.left}" '
               f'height="{p.bottom - p.top}" fill="none" stroke="{AXIS}" '
               f'stroke-width="{GRID_WIDTH}"/>')
    out.append(_text((p.left + p.right) / 2, p.bottom + 70, X_TITLE, TEXT_PX, fill=MUTED,
                     anchor="middle"))
    middle = (p.top + p.bottom) / 2
    out.append(_text(MARGIN + 18, middle, Y_TITLE, TEXT_PX, fill=MUTED, anchor="middle",
                     extra=f' transform="rotate(-90 {MARGIN + 18} {middle})"'))
    return out


def _diamond(x: float, y: float, color: str) -> str:
    r = DIAMOND_R
    pts = f"{x},{round(y - r, 1)} {round(x + r, 1)},{y} {x},{round(y + r, 1)} {round(x - r, 1)},{y}"
    return f'<polygon points="{pts}" fill="{color}" stroke="#ffffff" stroke-width="3"/>'


def _curves(p: CardPlot) -> list[str]:
    c, out = p.chart, []
    for s in c.series:
        a_y = p.y(s.params.A)
        pts = " ".join(f"{p.x(x)},{p.y(y)}" for x, y in s.points)
        out += [
            f'<line stroke="{s.color}" stroke-width="{ASYMPTOTE_WIDTH}" '
            f'stroke-dasharray="12 8" x1="{p.left}" x2="{p.right}" y1="{a_y}" y2="{a_y}"/>',
            f'<polyline fill="none" stroke="{s.color}" stroke-width="{CURVE_WIDTH}" '
            f'stroke-linejoin="round" stroke-linecap="round" points="{pts}"/>',
            _diamond(p.x(s.params.C_mid), p.y(s.midpoint_reward), s.color),
        ]
    if len(c.series) == 1:
        a = c.series[0].params.A
        out.append(_text(p.right - 10, p.y(a) - 14,
                         f"asymptote {derive.format_number(a * 100)}%", TEXT_PX, anchor="end"))
    return out


def _legend(chart: Chart, top: float) -> tuple[list[str], float]:
    """The series' keys in rows under the subtitle (none for one series: the title names it),
    and the baseline of the last row (``top`` minus a row if none)."""
    if len(chart.series) < 2:
        return [], top - LEGEND_ROW
    out, x, row, width = [], float(MARGIN), 0, CARD_WIDTH_PX - 2 * MARGIN
    for s in chart.series:
        label = fitted(s.label, TEXT_PX, width / 2 - 82)  # two keys a row at least
        room = 50 + raster.text_width(FACE[400], TEXT_PX, label) + 32
        if x + room > CARD_WIDTH_PX - MARGIN and x > MARGIN:
            x, row = float(MARGIN), row + 1
        y = top + row * LEGEND_ROW
        out.append(f'<line stroke="{s.color}" stroke-width="{CURVE_WIDTH}" '
                   f'stroke-linecap="round" x1="{x + 3}" x2="{x + 37}" y1="{y - 8}" y2="{y - 8}"/>')
        out.append(_text(x + 50, y, label, TEXT_PX))
        x += room
    return out, top + row * LEGEND_ROW


def subtitle(chart: Chart) -> str:
    """The chart's finding in one line."""
    if len(chart.series) == 1:
        s = chart.series[0]
        flag = " (unverified fit)" if s.unverified else ""
        return (f"Pass rate rises towards {derive.format_number(s.params.A * 100)}%{flag}; "
                f"half the gain by {derive.format_number(s.params.C_mid)} GB200-hours")
    if len(chart.groups) > 1:  # never ranked across settings (spec's settings)
        return (f"{len(chart.series)} fitted algorithms from {len(chart.groups)} settings, "
                "compared only within a setting")
    top = max(chart.series, key=lambda s: (s.params.A, s.title))
    return (f"{len(chart.series)} fitted algorithms; highest asymptote "
            f"{derive.format_number(top.params.A * 100)}% ({top.title})")


def _credit(left: str, right: str) -> list[str]:
    """The credit line: ``left`` at the left margin, ``right`` at the right one if both fit."""
    y, width = CARD_HEIGHT_PX - 16, CARD_WIDTH_PX - 2 * MARGIN
    right_w = raster.text_width(FACE[400], TEXT_PX, right) + 40 if right else 0
    if right_w and raster.text_width(FACE[400], TEXT_PX, left) + right_w > width:
        right, right_w = "", 0
    out = [_text(MARGIN, y, fitted(left, TEXT_PX, width - right_w), TEXT_PX, fill=MUTED)]
    if right:
        out.append(_text(CARD_WIDTH_PX - MARGIN, y, right, TEXT_PX, fill=MUTED, anchor="end"))
    return out


def _card(title: str, sub: str, chart: Chart, credit: tuple[str, str]) -> str:
    """A 1200x630 card: title, subtitle, legend, the plot across the card, a credit line."""
    w, h, width = CARD_WIDTH_PX, CARD_HEIGHT_PX, CARD_WIDTH_PX - 2 * MARGIN
    size = _title_size(title, width)
    legend, last = _legend(chart, 174)
    plot = CardPlot(chart, PLOT_LEFT, last + 40, w - MARGIN, PLOT_BOTTOM)
    body = [*_axes(plot), *_curves(plot)]
    group = (f'<g class="tn-svg tn-svg--card" id="tn-card-{escape(chart.id)}" fill="{INK}" '
             f'font-family="{FONT}" font-size="{TEXT_PX}">' + "".join(body) + "</g>")
    parts = [
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>',
        f'<rect x="0" y="0" width="{w}" height="10" fill="{ACCENT}"/>',
        _text(MARGIN, 76, fitted(title, size, width, 700), size, weight=700),
        _text(MARGIN, 124, fitted(sub, SUBTITLE_PX, width), SUBTITLE_PX, fill=MUTED),
        *legend, group, *_credit(*credit),
    ]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" '
            f'height="{h}"><title>{escape(title)}</title>' + "".join(parts) + "</svg>")


def _host(site_url: str) -> str:
    return site_url.split("://", 1)[-1].rstrip("/") if site_url else ""


@lru_cache(maxsize=SVG_CACHE_SIZE)
def card_svg(chart: Chart, site_url: str = "") -> str:
    """The link-preview card of one chart: its title, its finding, the chart, the credit."""
    left = " · ".join(p for p in (PUBLISHER, f"data {LICENCE}", _host(site_url)) if p)
    return _card(chart.title, subtitle(chart), chart,
                 (left, f"data as of {chart.date}" if chart.date else ""))


def site_card_svg(chart: Chart, tagline: str, site_url: str = "") -> str:
    """The link-preview card of pages without a chart: the site's name over a chart."""
    left = " · ".join(p for p in (_host(site_url), f"data {LICENCE}") if p)
    return _card(PUBLISHER, tagline, chart, (left, ""))
