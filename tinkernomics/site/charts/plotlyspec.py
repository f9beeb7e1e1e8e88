"""The Plotly figure of a chart (pipeline step 6, view model -> the spec ``charts.js`` draws).

Data, layout and config for plotly.js, the light/dark theme overrides the browser applies on
top, overrides for phone-sized frames, and the layout of a PNG/SVG the reader downloads from
the interactive chart. Numbers and labels come from ``spec.Chart``; nothing is computed here.

``plotly_figure`` is the whole figure (an export inlines it). The site writes it in three parts
(issue 47): ``shared_figure``, the same for every chart (``embed/spec-base.json``); the chart's
``data.json``, whose curve points are the curve traces' arrays; and ``file_figure``, the rest
(``embed/<id>/spec.json``), which names the other two. charts.js joins them (``joined``).
"""

from __future__ import annotations

import html
import math
from functools import lru_cache
from typing import Any

from tinkernomics.derived import derive
from tinkernomics.site.charts.data import point
from tinkernomics.site.charts.spec import (
    THEMES,
    X2_TITLE,
    X_TITLE,
    Y_TITLE,
    Chart,
    Series,
    attribution_lines,
    decade_ticks,
    num,
    short_number,
)

NARROW_PX = 600
"""Below this frame width the chart takes ``NARROW`` (as the static SVG takes its narrow layout)."""
NARROW: dict[str, Any] = {
    "font.size": 11,
    "margin.l": 44,
    "margin.t": 56,
    "xaxis.title.text": "GB200-hours (log)",
    "xaxis2.title.text": "H100-equivalent hours",
    "yaxis.title.text": "Pass rate",
    "legend.tracegroupgap": 2,
}
"""Relayout keys for a phone-sized frame: smaller type, shorter titles and legend rows closer
together (each curve is a legend group of its own, 10 px apart by default; a phone's legend has
one row per curve, whose labels say what each curve is) keep the plot area."""


def plotly_text(text: str) -> str:
    """Catalog text as Plotly shows it, literally: Plotly reads a few HTML tags (``<b>``,
    ``<a href>``, ``<br>``) and entities in trace names and hover text, so ``&``, ``<`` and
    ``>`` become entities, which it turns back into the characters."""
    return html.escape(text, quote=False)


def _hover_compute() -> str:
    return "%{x:,.0f} GB200-h<br>≈ %{customdata:,.0f} H100-eq h"


def _status_line(s: Series) -> str:
    if s.unverified:
        return "<br><i>Parameters unverified (see Data quality)</i>"
    return ""


CURVE_ARRAYS = ("x", "y", "customdata")
"""A curve trace's arrays: compute (GB200-hours), reward and H100-hours, one per point."""


def _curve_trace(s: Series, arrays: tuple[str, ...] = CURVE_ARRAYS) -> dict[str, Any]:
    """The curve's line; only the ``arrays`` asked for are written (a file that leaves the
    others to another file does not compute them)."""
    columns = {"x": lambda: [point(c) for c, _ in s.points],
               "y": lambda: [point(r) for _, r in s.points],
               "customdata": lambda: [point(h) for h in s.h100_hours]}
    return {
        "type": "scatter", "mode": "lines", "name": plotly_text(s.label),
        "legendgroup": s.algorithm_id,
        **{key: columns[key]() for key in CURVE_ARRAYS if key in arrays},
        "line": {"color": s.color, "width": 2.5},
        "hovertemplate": (f"<b>{plotly_text(s.title)}</b><br>{_hover_compute()}"
                          f"<br>reward %{{y:.1%}}{_status_line(s)}<extra></extra>"),
    }


def _cmid_trace(s: Series, factor: derive.Factor) -> dict[str, Any]:
    p = s.params
    return {
        "type": "scatter", "mode": "markers", "name": plotly_text(f"{s.title} C_mid"),
        "legendgroup": s.algorithm_id, "showlegend": False,
        "x": [p.C_mid], "y": [num(s.midpoint_reward)],
        "customdata": [num(derive.h100_equivalent_hours(p.C_mid, factor))],
        "marker": {"symbol": "diamond", "size": 11, "color": s.color,
                   "line": {"width": 1, "color": "#ffffff"}},
        "hovertemplate": (f"<b>{plotly_text(s.title)}: C_mid</b> (half the gain)"
                          f"<br>{_hover_compute()}<br>reward %{{y:.1%}}{_status_line(s)}"
                          "<extra></extra>"),
    }


