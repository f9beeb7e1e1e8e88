"""ScaleRL convergence charts (pipeline step 6, derived view models -> chart specs and data).

A chart is built from the validated catalog only: every curve point comes from
``derive.scalerl_reward`` on the algorithm's fit, every H100-equivalent figure from
``derive.h100_equivalent_hours`` with the sourced GB200->H100 factor. This module turns that view
model into the three things a chart is shipped as: a Plotly figure spec (data, layout, config,
and the light/dark theme overrides the browser applies), a flat table (CSV) and a JSON document
with its sources and licence. The static SVG lives in ``chartsvg``; pages and embeds in
``chartsite``.

Chart ids are stable public names (they appear in embed URLs): ``scalerl-comparison`` for all
algorithms with a fit, ``scalerl-<algorithm id>`` for one.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any

from tinkernomics.derived import derive
from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import ASSERTED_BY_MEANINGS, Status

COMPARISON_ID = "scalerl-comparison"
ALGORITHM_PREFIX = "scalerl-"
CURVE_POINTS = 121
"""Points per curve, evenly spaced on the log compute axis (10 per factor of ~1.5)."""
SPAN_FACTOR = 30.0
"""The compute axis runs from the smallest C_mid / 30 to the largest C_mid * 30 (before rounding
to a 1-2-5 value): with B near 2 the curves are flat at R0 and at A beyond that."""
NICE_STEPS = (1.0, 2.0, 5.0, 10.0)
LICENCE = "CC BY 4.0"
LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"
PUBLISHER = "tinker-nomics"
UNVERIFIED_MARK = "unverified"
X_TITLE = "GB200-hours (log scale)"
X2_TITLE = "H100-equivalent hours"
Y_TITLE = "Pass rate (reward)"

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#8C6D1F",
           "#7F7F7F")
"""Okabe-Ito colours (colour-blind safe), readable on the light and the dark background.
An algorithm keeps its colour on every chart: the index of its id among the fitted ones."""

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


class UnknownChartError(KeyError):
    """A chart id that the catalog does not define; the message lists the valid ids."""

    def __init__(self, chart_id: str, known: list[str]) -> None:
        super().__init__(chart_id)
        self.chart_id = chart_id
        self.known = known

    def __str__(self) -> str:
        return f"unknown chart id {self.chart_id!r} (known: {', '.join(self.known) or 'none'})"


# --------------------------------------------------------------------------- view model


@dataclass(frozen=True)
class SourceRef:
    """A reference a chart's numbers rest on, as shown in captions and data files."""

    id: str
    title: str
    authors: str
    url: str | None
    status: str


@dataclass(frozen=True)
class Series:
    """One algorithm's fitted curve and the figures it marks."""

    algorithm_id: str
    name: str
    color: str
    fit: m.ScaleRLFit
    params: derive.SigmoidParams
    status: Status
    """``unverified`` if any parameter is; else ``reported`` if all are, else ``derived``."""
    points: tuple[tuple[float, float], ...]
    """(GB200-hours, reward as a fraction) along the curve."""
    h100_hours: tuple[float, ...]
    """H100-equivalent hours of each point."""
    sources: tuple[str, ...]

    @property
    def unverified(self) -> bool:
        return self.status == Status.unverified

    @property
    def label(self) -> str:
        """Legend label; unverified fits say so in the legend itself."""
        return f"{self.name} ({UNVERIFIED_MARK})" if self.unverified else self.name

    @property
    def midpoint_reward(self) -> float:
        """R(C_mid): half way between R0 and A."""
        return derive.scalerl_reward(self.params, self.params.C_mid)


