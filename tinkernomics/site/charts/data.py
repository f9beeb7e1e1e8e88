"""A chart's data files (pipeline step 6, view model -> ``data.csv`` and ``data.json``).

Both carry what a reader needs to reuse the numbers elsewhere: title, formula, parameters,
units, sources with their URLs, the page and the licence. The CSV starts with ``#`` metadata
lines (``pandas.read_csv(path, comment="#")`` skips them), then one row per curve point with
status, sources and licence on every row. Rewards and the parameters A and R0 are fractions
(0-1) in both files; a fit without R0 says so (``assumed``, value 0) instead of ``null``.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.site.charts.spec import (
    FORMULA,
    LICENCE,
    LICENCE_URL,
    Chart,
    Series,
    attribution,
    num,
)

CSV_COLUMNS = ("chart_id", "algorithm_id", "algorithm", "gb200_hours", "h100_equivalent_hours",
               "reward", "parameter_status", "sources", "licence")
UNITS = {"gb200_hours": "GB200-hours", "h100_equivalent_hours": "H100-hours",
         "reward": "pass rate as a fraction (0-1)"}
FRACTION = "fraction"
R0_ASSUMED = "assumed"


def page_url(chart: Chart, site_url: str = "") -> str:
    base = site_url.rstrip("/") + "/" if site_url else ""
    return f"{base}{chart.page}"


def data_rows(chart: Chart) -> list[dict[str, Any]]:
    """One row per curve point (long format), with provenance on every row."""
    rows = []
    for s in chart.series:
        for (c, r), h in zip(s.points, s.h100_hours, strict=True):
            rows.append({
                "chart_id": chart.id, "algorithm_id": s.algorithm_id, "algorithm": s.name,
                "gb200_hours": num(c), "h100_equivalent_hours": num(h), "reward": num(r),
                "parameter_status": s.status.value, "sources": " ".join(s.sources),
                "licence": LICENCE,
            })
    return rows


def _parameter_text(s: Series) -> str:
    p = s.params
    r0 = ("R0 = 0 (assumed)" if s.fit.R0 is None else f"R0 = {num(p.R0)}")
    return (f"{s.algorithm_id}: A = {num(p.A)}, B = {num(p.B)}, C_mid = {num(p.C_mid)} "
            f"GB200-h, {r0} ({s.status.value}; fit on {s.fit.model}, {s.fit.dataset})")


def csv_metadata(chart: Chart, site_url: str = "") -> list[str]:
    """The ``#`` lines above the CSV header: what the columns are and where they come from."""
    lines = [f"title: {chart.title}", f"page: {page_url(chart, site_url)}",
             f"formula: {FORMULA} (A and R0 as fractions)"]
    lines += [f"parameters {_parameter_text(s)}" for s in chart.series]
    lines += [f"unit {col}: {unit}" for col, unit in UNITS.items()]
    lines.append(f"conversion: {chart.factor_text}")
    lines += [f"source {r.id}: {r.title} ({r.authors}) {r.url or ''}".rstrip()
              for r in chart.sources]
    if chart.date:
        lines.append(f"data as of: {chart.date}")
    lines.append(f"licence: {LICENCE} {LICENCE_URL}; credit: {attribution(chart)}")
    return [f"# {line}" for line in lines]


def to_csv(chart: Chart, site_url: str = "") -> str:
    buffer = io.StringIO()
    buffer.write("\n".join(csv_metadata(chart, site_url)) + "\n")
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(data_rows(chart))
    return buffer.getvalue()


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
        "conversion": {"id": chart.factor.id, "factor": chart.factor.value,
                       "basis": chart.factor.basis, "status": chart.factor.status.value,
                       "sources": [chart.factor.numerator.source,
                                   chart.factor.denominator.source]},
        "series": [series_json(s) for s in chart.series],
        "sources": [{"id": r.id, "title": r.title, "authors": r.authors, "url": r.url,
                     "status": r.status} for r in chart.sources],
    }


def series_json(s: Series) -> dict[str, Any]:
    return {
        "algorithm_id": s.algorithm_id,
        "algorithm": s.name,
        "model": s.fit.model,
        "dataset": s.fit.dataset,
        "status": s.status.value,
        "parameters": _parameters_json(s),
        "points": [{"gb200_hours": num(c), "h100_equivalent_hours": num(h), "reward": num(r)}
                   for (c, r), h in zip(s.points, s.h100_hours, strict=True)],
    }