def _asymptote_trace(s: Series, low: float, high: float) -> dict[str, Any]:
    a = num(s.params.A)
    return {
        "type": "scatter", "mode": "lines", "name": plotly_text(f"{s.title} asymptote A"),
        "legendgroup": s.algorithm_id, "showlegend": False,
        "x": [low, high], "y": [a, a],
        "line": {"color": s.color, "width": 1.2, "dash": "dash"},
        "hovertemplate": (f"<b>{plotly_text(s.title)}: asymptote A</b><br>reward ceiling %{{y:.1%}}"
                          f"{_status_line(s)}<extra></extra>"),
    }


def _h100_axis_trace(chart: Chart) -> dict[str, Any]:
    """An invisible trace that makes Plotly draw the H100-equivalent axis on top."""
    return {
        "type": "scatter", "mode": "markers", "name": "H100-equivalent axis", "xaxis": "x2",
        "x": [num(chart.x_low_h100), num(chart.x_high_h100)], "y": [None, None],
        "showlegend": False, "hoverinfo": "skip", "marker": {"opacity": 0},
    }


def _annotations(chart: Chart) -> list[dict[str, Any]]:
    """Text labels for C_mid and A; only on single-algorithm charts (they collide otherwise)."""
    if len(chart.series) != 1:
        return []
    s = chart.series[0]
    p = s.params
    return [
        {"x": math.log10(chart.x_high), "y": p.A, "xref": "x", "yref": "y", "xanchor": "right",
         "yanchor": "bottom", "showarrow": False,
         "text": f"asymptote A = {derive.format_number(p.A * 100)}%"},
        {"x": round(math.log10(p.C_mid), 4), "y": num(s.midpoint_reward), "xref": "x", "yref": "y",
         "xanchor": "left", "yanchor": "top", "showarrow": False, "xshift": 8,
         "text": f"C_mid = {derive.format_number(p.C_mid)} GB200-h"},
    ]


def _log_range(low: float, high: float) -> list[float]:
    return [round(math.log10(low), 9), round(math.log10(high), 9)]


@lru_cache(maxsize=256)
def _tick_text(value: float) -> str:
    """A decade tick's label (``short_number``), written once per build for each power of ten
    (issue 47: the same few labels for two axes of 500 charts)."""
    return short_number(value)


def _log_axis(low: float, high: float, title: str) -> dict[str, Any]:
    ticks = decade_ticks(low, high)
    return {
        "type": "log", "fixedrange": True, "showline": True, "ticks": "outside",
        "automargin": True, "range": _log_range(low, high), "tickvals": ticks,
        "ticktext": [_tick_text(t) for t in ticks], "title": {"text": title, "standoff": 6},
    }


def series_traces(s: Series, chart: Chart,
                  arrays: tuple[str, ...] = CURVE_ARRAYS) -> list[dict[str, Any]]:
    """The three traces of one curve: the line (with its ``arrays``), its asymptote A and its
    C_mid diamond."""
    return [_curve_trace(s, arrays), _asymptote_trace(s, chart.x_low, chart.x_high),
            _cmid_trace(s, chart.factor)]


GRID_KEYS = ("x", "customdata")
"""A curve trace's compute (GB200-hours) and H100-hours: on a chart, one grid every curve shares."""


def series_file_traces(s: Series, chart: Chart) -> list[dict[str, Any]]:
    """``series_traces`` for a comparison's ``series/<id>.json``, its curve without
    ``GRID_KEYS``: charts.js takes the comparison's shared grid from its first curve instead
    of 500 files repeating it (issue 47)."""
    return series_traces(s, chart, tuple(k for k in CURVE_ARRAYS if k not in GRID_KEYS))


def _setting_order(chart: Chart, data: list[dict[str, Any]]) -> None:
    """A chart of several settings: the legend keeps the settings' order (``spec.by_setting``),
    each entry naming its curve's label. No group titles: in a phone-sized frame their rows
    took the plot's height; the static chart (first paint, images) heads each setting."""
    if len(chart.groups) < 2:
        return
    rank = {s.algorithm_id: 10 * (i + 1) for i, s in enumerate(chart.series)}
    for trace in data:
        if trace.get("legendgroup") in rank:
            trace["legendrank"] = rank[trace["legendgroup"]]