@dataclass(frozen=True)
class Chart:
    """Everything any output of one chart needs, computed once."""

    id: str
    title: str
    description: str
    page: str
    """Site path of the page that shows the chart, e.g. ``algorithms/grpo/``."""
    series: tuple[Series, ...]
    x_low: float
    x_high: float
    y_high: float
    factor: derive.Factor
    sources: tuple[SourceRef, ...]

    @property
    def x_low_h100(self) -> float:
        return derive.h100_equivalent_hours(self.x_low, self.factor)

    @property
    def x_high_h100(self) -> float:
        return derive.h100_equivalent_hours(self.x_high, self.factor)

    @property
    def any_unverified(self) -> bool:
        return any(s.unverified for s in self.series)

    @property
    def unverified_note(self) -> str:
        """Caption for unverified parameters, naming who asserted them; empty if none."""
        if not self.any_unverified:
            return ""
        whos = sorted({f.asserted_by for s in self.series for f in _parameter_figures(s.fit)
                       if f.status == Status.unverified and f.asserted_by})
        who = " or ".join(ASSERTED_BY_MEANINGS[w] for w in whos) or "unconfirmed"
        return f"Parameters marked unverified are {who}; no source confirms them."

    @property
    def factor_text(self) -> str:
        return (f"1 GB200-hour ≈ {derive.format_number(self.factor.value)} H100-hours "
                f"(basis: {self.factor.basis})")


def fitted_algorithms(catalog: Catalog) -> dict[str, m.Algorithm]:
    """Algorithms that have a ScaleRL fit, in id order."""
    return {aid: a for aid, a in catalog.algorithms.items() if a.scalerl is not None}


def chart_ids(catalog: Catalog) -> list[str]:
    """Every chart id the catalog defines: the comparison first, then one per fitted algorithm."""
    fitted = fitted_algorithms(catalog)
    ids = [COMPARISON_ID] if fitted else []
    return ids + [f"{ALGORITHM_PREFIX}{aid}" for aid in fitted]


def algorithm_chart_id(algorithm_id: str) -> str:
    return f"{ALGORITHM_PREFIX}{algorithm_id}"


def build_chart(catalog: Catalog, chart_id: str, factor: derive.Factor | None = None) -> Chart:
    """The chart with this id; ``UnknownChartError`` (listing the valid ids) otherwise."""
    fitted = fitted_algorithms(catalog)
    known = chart_ids(catalog)
    if chart_id not in known:
        raise UnknownChartError(chart_id, known)
    factor = factor or derive.conversion_factor(catalog)
    colors = {aid: PALETTE[i % len(PALETTE)] for i, aid in enumerate(fitted)}
    if chart_id == COMPARISON_ID:
        chosen = list(fitted.values())
        title = "ScaleRL convergence fits by algorithm"
        page = "algorithms/"
    else:
        chosen = [fitted[chart_id.removeprefix(ALGORITHM_PREFIX)]]
        title = f"ScaleRL convergence fit: {chosen[0].name}"
        page = f"algorithms/{chosen[0].id}/"
    low, high = compute_range([derive.sigmoid_params(_fit(a)).C_mid for a in chosen])
    series = tuple(_series(a, colors[a.id], low, high, factor) for a in chosen)
    return Chart(
        id=chart_id, title=title, description=_description(series), page=page, series=series,
        x_low=low, x_high=high, y_high=reward_axis_top(series), factor=factor,
        sources=_sources(catalog, series, factor),
    )


def _fit(algorithm: m.Algorithm) -> m.ScaleRLFit:
    assert algorithm.scalerl is not None  # fitted_algorithms() filtered the others
    return algorithm.scalerl


def _parameter_figures(fit: m.ScaleRLFit) -> list[m.Figure]:
    return [f for f in (fit.A, fit.B, fit.C_mid, fit.R0) if f is not None]


def _status(fit: m.ScaleRLFit) -> Status:
    statuses = {f.status for f in _parameter_figures(fit)}
    if Status.unverified in statuses:
        return Status.unverified
    return Status.reported if statuses == {Status.reported} else Status.derived


