"""A chart's data files (pipeline step 6, view model -> ``data.csv``, ``data-wide.csv`` and
``data.json``).

The CSVs are plain tables whose first line is the header, so ``pandas.read_csv(url)`` and
spreadsheets open them as they are; values are in the units the chart shows (rewards in
percent), a curve point's to ``spec.POINT_DIGITS`` significant digits (parameters to six).
``data.csv`` is long: one row per curve point with its chart, algorithm, curve and
status; the first row of each curve also carries the date the data last changed, the sources'
titles and URLs, the licence and the chart's page, which the curve's other rows leave empty
(the same values: a spreadsheet's "fill down" or pandas' ``df.ffill()`` repeats them). Repeated
on all 61 rows they were 70% of the file, 6 MB at 1,000 algorithms (issue 47).
``data-wide.csv``, for a chart of several curves, has one row per compute value and one column
per curve (every curve of a chart shares its compute grid), then the same provenance columns
(every source of the chart); a one-curve chart has none, its long table being one column of
rewards already (issue 47: the same numbers twice, 10 MB at 1,000 algorithms; ``csv_files``).
Both are written by ``site.safecsv``, which neutralises text a spreadsheet would run.
What a reader needs to reuse the numbers elsewhere (title, formula, parameters, units of
every column, sources with their URLs, the page, the date and the licence) is in
``data.json``, which also lists the curve points; there the parameters A and R0 and the
rewards are fractions (0-1), as the formula takes them, and a fit without R0 says so
(``assumed``, value 0) instead of ``null``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.site.charts.spec import (
    FORMULA,
    LICENCE,
    LICENCE_URL,
    POINT_DIGITS,
    Chart,
    Series,
    attribution,
    num,
)
from tinkernomics.site.safecsv import csv_text

PROVENANCE_COLUMNS = ("data_date", "sources", "source_urls", "licence", "licence_url", "page")
"""The date the data last changed (ISO), the sources' titles (``; `` between them) and URLs (a
space between them), the data licence and the chart's page: on the first row of each curve of
``data.csv`` (empty on its other rows) and on every row of ``data-wide.csv``."""
CSV_COLUMNS = ("chart_id", "algorithm_id", "algorithm", "curve", "gb200_hours",
               "h100_equivalent_hours", "reward_percent", "parameter_status",
               *PROVENANCE_COLUMNS)
WIDE_FIRST = ("gb200_hours", "h100_equivalent_hours")
"""The wide CSV's first columns; then one ``<algorithm id>_reward_percent`` per curve, then
``PROVENANCE_COLUMNS``."""
UNITS = {"gb200_hours": "GB200-hours", "h100_equivalent_hours": "H100-hours",
         "reward": "pass rate as a fraction (0-1)"}
CSV_UNITS = {"gb200_hours": "GB200-hours", "h100_equivalent_hours": "H100-hours",
             "reward_percent": "pass rate in percent (0-100), as the chart's axis"}
CSV_PROVENANCE = {
    "data_date": "date the chart's data last changed (ISO), from its sources",
    "sources": "titles of the sources the curve's numbers rest on, '; ' between them",
    "source_urls": "their URLs, a space between them",
    "licence": "the data licence", "licence_url": "the licence's text",
    "page": "the chart's page on the site"}
"""What each of ``PROVENANCE_COLUMNS`` holds (in ``data.json``)."""
CSV_PROVENANCE_ROWS = "data.csv: each curve's first row (fill down); data-wide.csv: every row"
"""Where the provenance columns are filled (in ``data.json``, beside ``CSV_PROVENANCE``)."""
CSV_FILES = {"long": "data.csv", "wide": "data-wide.csv"}
"""Every CSV a chart may have; ``csv_files`` says which one chart has."""
FRACTION = "fraction"
R0_ASSUMED = "assumed"


def csv_files(chart: Chart) -> dict[str, str]:
    """The chart's CSV files: the long one, and the wide one when it has several curves."""
    return dict(CSV_FILES) if len(chart.series) > 1 else {"long": CSV_FILES["long"]}


def page_url(chart: Chart, site_url: str = "") -> str:
    base = site_url.rstrip("/") + "/" if site_url else ""
    return f"{base}{chart.page}"


def provenance(chart: Chart, source_ids: tuple[str, ...], site_url: str = "") -> list[str]:
    """``PROVENANCE_COLUMNS`` for rows resting on ``source_ids`` (titles and URLs, not ids)."""
    refs = [r for r in chart.sources if r.id in source_ids]
    return [chart.date, "; ".join(r.title for r in refs),
            " ".join(r.url for r in refs if r.url), LICENCE, LICENCE_URL,
            page_url(chart, site_url)]


_UNSTATED = tuple(dict.fromkeys(PROVENANCE_COLUMNS, "").values())


RoundedPoint = tuple[float, float, float, float]
"""A curve point as the files write it: (GB200-hours, H100-hours, reward, reward percent)."""


@lru_cache(maxsize=4096)
def rounded_points(chart: Chart) -> tuple[tuple[RoundedPoint, ...], ...]:
    """Each series' points rounded (``point``, ``percent``) once per chart for ``data.csv``,
    ``data-wide.csv`` and ``data.json``, which wrote each number of a curve two or three times
    over (issue 47: 200,000 roundings at 1,000 algorithms)."""
    return tuple(tuple((point(c), point(h), point(r), percent(r))
                       for (c, r), h in zip(s.points, s.h100_hours, strict=True))
                 for s in chart.series)