BASE_LAYOUT: dict[str, Any] = {
    "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13},
    "margin": {"l": 56, "r": 16, "t": 40, "b": 40},
    "hovermode": "closest",
    "dragmode": False,
    "showlegend": True,
    "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yanchor": "bottom",
               "yref": "container", "title": {"text": ""}},
}
"""The layout keys every chart has alike (``shared_figure``)."""
CONFIG = {"displaylogo": False, "responsive": True, "displayModeBar": False,
          "scrollZoom": False}


def shared_figure() -> dict[str, Any]:
    """What every chart's figure holds alike (``embed/spec-base.json``, one file for the site):
    ``BASE_LAYOUT``, the config, the themes and the narrow overrides."""
    return {"layout": BASE_LAYOUT, "config": CONFIG, "themes": THEMES,
            "narrow": {"width_px": NARROW_PX, "layout": NARROW}}


def _traces(chart: Chart, arrays: tuple[str, ...] = CURVE_ARRAYS
            ) -> tuple[list[dict[str, Any]], list[int]]:
    """The figure's traces (curves with their ``arrays``), and where each series' curve trace
    is (in series order)."""
    data: list[dict[str, Any]] = []
    curves = []
    for s in chart.series:
        curves.append(len(data))
        data += series_traces(s, chart, arrays)
    _setting_order(chart, data)
    data.append(_h100_axis_trace(chart))
    return data, curves


def _own_layout(chart: Chart) -> dict[str, Any]:
    """The layout keys that differ from chart to chart."""
    return {
        "xaxis": _log_axis(chart.x_low, chart.x_high, X_TITLE),
        "xaxis2": {**_log_axis(chart.x_low_h100, chart.x_high_h100,
                               f"{X2_TITLE} (× {chart.factor.text[:-1]})"),
                   "overlaying": "x", "side": "top", "showgrid": False},
        "yaxis": {"fixedrange": True, "showline": True, "ticks": "outside", "automargin": True,
                  "title": {"text": Y_TITLE}, "tickformat": ".0%",
                  "range": [0, chart.y_high], "zeroline": False},
        "annotations": _annotations(chart),
    }


def plotly_figure(chart: Chart) -> dict[str, Any]:
    """The Plotly figure (data, layout, config) plus theme overrides and image-export extras,
    whole: what an export inlines (``file_figure`` is the site's file of it)."""
    shared = shared_figure()
    return {
        "data": _traces(chart)[0],
        "layout": {**BASE_LAYOUT, **_own_layout(chart)},
        "config": shared["config"],
        "themes": shared["themes"],
        "narrow": shared["narrow"],
        "image": image_extras(chart),
    }


POINTS = {"x": "gb200_hours", "y": "reward", "customdata": "h100_equivalent_hours"}
"""A curve trace's arrays (``CURVE_ARRAYS``) and the ``data.json`` point key each is read
from."""


def file_figure(chart: Chart, base: str, points: str) -> dict[str, Any]:
    """``spec.json``: ``plotly_figure`` without what another file holds (issue 47). ``base``
    (a URL relative to it) is ``shared_figure``'s file, whose ``layout`` keys come first and
    whose other keys the figure lacks; ``points.file`` is the chart's ``data.json``, whose
    ``series[i].points`` give the ``points.traces[i]``-th trace its ``x``, ``y`` and
    ``customdata`` (``POINTS``: the same numbers; before, spec.json held them a third time)."""
    data, curves = _traces(chart, arrays=())
    return {"base": base, "points": {"file": points, "traces": curves, **POINTS},
            "data": data, "layout": _own_layout(chart), "image": image_extras(chart)}


def image_extras(chart: Chart) -> dict[str, Any]:
    """A downloaded PNG/SVG: the on-page layout with the title and, under it, the credit,
    licence, conversion basis and unverified warning (the legend keeps the bottom). Its ``layout``
    holds only what differs from the page's, as relayout keys (as ``narrow``): charts.js
    applies them to the spec's layout, not a second copy of it (issue 47: 1.3 KB a chart)."""
    image_layout = {
        "title": {"text": chart.title, "x": 0.01, "xanchor": "left", "y": 0.97,
                  "yanchor": "top", "font": {"size": 18},
                  "subtitle": {"text": "<br>".join(attribution_lines(chart)),
                               "font": {"size": 11}}},
        "margin.t": 150,
    }
    return {"width": 960, "height": 640, "filename": chart.id, "layout": image_layout}


