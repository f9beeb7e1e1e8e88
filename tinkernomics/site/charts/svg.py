"""Static SVG of a chart (pipeline step 6, output): the chart's SVG files (download, and the
first paint and no-JS fallback of its page and embed page, ``fallback``), an export's inline
SVGs, and the file's SVGs ``charts.images`` rasterises (the link-preview cards have a layout
of their own, ``charts.cardsvg``).

Drawn in Python from the same ``charts.Chart`` view model as the Plotly spec, so the picture a
reader sees before (or without) the interactive chart shows the same curves, C_mid diamonds,
asymptotes and axes. Two layouts: ``wide`` (desktop) and ``narrow`` (phones; CSS shows one).
How each element is drawn is one table, ``PAINT``: inline on a page it is a ``<style>`` whose
colours are CSS custom properties generated from ``charts.THEMES``, so the SVG follows Material's
palette attribute (``data-md-color-scheme="slate"``) with no script; a standalone file or an
image (light) carries it as presentation attributes with literal colours, which every renderer
reads (ThorVG, image viewers). Output is deterministic (fixed ids, rounded coordinates); each
curve is one path of the points a picture needs (``svgpath``). On a page, the figure's caption
names its SVGs (``label_id``).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from functools import cached_property, lru_cache
from html import escape

from tinkernomics.derived import derive
from tinkernomics.site.charts import svgpath
from tinkernomics.site.charts.spec import (
    X2_TITLE,
    X_TITLE,
    Y_TITLE,
    Chart,
    Series,
    attribution_lines,
    decade_ticks,
    short_number,
)
from tinkernomics.site.charts.themes import (  # noqa: F401 (re-exported)
    FONT,
    LEGEND,
    MARKED,
    PAINT,
    SVG_VARS,
    THEMES,
    _css,
    _resolve,
    page_css,
    paint,
)


@dataclass(frozen=True)
class Layout:
    """Fixed sizes of one SVG layout, in SVG user units (px at scale 1)."""

    name: str
    width: float
    plot_height: float
    plot_left: float = 64
    plot_right: float = 16
    plot_top: float = 64
    legend_row: float = 24


LAYOUTS = {"wide": Layout("wide", 720, 290), "narrow": Layout("narrow", 400, 300)}
CHAR_WIDTH_PX = 7.4
"""Rough width of a 13 px system-ui character, for laying out the legend."""
SVG_CACHE_SIZE = 4096
"""A chart's SVG is drawn for its page, its embed page, its files and its images: drawn once
per (chart, variant), kept for the few thousand a 1,000-entry build needs."""
@dataclass(frozen=True)
class _Frame:
    """Maps data to pixels for one chart in one layout."""

    chart: Chart
    layout: Layout
    legend: tuple[tuple[Series, float, int], ...]
    """(series, x, row) of each legend entry."""
    heads: tuple[tuple[str, float, int], ...] = ()
    """(setting, x, row): on a chart of several settings each starts a row, named (spec)."""
    theme: str | None = None
    """None on a page (a stylesheet draws the elements), else the file's or image's theme."""

    def paint(self, name: str) -> str:
        return paint(name, self.theme)

    @property
    def left(self) -> float:
        return self.layout.plot_left

    @property
    def right(self) -> float:
        return self.layout.width - self.layout.plot_right

    @property
    def top(self) -> float:
        return self.layout.plot_top

    @property
    def bottom(self) -> float:
        return self.top + self.layout.plot_height

    @property
    def legend_rows(self) -> int:
        return max(row for _, _, row in self.legend) + 1

    @property
    def height(self) -> float:
        return self.bottom + 58 + self.legend_rows * self.layout.legend_row

    @cached_property
    def _scale(self) -> tuple[float, float, float]:
        """(log10 of the x axis' low end, px per decade, px per unit of reward)."""
        lo, hi = math.log10(self.chart.x_low), math.log10(self.chart.x_high)
        return lo, (self.right - self.left) / (hi - lo), self.layout.plot_height / self.chart.y_high

    def x(self, gb200_hours: float) -> float:
        lo, per_decade, _ = self._scale
        return round(self.left + (math.log10(gb200_hours) - lo) * per_decade, 1)

    def y(self, reward: float) -> float:
        return round(self.bottom - reward * self._scale[2], 1)

    def positions(self, points: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
        """``(x(c), y(r))`` of each (compute, reward) point, the scale read once for all of a
        curve's points (issue 47: a curve's 61 points in two layouts for 500 charts)."""
        lo, per_decade, per_unit = self._scale
        left, bottom, log10 = self.left, self.bottom, math.log10
        return [(round(left + (log10(c) - lo) * per_decade, 1), round(bottom - r * per_unit, 1))
                for c, r in points]


def _frame(chart: Chart, layout: Layout, theme: str | None = None) -> _Frame:
    """Lay out the legend (entries wrap at the plot width; on a chart of several settings each
    setting starts a row with its name), then the frame."""
    placed, heads, x, row = [], [], layout.plot_left, 0
    for index, (name, group) in enumerate(chart.groups if len(chart.groups) > 1 else ()):
        row += 1 if index else 0
        heads.append((f"{name}:", layout.plot_left, row))
        x = layout.plot_left + len(name) * CHAR_WIDTH_PX + 18
        placed_row = _place(group, layout, x, row)
        placed += placed_row
        row = max(r for _, _, r in placed_row)
    if not heads:
        placed = _place(chart.series, layout, x, row)
    return _Frame(chart, layout, tuple(placed), theme=theme, heads=tuple(heads))


def _place(series: tuple[Series, ...], layout: Layout, x: float,
           row: int) -> list[tuple[Series, float, int]]:
    """Legend entries from (x, row) on, wrapping at the plot's width."""
    placed = []
    for s in series:
        width = 30 + len(s.label) * CHAR_WIDTH_PX + 18
        if x + width > layout.width - layout.plot_right and x > layout.plot_left:
            x, row = layout.plot_left, row + 1
        placed.append((s, x, row))
        x += width
    return placed


def _n(value: float) -> str:
    """A coordinate as written: rounded to 0.1 px already, without a trailing ``.0``."""
    return f"{value:g}"


def _text(x: float, y: float, text: str, extra: str = "") -> str:
    """A text at (x, y); its anchor is its group's (``_anchored``), else the start."""
    return f'<text x="{_n(x)}" y="{_n(y)}"{extra}>{escape(text)}</text>'


def _anchored(anchor: str, texts: list[str]) -> str:
    """Texts sharing an anchor, in one group that says it once (issue 47: a file's bytes)."""
    return f'<g text-anchor="{anchor}">{"".join(texts)}</g>'


def _axes(f: _Frame) -> list[str]:
    """Grid, the H100 axis' ticks, the plot's frame and the axis labels. Grid lines
    (and ticks) are one path each, not one element per line: the same strokes, a third of the
    bytes of a file."""
    c = f.chart
    rows = [(f.y(k / 10), f"{k * 10}%") for k in range(0, round(c.y_high * 10) + 1)]
    columns = [(f.x(v), short_number(v)) for v in decade_ticks(c.x_low, c.x_high)]
    ticks = [(f.x(v / c.factor.value), short_number(v))
             for v in decade_ticks(c.x_low_h100, c.x_high_h100)]
    grid = ("".join(f"M{_n(f.left)} {_n(y)}H{_n(f.right)}" for y, _ in rows)
            + "".join(f"M{_n(x)} {_n(f.top)}V{_n(f.bottom)}" for x, _ in columns))
    marks = "".join(f"M{_n(x)} {_n(f.top - 5)}V{_n(f.top)}" for x, _ in ticks)
    middle = (f.left + f.right) / 2
    y_mid = f.top + f.layout.plot_height / 2
    centred = [*(_text(x, f.bottom + 18, label) for x, label in columns),
               *(_text(x, f.top - 9, label) for x, label in ticks),
               _text(middle, f.bottom + 40, X_TITLE),
               _text(middle, f.top - 34, f"{X2_TITLE} (× {c.factor.text[:-1]})"),
               _text(16, y_mid, Y_TITLE, f' transform="rotate(-90 16 {_n(y_mid)})"')]
    return [
        f'<path{f.paint("grid")} d="{grid}"/>',
        f'<path{f.paint("axis")} d="{marks}"/>',
        f'<rect{f.paint("axis")} x="{_n(f.left)}" y="{_n(f.top)}" '
        f'width="{_n(f.right - f.left)}" height="{_n(f.layout.plot_height)}"/>',
        _anchored("end", [_text(f.left - 8, y + 4, label) for y, label in rows]),
        _anchored("middle", centred),
    ]


def _diamond(x: float, y: float, color: str, r: float = 6.5) -> str:
    pts = (f"{_n(x)},{_n(round(y - r, 1))} {_n(round(x + r, 1))},{_n(y)} "
           f"{_n(x)},{_n(round(y + r, 1))} {_n(round(x - r, 1))},{_n(y)}")
    return f'<polygon points="{pts}" fill="{color}" stroke="#fff"/>'


def _series(f: _Frame, s: Series) -> list[str]:
    c = f.chart
    path = svgpath.curve_path(f.positions(s.points))
    a_y = _n(f.y(s.params.A))
    return [
        f"<g><title>{escape(s.label)}</title>",
        f'<line{f.paint("asym")} stroke="{s.color}" x1="{_n(f.x(c.x_low))}" '
        f'x2="{_n(f.x(c.x_high))}" y1="{a_y}" y2="{a_y}"/>',
        f'<path{f.paint("curve")} stroke="{s.color}" d="{path}"/>',
        _diamond(f.x(s.params.C_mid), f.y(s.midpoint_reward), s.color),
        "</g>",
    ]


def _labels(f: _Frame) -> list[str]:
    """C_mid and A labels, as on the interactive single-algorithm chart."""
    if len(f.chart.series) != 1:
        return []
    s = f.chart.series[0]
    p = s.params
    return [
        _anchored("end", [_text(f.right - 4, f.y(p.A) - 6,
                                f"asymptote A = {derive.format_number(p.A * 100)}%")]),
        _text(f.x(p.C_mid) + 10, f.y(s.midpoint_reward) + 16,
              f"C_mid = {derive.format_number(p.C_mid)} GB200-h"),
    ]


def _legend(f: _Frame) -> list[str]:
    """The legend rows under the plot, one group (on a page, class ``tn-svg__legend``: an embed
    too short for it hides the group and crops the view box above it, charts.js)."""
    out = [f"<g{paint(LEGEND, MARKED)}>"]
    for s, x, row in f.legend:
        y = f.bottom + 74 + row * f.layout.legend_row
        out.append(f'<line{f.paint("curve")} stroke="{s.color}" x1="{_n(x)}" '
                   f'x2="{_n(x + 24)}" y1="{_n(y - 4)}" y2="{_n(y - 4)}"/>')
        out.append(_text(x + 30, y, s.label))
    for name, x, row in f.heads:
        out.append(_text(x, f.bottom + 74 + row * f.layout.legend_row, name,
                         ' font-weight="bold"'))
    return [*out, "</g>"]


@lru_cache(maxsize=SVG_CACHE_SIZE)
def svg_height(chart: Chart, layout: str = "wide") -> float:
    return _frame(chart, LAYOUTS[layout]).height


@lru_cache(maxsize=SVG_CACHE_SIZE)
def legend_top(chart: Chart, layout: str = "wide") -> float:
    """Just above the legend's first curve (``_legend``): an embed too short for the legend
    crops the drawing there (``fallback``)."""
    f = _frame(chart, LAYOUTS[layout])
    row = min(row for _, _, row in f.legend)
    return f.bottom + 54 + row * f.layout.legend_row


@lru_cache(maxsize=SVG_CACHE_SIZE)
def _drawing(chart: Chart, layout: str) -> str:
    """The chart's axes, curves, labels and legend in ``layout``, painted with markers: made
    once per chart and layout, for its page, embed page, files and images (``_resolve``)."""
    f = _frame(chart, LAYOUTS[layout], MARKED)
    return "".join([*_axes(f), *(part for s in chart.series for part in _series(f, s)),
                    *_labels(f), *_legend(f)])


def _chart_parts(chart: Chart, layout: str, ident: str, theme: str | None,
                 styled: bool = True, named: bool = True,
                 backdrop: bool = True) -> tuple[float, float, str]:
    """(width, height, content) of the chart in ``layout``: its title and description (unless
    ``named`` is False), rules (on a page, unless ``styled`` is False; a file's elements carry
    attributes instead), background (unless ``backdrop`` is False: a file's is already behind
    it) and drawing, without the element that holds them."""
    layout_of = LAYOUTS[layout]
    width, height = layout_of.width, svg_height(chart, layout)
    t_id, d_id = (f' id="{ident}-t"', f' id="{ident}-d"') if ident else ("", "")
    names = (f"<title{t_id}>{escape(chart.title)}</title>"
             f"<desc{d_id}>{escape(chart.description)}</desc>") if named else ""
    back = f'<rect{paint("bg", theme)} width="{_n(width)}" height="{_n(height)}"/>'
    content = (names + (f"<style>{_css()}</style>" if styled and theme is None else "")
               + (back if backdrop else "") + _resolve(_drawing(chart, layout), theme))
    return width, height, content


def label_id(chart: Chart, name: str) -> str:
    """Stem of the ids (``-t``, ``-d``) naming a chart's SVG: a layout's own, or a caption's."""
    return f"tn-svg-{chart.id}-{name}"


@lru_cache(maxsize=SVG_CACHE_SIZE)
def chart_svg(chart: Chart, *, layout: str = "wide", element_id: str | None = None,
              theme: str | None = None, styled: bool = True, named_by: str = "") -> str:
    """The chart as one ``<svg>`` element (valid inline in HTML and as a standalone file);
    ``theme`` fixes the colours (files and images, written as attributes) instead of following
    the page palette.
    ``styled=False`` leaves out its ``<style>``, and ``named_by`` its title and description,
    for an SVG of a page that names it otherwise: a style element in inline SVG applies to
    the whole document, shown or not, and ``aria-labelledby`` names it by the elements
    ``label_id(chart, named_by)`` + ``-t`` and ``-d`` (another layout's SVG, or the figure's
    caption), shown or not (issue 47: 400 bytes a page)."""
    ident = element_id or f"tn-svg-{chart.id}-{layout}"
    label = label_id(chart, named_by) if named_by else ident
    width, height, content = _chart_parts(chart, layout, ident, theme, styled, not named_by)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tn-svg tn-svg--{layout}" id="{ident}"'
        f'{paint("text", theme)} viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{label}-t {label}-d" preserveAspectRatio="xMidYMid meet">'
        f"{content}</svg>"
    )


def placed_chart(chart: Chart, box: tuple[float, float, float, float],
                 theme: str = "light", layout: str = "wide", backdrop: bool = True) -> str:
    """The wide chart drawn into ``box`` (x, y, width, height) of a larger SVG, scaled to fit
    and centred as a nested ``<svg>`` with ``xMidYMid meet`` would be, but as a ``<g>``: resvg
    draws a nested ``<svg>`` through an extra clipped layer, which made each chart image about
    40% slower to rasterise, for the same pixels (the drawing stays inside its viewBox).
    The group states only the text size: the file's root gives the ink and font, and nothing
    in a file refers to an id or class, so it has none (its title and description neither)."""
    x, y, box_w, box_h = box
    width, height, content = _chart_parts(chart, layout, "", theme, backdrop=backdrop)
    scale = min(box_w / width, box_h / height)
    left, top = x + (box_w - width * scale) / 2, y + (box_h - height * scale) / 2
    transform = f"translate({left:g} {top:g})" + ("" if scale == 1 else f" scale({scale:g})")
    size = dict(PAINT["text"])["font-size"].removesuffix("px")
    return f'<g font-size="{size}" transform="{transform}">{content}</g>'


TITLE_PX = 40
LINE_PX = 16


def credit_lines(chart: Chart, site_url: str = "") -> list[str]:
    """Attribution, then where the chart lives and the date of its data."""
    base = site_url.rstrip("/") + "/" if site_url else ""
    where = [f"{base}{chart.page}" if base else "",
             f"data as of {chart.date}" if chart.date else ""]
    last = " · ".join(w for w in where if w)
    return [*attribution_lines(chart), *([last] if last else [])]


def _wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` broken into lines that fit ``width`` at font ``size`` (a rough average glyph
    width: the narrow image must not run off its edge)."""
    return textwrap.wrap(text, max(12, int(width / (size * 0.56)))) or [""]


@lru_cache(maxsize=SVG_CACHE_SIZE)
def _file_lines(chart: Chart, site_url: str, layout: str) -> tuple[tuple[str, ...],
                                                                   tuple[str, ...]]:
    """The file's title lines and credit lines, wrapped to the layout's width: once per chart
    and layout, for its light and dark file and ``file_box``."""
    room = LAYOUTS[layout].width - 32
    return (tuple(_wrap(chart.title, room, 17)),
            tuple(part for line in credit_lines(chart, site_url) for part in _wrap(line, room, 11)))


@lru_cache(maxsize=SVG_CACHE_SIZE)
def file_box(chart: Chart, site_url: str, layout: str) -> tuple[float, float]:
    """(top, total height) of the chart's file in ``layout``: the drawing (``svg_height`` tall,
    the layout's width) starts ``top`` below the file's top edge, under the title. A page shows
    the file with the title and credit cropped off (``fallback``)."""
    titles, lines = _file_lines(chart, site_url, layout)
    top = TITLE_PX + 22 * (len(titles) - 1)
    return top, top + svg_height(chart, layout) + LINE_PX * len(lines) + 12


@lru_cache(maxsize=SVG_CACHE_SIZE)
def standalone_svg(chart: Chart, site_url: str = "", theme: str = "light",
                   layout: str = "wide") -> str:
    """The downloadable SVG file (light theme and wide layout unless given; the images' dark
    and narrow variants): the chart with its title above and the attribution, page URL and
    data date below, wrapped to the layout's width."""
    width, height = LAYOUTS[layout].width, svg_height(chart, layout)
    ink, paper = THEMES[theme]["font.color"], THEMES[theme]["paper_bgcolor"]
    titles, lines = _file_lines(chart, site_url, layout)
    top, total = file_box(chart, site_url, layout)
    inner = placed_chart(chart, (0, top, width, height), theme, layout, backdrop=False)
    title = "".join(f'<text x="16" y="{27 + 22 * i}">{escape(line)}</text>'
                    for i, line in enumerate(titles))
    credit = "".join(f'<text x="16" y="{_n(top + height + LINE_PX * (i + 1) - 4)}">'
                     f"{escape(line)}</text>" for i, line in enumerate(lines))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(width)} {_n(total)}" '
        f'width="{_n(width)}" height="{_n(total)}" font-family="{FONT}" fill="{ink}">'
        f'<rect width="{_n(width)}" height="{_n(total)}" fill="{paper}"/>'
        f'<g font-size="17" font-weight="600">{title}</g>{inner}'
        f'<g font-size="11">{credit}</g></svg>'
    )