def _series(algorithm: m.Algorithm, color: str, low: float, high: float,
            factor: derive.Factor) -> Series:
    fit = _fit(algorithm)
    params = derive.sigmoid_params(fit)
    points = tuple(derive.curve_points(params, derive.log_grid(low, high, CURVE_POINTS)))
    sources = tuple(dict.fromkeys(f.source for f in _parameter_figures(fit)))
    return Series(
        algorithm_id=algorithm.id, name=algorithm.name, color=color, fit=fit, params=params,
        status=_status(fit), points=points,
        h100_hours=tuple(derive.h100_equivalent_hours(c, factor) for c, _ in points),
        sources=sources,
    )


def _nice(value: float, *, up: bool) -> float:
    """The next 1-2-5 value at or above (``up``) or at or below ``value``."""
    decade = 10 ** math.floor(math.log10(value))
    steps = NICE_STEPS if up else tuple(reversed(NICE_STEPS[:-1]))
    for step in steps:
        if (up and step * decade >= value * (1 - 1e-12)) or (
            not up and step * decade <= value * (1 + 1e-12)
        ):
            return step * decade
    return decade  # pragma: no cover - the loop always returns


def compute_range(c_mids: list[float]) -> tuple[float, float]:
    """Log-axis range in GB200-hours that shows every curve's rise and plateau."""
    return (_nice(min(c_mids) / SPAN_FACTOR, up=False), _nice(max(c_mids) * SPAN_FACTOR, up=True))


def reward_axis_top(series: tuple[Series, ...]) -> float:
    """Top of the reward axis: the highest asymptote plus headroom, rounded up to 10 points."""
    top = max(s.params.A for s in series) * 1.1
    return min(1.0, math.ceil(top * 10 - 1e-9) / 10)


def _description(series: tuple[Series, ...]) -> str:
    names = ", ".join(s.name for s in series)
    marks = ("Diamonds mark C_mid, the compute at half the gain; dashed lines the asymptote A."
             if len(series) > 1 else
             "The diamond marks C_mid, the compute at half the gain; the dashed line the "
             "asymptote A.")
    return (f"Fitted pass rate against training compute (GB200-hours, log scale) for {names}. "
            f"{marks}")


def _sources(catalog: Catalog, series: tuple[Series, ...],
             factor: derive.Factor) -> tuple[SourceRef, ...]:
    ids = [sid for s in series for sid in s.sources]
    ids += [factor.numerator.source, factor.denominator.source]
    refs = catalog.references
    out = []
    for sid in dict.fromkeys(ids):
        ref = refs[sid]
        out.append(SourceRef(sid, ref.title, ref.authors, ref.url, ref.status.value))
    return tuple(out)


# --------------------------------------------------------------------------- plotly spec


def _hover_compute() -> str:
    return "%{x:,.0f} GB200-h<br>≈ %{customdata:,.0f} H100-eq h"


def _status_line(s: Series) -> str:
    if s.unverified:
        return "<br><i>Parameters unverified (see Data quality)</i>"
    return ""


def _curve_trace(s: Series) -> dict[str, Any]:
    return {
        "type": "scatter", "mode": "lines", "name": s.label, "legendgroup": s.algorithm_id,
        "x": [_num(c) for c, _ in s.points], "y": [_num(r) for _, r in s.points],
        "customdata": [_num(h) for h in s.h100_hours],
        "line": {"color": s.color, "width": 2.5},
        "hovertemplate": (f"<b>{s.name}</b><br>{_hover_compute()}<br>reward %{{y:.1%}}"
                          f"{_status_line(s)}<extra></extra>"),
    }


def _cmid_trace(s: Series, factor: derive.Factor) -> dict[str, Any]:
    p = s.params
    return {
        "type": "scatter", "mode": "markers", "name": f"{s.name} C_mid",
        "legendgroup": s.algorithm_id, "showlegend": False,
        "x": [p.C_mid], "y": [_num(s.midpoint_reward)],
        "customdata": [_num(derive.h100_equivalent_hours(p.C_mid, factor))],
        "marker": {"symbol": "diamond", "size": 11, "color": s.color,
                   "line": {"width": 1, "color": "#ffffff"}},
        "hovertemplate": (f"<b>{s.name}: C_mid</b> (half the gain)<br>{_hover_compute()}"
                          f"<br>reward %{{y:.1%}}{_status_line(s)}<extra></extra>"),
    }


