"""Work a build no longer does twice (issue 47): each test counts the work, on fixture catalogs."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from helpers_charts import fitted_catalog

from tinkernomics.site.charts import spec as charts
from tinkernomics.site.freshness import feature as freshness


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


def test_a_build_reads_its_dates_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The price panels' day, the API's ``last_changed`` and the pages' dates share one read
    (git twice, or every catalog file stat-ed, per read); the next build reads again."""
    (tmp_path / "catalog").mkdir()
    reads: list[Path] = []
    real = freshness.data_last_changed

    def counted(catalog: Path, env: Any = None) -> dt.datetime:
        reads.append(catalog)
        return real(catalog, env)

    monkeypatch.setattr(freshness, "data_last_changed", counted)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900000000")
    freshness.new_build()
    day = freshness.staleness_day(tmp_path)
    assert freshness.of_build(tmp_path).dates.built == day == dt.date(2030, 3, 17)
    assert freshness.of_build(tmp_path).data_changed.date() == day and len(reads) == 1
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900086400")
    assert freshness.staleness_day(tmp_path) == dt.date(2030, 3, 18) and len(reads) == 2
    freshness.new_build()
    freshness.of_build(tmp_path)
    assert len(reads) == 3
    freshness.new_build()
