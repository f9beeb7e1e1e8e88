"""Work a build no longer does twice (issue 47): each test counts the work, on fixture catalogs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from helpers_charts import fitted_catalog

from tinkernomics.site.charts import spec as charts


def test_a_chart_is_hashed_once(tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The outputs' caches key on the chart: its curves are hashed the first time only, and
    the hash is the dataclass's own (every field's)."""
    chart = charts.build_chart(fitted_catalog(tmp_path), charts.COMPARISON_ID)
    calls = []
    plain_hash = charts.Series.__hash__

    def counted(series: charts.Series) -> int:
        calls.append(series)
        return plain_hash(series)

    monkeypatch.setattr(charts.Series, "__hash__", counted)
    first = hash(chart)
    assert len(calls) == len(chart.series) > 1
    assert hash(chart) == first and len(calls) == len(chart.series)
    assert first == hash(tuple(getattr(chart, f.name) for f in dataclasses.fields(chart)))
    other = dataclasses.replace(chart, date="2001-01-01")
    assert other != chart and hash(other) != first
    assert dataclasses.replace(other, date=chart.date) == chart