def _asymptote_trace(s: Series, low: float, high: float) -> dict[str, Any]:
    a = _num(s.params.A)
    return {
        "type": "scatter", "mode": "lines", "name": f"{s.name} asymptote A",
        "legendgroup": s.algorithm_id, "showlegend": False,
        "x": [low, high], "y": [a, a],
        "line": {"color": s.color, "width": 1.2, "dash": "dash"},
        "hovertemplate": (f"<b>{s.name}: asymptote A</b><br>reward ceiling %{{y:.1%}}"
                          f"{_status_line(s)}<extra></extra>"),
    }


def _h100_axis_trace(chart: Chart) -> dict[str, Any]:
    """An invisible trace that makes Plotly draw the H100-equivalent axis on top."""
    return {
        "type": "scatter", "mode": "markers", "name": "H100-equivalent axis", "xaxis": "x2",
        "x": [chart.x_low_h100, chart.x_high_h100], "y": [None, None],
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
        {"x": math.log10(p.C_mid), "y": s.midpoint_reward, "xref": "x", "yref": "y",
         "xanchor": "left", "yanchor": "top", "showarrow": False, "xshift": 8,
         "text": f"C_mid = {derive.format_number(p.C_mid)} GB200-h"},
    ]


def _log_range(low: float, high: float) -> list[float]:
    return [round(math.log10(low), 9), round(math.log10(high), 9)]


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


def _log_axis(low: float, high: float, title: str) -> dict[str, Any]:
    ticks = decade_ticks(low, high)
    return {
        "type": "log", "fixedrange": True, "showline": True, "ticks": "outside",
        "automargin": True, "range": _log_range(low, high), "tickvals": ticks,
        "ticktext": [short_number(t) for t in ticks], "title": {"text": title, "standoff": 6},
    }


def plotly_figure(chart: Chart) -> dict[str, Any]:
    """The Plotly figure (data, layout, config) plus theme overrides and image-export extras."""
    data: list[dict[str, Any]] = []
    for s in chart.series:
        data += [_curve_trace(s), _asymptote_trace(s, chart.x_low, chart.x_high),
                 _cmid_trace(s, chart.factor)]
    data.append(_h100_axis_trace(chart))
    layout = {
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
                 "size": 13},
        "margin": {"l": 56, "r": 16, "t": 40, "b": 40},
        "hovermode": "closest",
        "dragmode": False,
        "showlegend": True,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yanchor": "bottom",
                   "yref": "container", "title": {"text": ""}},
        "xaxis": _log_axis(chart.x_low, chart.x_high, X_TITLE),
        "xaxis2": {**_log_axis(chart.x_low_h100, chart.x_high_h100,
                               f"{X2_TITLE} (× {chart.factor.text[:-1]})"),
                   "overlaying": "x", "side": "top", "showgrid": False},
        "yaxis": {"fixedrange": True, "showline": True, "ticks": "outside", "automargin": True,
                  "title": {"text": Y_TITLE}, "tickformat": ".0%",
                  "range": [0, chart.y_high], "zeroline": False},
        "annotations": _annotations(chart),
    }
    return {
        "data": data,
        "layout": layout,
        "config": {"displaylogo": False, "responsive": True, "displayModeBar": False,
                   "scrollZoom": False},
        "themes": THEMES,
        "image": image_extras(chart, layout),
    }


