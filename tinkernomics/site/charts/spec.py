"""ScaleRL convergence charts: the view model (pipeline step 6, derived numbers -> one ``Chart``).

A chart is built from the validated catalog only: every curve point comes from
``derive.scalerl_reward`` on the algorithm's fit, every H100-equivalent figure from
``derive.h100_equivalent_hours`` with the sourced GB200->H100 factor. Every output of a chart is
drawn from this view model: the Plotly spec (``plotlyspec``), CSV and JSON (``data``), the static
SVG (``svg``), PNG images (``images``), pages and embeds (``feature``).

Chart ids are stable public names (they appear in embed URLs): ``scalerl-comparison`` for the
algorithms with a fit, ``scalerl-<algorithm id>`` for one. The comparison draws a readable
*featured* set (``featured_ids``); the other fitted curves are offered on request, and its
curves are grouped by the setting their fit was made in (``settings``: never compared across).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import ASSERTED_BY_MEANINGS, Status
from tinkernomics.derived import derive
from tinkernomics.site.charts import settings
from tinkernomics.site.charts.themes import (  # noqa: F401 (re-exported)
    THEMES,
    decade_ticks,
    short_number,
)
from tinkernomics.site.identity import LICENCE, LICENCE_URL  # noqa: F401 (re-exported)

COMPARISON_ID = "scalerl-comparison"
ALGORITHM_PREFIX = "scalerl-"
CURVE_POINTS = 61
"""Points per curve, evenly spaced on the log compute axis: 15-20 per decade, as smooth as the
fitted curve at any width the charts are drawn, and half the bytes of 121 (on a 1,000-entry
catalog every chart page, embed, download and image carries them)."""
SPAN_FACTOR = 30.0
"""The compute axis runs from the smallest C_mid / 30 to the largest C_mid * 30 (before rounding
to a 1-2-5 value): with B near 2 the curves are flat at R0 and at A beyond that."""
NICE_STEPS = (1.0, 2.0, 5.0, 10.0)
FORMULA = "R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)"
PUBLISHER = "tinker-nomics"
UNVERIFIED_MARK = "unverified"
X_TITLE = "GB200-hours (log scale)"
X2_TITLE = "H100-equivalent hours"
Y_TITLE = "Pass rate (reward)"

PALETTE = ("#0072B2", "#BF7500", "#009E73", "#CC79A7", "#D55E00", "#1F8FD0", "#8C6D1F",
           "#7F7F7F")
"""Okabe-Ito hues (colour-blind safe), orange and sky blue darkened so that every colour has a
contrast of at least 3:1 (WCAG 1.4.11, graphics) on the light (#ffffff) and the dark (#1e2029)
background; tests check it. An algorithm keeps its colour on every chart: the index of its id
among the fitted ones."""
NOT_DRAWN = " Algorithms without a sourced fit are not drawn."
"""The comparison chart's note on the algorithms it leaves out."""
FEATURED_MAX = 6
"""Curves the comparison chart draws by default; more are added by the reader on request."""

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
    curve: str = ""
    """What the curve is (the fit's ``curve_label``, e.g. "ScaleRL recipe"); "" when not given."""
    setting: str = ""
    """The setting the fit was made in, as legends and summaries name it (``settings``)."""

    @property
    def unverified(self) -> bool:
        return self.status == Status.unverified

    @property
    def title(self) -> str:
        return curve_title(self.name, self.curve)

    @property
    def label(self) -> str:
        """Legend label; unverified fits say so in the legend itself."""
        return f"{self.title} ({UNVERIFIED_MARK})" if self.unverified else self.title

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
    others: tuple[tuple[str, str], ...] = ()
    """(algorithm id, name) of fitted curves not drawn by default (comparison only)."""
    date: str = ""
    """ISO date the data last changed (printed on images; "" when unknown)."""

    def __hash__(self) -> int:
        """Its fields' hash, as a frozen dataclass's, worked out once: the key of every cached
        output of it (issue 47: hashing each curve point anew at every look-up was half the CPU
        of a chart's SVG files)."""
        if (found := self.__dict__.get("_hash")) is None:
            fields = tuple(getattr(self, f.name) for f in dataclasses.fields(self))
            found = self.__dict__["_hash"] = hash(fields)
        return int(found)

    @property
    def groups(self) -> tuple[tuple[str, tuple[Series, ...]], ...]:
        """(setting, its series) in the order drawn: curves are compared only within one."""
        by = settings.grouped([(s.setting, s) for s in self.series])
        return tuple((name, tuple(group)) for name, group in by.items())

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


_FITTED: list[tuple[Catalog, dict[str, m.Algorithm]]] = []
"""The last catalog object asked about and its fitted algorithms (every chart asks)."""


def fitted_algorithms(catalog: Catalog) -> dict[str, m.Algorithm]:
    """Algorithms that have a ScaleRL fit, in id order (a new dict each call)."""
    if not _FITTED or _FITTED[0][0] is not catalog:
        _FITTED[:] = [(catalog, {aid: a for aid, a in catalog.algorithms.items()
                                 if a.scalerl is not None})]
    return dict(_FITTED[0][1])


def chart_ids(catalog: Catalog) -> list[str]:
    """Every chart id the catalog defines: the comparison first, then one per fitted algorithm."""
    fitted = fitted_algorithms(catalog)
    ids = [COMPARISON_ID] if fitted else []
    return ids + [f"{ALGORITHM_PREFIX}{aid}" for aid in fitted]


def algorithm_chart_id(algorithm_id: str) -> str:
    return f"{ALGORITHM_PREFIX}{algorithm_id}"


def build_chart(catalog: Catalog, chart_id: str, factor: derive.Factor | None = None,
                date: str = "") -> Chart:
    """The chart with this id; ``UnknownChartError`` (listing the valid ids) otherwise.
    ``date`` (ISO) is when the data last changed, printed on images."""
    fitted = fitted_algorithms(catalog)
    known = chart_ids(catalog)
    if chart_id not in known:
        raise UnknownChartError(chart_id, known)
    factor = factor or derive.conversion_factor(catalog)
    others: tuple[tuple[str, str], ...] = ()
    if chart_id == COMPARISON_ID:
        featured = featured_ids(catalog)
        chosen = [fitted[aid] for aid in featured]
        others = tuple((aid, curve_title(a.name, _fit(a).curve_label))
                       for aid, a in fitted.items() if aid not in featured)
        title = "ScaleRL convergence fits by algorithm"
        page = "algorithms/"
        # The axis spans every fitted curve, so a curve added on request fits on it.
        low, high = compute_range([_params(catalog, a).C_mid for a in fitted.values()])
    else:
        chosen = [fitted[chart_id.removeprefix(ALGORITHM_PREFIX)]]
        title = f"ScaleRL convergence fit: {chosen[0].name}"
        page = f"algorithms/{chosen[0].id}/"
        low, high = compute_range([_params(catalog, chosen[0]).C_mid])
    series = by_setting(tuple(series_for(catalog, a.id, low, high, factor) for a in chosen))
    sources = _sources(catalog, series, factor)
    return Chart(
        id=chart_id, title=title, page=page,
        description=settings.description(series, len(others))
        + (NOT_DRAWN if chart_id == COMPARISON_ID else ""),
        series=series, x_low=low, x_high=high, y_high=reward_axis_top(series), factor=factor,
        sources=sources, others=others, date=date,
    )


def by_setting(series: tuple[Series, ...]) -> tuple[Series, ...]:
    """The series grouped by the setting of their fit (settings in order of first appearance),
    each with its setting's name."""
    names = settings.setting_names([s.fit for s in series])
    order = list(dict.fromkeys(names))
    named = [dataclasses.replace(s, setting=n) for s, n in zip(series, names, strict=True)]
    return tuple(sorted(named, key=lambda s: order.index(s.setting)))


def featured_ids(catalog: Catalog) -> list[str]:
    """The comparison chart's default curves: up to ``FEATURED_MAX`` fitted algorithms, the best
    confirmed fits first (reported, then derived, then unverified), then by id. With the real
    catalog (fewer fits than that) every fit is featured."""
    rank = {Status.reported: 0, Status.derived: 1, Status.unverified: 2}
    fitted = fitted_algorithms(catalog)
    ordered = sorted(fitted, key=lambda aid: (rank[_status(_fit(fitted[aid]))], aid))
    chosen = set(ordered[:FEATURED_MAX])
    return [aid for aid in fitted if aid in chosen]


def color_of(catalog: Catalog, algorithm_id: str) -> str:
    """An algorithm's colour on every chart: its index among the fitted ones."""
    index = list(fitted_algorithms(catalog)).index(algorithm_id)
    return PALETTE[index % len(PALETTE)]


def series_for(catalog: Catalog, algorithm_id: str, low: float, high: float,
               factor: derive.Factor) -> Series:
    """One fitted algorithm's curve on the axis [low, high] (GB200-hours)."""
    algorithm = catalog.algorithms[algorithm_id]
    return _series(algorithm, _params(catalog, algorithm), color_of(catalog, algorithm_id),
                   low, high, factor)


def curve_title(name: str, curve_label: str | None) -> str:
    """A curve as every output names it: the algorithm and, if given, what the curve is
    ("CISPO — ScaleRL recipe"), so a recipe and a bare loss are not read as like things."""
    return f"{name} — {curve_label}" if curve_label else name


def _fit(algorithm: m.Algorithm) -> m.ScaleRLFit:
    assert algorithm.scalerl is not None  # fitted_algorithms() filtered the others
    return algorithm.scalerl


def _params(catalog: Catalog, algorithm: m.Algorithm) -> derive.SigmoidParams:
    """The algorithm's fit in numbers. Validation keeps them in range (C_mid 0.001 to 1e9,
    B 0.01 to 20); a fit the chart's arithmetic still cannot use (its axis, C_mid / 30 to
    C_mid x 30, leaves a float's range) is a problem located at the algorithm's file."""
    try:
        params = derive.sigmoid_params(_fit(algorithm))
        if not 0 < params.C_mid / SPAN_FACTOR < params.C_mid * SPAN_FACTOR < math.inf:
            raise derive.DerivedError(f"C_mid ({params.C_mid:g}) leaves no drawable axis",
                                      ("scalerl", "C_mid", "value"))
    except derive.DerivedError as err:
        raise err.located(catalog, "algorithm", algorithm.id) from err
    return params


def _parameter_figures(fit: m.ScaleRLFit) -> list[m.Figure]:
    return [f for f in (fit.A, fit.B, fit.C_mid, fit.R0) if f is not None]


def _status(fit: m.ScaleRLFit) -> Status:
    statuses = {f.status for f in _parameter_figures(fit)}
    if Status.unverified in statuses:
        return Status.unverified
    return Status.reported if statuses == {Status.reported} else Status.derived


def _series(algorithm: m.Algorithm, params: derive.SigmoidParams, color: str, low: float,
            high: float, factor: derive.Factor) -> Series:
    fit = _fit(algorithm)
    points = tuple(derive.curve_points(params, derive.log_grid(low, high, CURVE_POINTS)))
    sources = tuple(dict.fromkeys(f.source for f in _parameter_figures(fit)))
    return Series(
        algorithm_id=algorithm.id, name=algorithm.name, color=color, fit=fit, params=params,
        status=_status(fit), points=points,
        h100_hours=tuple(derive.h100_equivalent_hours(c, factor) for c, _ in points),
        sources=sources, curve=fit.curve_label or "",
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
    """Top of the reward axis: the highest asymptote plus headroom, rounded up to 10 points;
    at least 10 points (an asymptote A of 0 is valid, and the axis divides by its top)."""
    top = max(s.params.A for s in series) * 1.1
    return min(1.0, max(0.1, math.ceil(top * 10 - 1e-9) / 10))


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


def data_date(catalog: Catalog, chart: Chart) -> str:
    """When the chart's data last changed, from the catalog alone (never the clock, the git
    history or file times, so equal inputs build equal files): the newest publication or
    check date of the references its numbers rest on (its fits and the GB200->H100 factor)."""
    refs = [catalog.references[s.id] for s in chart.sources]
    dates = [d for ref in refs for d in (ref.date, ref.checked) if d is not None]
    return max(dates).isoformat() if dates else ""


def attribution_lines(chart: Chart) -> list[str]:
    """Credit, licence, conversion basis and (if any) the unverified warning, one per line."""
    lines = [f"{PUBLISHER} · data {LICENCE} · {chart.factor_text}"]
    if chart.any_unverified:
        lines.append(chart.unverified_note)
    return lines


def attribution(chart: Chart) -> str:
    return " ".join(attribution_lines(chart))


def num(value: float, digits: int = 6) -> float:
    """Round for output (spec, CSV, JSON): 6 significant digits for a parameter."""
    return float(f"{value:.{digits}g}")


POINT_DIGITS = 4
"""Significant digits of a curve point's numbers in every file (``data.point``): finer than
any output shows; six were a third of a chart's spec, JSON and CSV bytes (issue 47)."""