def _csv_rows(chart: Chart, site_url: str) -> list[list[Any]]:
    """One row per curve point (long format) in ``CSV_COLUMNS`` order; a curve's provenance
    on its first row only."""
    rows = []
    for s, points in zip(chart.series, rounded_points(chart), strict=True):
        first, status = [chart.id, s.algorithm_id, s.name, s.curve], s.status.value
        about = provenance(chart, s.sources, site_url)
        for i, (c, h, _, pct) in enumerate(points):
            rows.append([*first, c, h, pct, status, *(about if i == 0 else _UNSTATED)])
    return rows


def point(value: float) -> float:
    """A curve point's number as every chart file writes it: ``POINT_DIGITS`` significant
    digits (``spec.num``'s rounding, written out: a chart's files round every point, 200,000
    numbers at 1,000 algorithms), a whole one as an ``int``: ``1139``, not ``1139.0`` (the
    same number; issue 47: 0.3 KB a chart)."""
    value = float(f"{value:.{POINT_DIGITS}g}")
    return int(value) if value.is_integer() else value


def percent(fraction: float) -> float:
    """A curve point's reward as the chart shows it (percent), rounded like every point."""
    return point(fraction * 100)


def wide_column(s: Series) -> str:
    return f"{s.algorithm_id}_reward_percent"


def to_csv(chart: Chart, site_url: str = "") -> str:
    """``data.csv``: the header, then one row per curve point (long form); ``site_url`` makes
    the ``page`` column absolute."""
    return csv_text(CSV_COLUMNS, _csv_rows(chart, site_url))


def to_wide_csv(chart: Chart, site_url: str = "") -> str:
    """``data-wide.csv``: one row per compute value, one reward column (percent) per curve,
    then the chart's provenance (every source it rests on)."""
    about = provenance(chart, tuple(r.id for r in chart.sources), site_url)
    curves = rounded_points(chart)
    rows = ([c, h, *(points[i][3] for points in curves), *about]
            for i, (c, h, _, _) in enumerate(curves[0]))
    return csv_text([*WIDE_FIRST, *(wide_column(s) for s in chart.series),
                     *PROVENANCE_COLUMNS], rows)


def _provenance(figure: m.Figure) -> dict[str, Any]:
    out: dict[str, Any] = {"status": figure.status.value, "source": figure.source,
                           "as_given": {"value": figure.value, "unit": figure.unit.value}}
    if figure.reported_instead:
        out["reported_instead"] = figure.reported_instead
    return out


def _parameters_json(s: Series) -> dict[str, Any]:
    """A, B, C_mid, R0 in the units the curve uses (A and R0 as fractions, like the reward)."""
    fit, p = s.fit, s.params
    out = {
        "A": {"value": num(p.A), "unit": FRACTION, **_provenance(fit.A)},
        "B": {"value": num(p.B), "unit": "dimensionless", **_provenance(fit.B)},
        "C_mid": {"value": num(p.C_mid), "unit": "GB200-hours", **_provenance(fit.C_mid)},
    }
    if fit.R0 is None:
        out["R0"] = {"value": 0.0, "unit": FRACTION, "status": R0_ASSUMED, "source": None,
                     "note": "not given by the fit's source; the curve assumes 0"}
    else:
        out["R0"] = {"value": num(p.R0), "unit": FRACTION, **_provenance(fit.R0)}
    return out


def to_json(chart: Chart, site_url: str = "") -> dict[str, Any]:
    """The chart's data with its parameters, sources and licence (keys in a fixed order)."""
    return {
        "id": chart.id,
        "title": chart.title,
        "description": chart.description,
        "formula": FORMULA,
        "page": page_url(chart, site_url),
        "date": chart.date or None,
        "licence": {"name": LICENCE, "url": LICENCE_URL, "attribution": attribution(chart)},
        "units": {"compute": "GB200-hours", "h100_equivalent": "H100-hours",
                  "reward": UNITS["reward"], "A": FRACTION, "R0": FRACTION},
        "csv": {"files": csv_files(chart), "units": CSV_UNITS, "provenance": CSV_PROVENANCE,
                "provenance_rows": CSV_PROVENANCE_ROWS,
                "wide_columns": {wide_column(s): s.algorithm_id for s in chart.series},
                "wide_labels": {wide_column(s): s.title for s in chart.series}},
        "conversion": {"id": chart.factor.id, "factor": chart.factor.value,
                       "basis": chart.factor.basis, "status": chart.factor.status.value,
                       "sources": [chart.factor.numerator.source,
                                   chart.factor.denominator.source]},
        "series": [series_json(s, points)
                   for s, points in zip(chart.series, rounded_points(chart), strict=True)],
        "sources": [{"id": r.id, "title": r.title, "authors": r.authors, "url": r.url,
                     "status": r.status} for r in chart.sources],
    }


def series_json(s: Series, points: tuple[RoundedPoint, ...]) -> dict[str, Any]:
    """One curve in ``data.json``, its ``points`` as ``rounded_points`` gives them."""
    return {
        "algorithm_id": s.algorithm_id,
        "algorithm": s.name,
        "curve": s.curve or None,
        "label": s.title,
        "model": s.fit.model,
        "dataset": s.fit.dataset,
        "status": s.status.value,
        "parameters": _parameters_json(s),
        "points": [{"gb200_hours": c, "h100_equivalent_hours": h, "reward": r}
                   for c, h, r, _ in points],
    }