def image_extras(chart: Chart, layout: dict[str, Any]) -> dict[str, Any]:
    """A downloaded PNG/SVG: the on-page layout with the title and, under it, the credit,
    licence, conversion basis and unverified warning (the legend keeps the bottom)."""
    image_layout = {
        **layout,
        "title": {"text": chart.title, "x": 0.01, "xanchor": "left", "y": 0.97,
                  "yanchor": "top", "font": {"size": 18},
                  "subtitle": {"text": "<br>".join(attribution_lines(chart)),
                               "font": {"size": 11}}},
        "margin": {**layout["margin"], "t": 150},
    }
    return {"width": 960, "height": 640, "filename": chart.id, "layout": image_layout}


def attribution_lines(chart: Chart) -> list[str]:
    """Credit, licence, conversion basis and (if any) the unverified warning, one per line."""
    lines = [f"{PUBLISHER} · data {LICENCE} · {chart.factor_text}"]
    if chart.any_unverified:
        lines.append(chart.unverified_note)
    return lines


def attribution(chart: Chart) -> str:
    return " ".join(attribution_lines(chart))


# --------------------------------------------------------------------------- data outputs

CSV_COLUMNS = ("chart_id", "algorithm_id", "algorithm", "gb200_hours", "h100_equivalent_hours",
               "reward", "parameter_status", "sources", "licence")


def data_rows(chart: Chart) -> list[dict[str, Any]]:
    """One row per curve point (long format), with provenance on every row."""
    rows = []
    for s in chart.series:
        for (c, r), h in zip(s.points, s.h100_hours, strict=True):
            rows.append({
                "chart_id": chart.id, "algorithm_id": s.algorithm_id, "algorithm": s.name,
                "gb200_hours": _num(c), "h100_equivalent_hours": _num(h), "reward": _num(r),
                "parameter_status": s.status.value, "sources": " ".join(s.sources),
                "licence": LICENCE,
            })
    return rows


def _num(value: float) -> float:
    """Round for output (spec, CSV, JSON): 6 significant digits keep files small and stable."""
    return float(f"{value:.6g}")


def to_csv(chart: Chart) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(data_rows(chart))
    return buffer.getvalue()


def _figure_json(figure: m.Figure | None) -> dict[str, Any] | None:
    if figure is None:
        return None
    out: dict[str, Any] = {"value": figure.value, "unit": figure.unit.value,
                           "status": figure.status.value, "source": figure.source}
    if figure.reported_instead:
        out["reported_instead"] = figure.reported_instead
    return out


def to_json(chart: Chart, site_url: str = "") -> dict[str, Any]:
    """The chart's data with its parameters, sources and licence (keys in a fixed order)."""
    base = site_url.rstrip("/") + "/" if site_url else ""
    return {
        "id": chart.id,
        "title": chart.title,
        "description": chart.description,
        "formula": "R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)",
        "page": f"{base}{chart.page}" if base else chart.page,
        "licence": {"name": LICENCE, "url": LICENCE_URL, "attribution": attribution(chart)},
        "units": {"compute": "GB200-hours", "h100_equivalent": "H100-hours",
                  "reward": "pass rate as a fraction (0-1)"},
        "conversion": {"id": chart.factor.id, "factor": chart.factor.value,
                       "basis": chart.factor.basis, "status": chart.factor.status.value,
                       "sources": [chart.factor.numerator.source,
                                   chart.factor.denominator.source]},
        "series": [_series_json(s) for s in chart.series],
        "sources": [{"id": r.id, "title": r.title, "authors": r.authors, "url": r.url,
                     "status": r.status} for r in chart.sources],
    }


def _series_json(s: Series) -> dict[str, Any]:
    return {
        "algorithm_id": s.algorithm_id,
        "algorithm": s.name,
        "model": s.fit.model,
        "dataset": s.fit.dataset,
        "status": s.status.value,
        "parameters": {"A": _figure_json(s.fit.A), "B": _figure_json(s.fit.B),
                       "C_mid": _figure_json(s.fit.C_mid), "R0": _figure_json(s.fit.R0)},
        "points": [{"gb200_hours": _num(c), "h100_equivalent_hours": _num(h), "reward": _num(r)}
                   for (c, r), h in zip(s.points, s.h100_hours, strict=True)],
    }
