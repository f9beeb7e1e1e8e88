"""`tinkernomics chart ID --format html|json|csv -o FILE`: exports that stand on their own."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from helpers_charts import csv_rows, fitted_catalog_dir, reward

from tinkernomics import cli
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import spec as charts


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fitted_catalog_dir(tmp_path_factory.mktemp("export"))


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["chart", *args])
    return code, out.getvalue(), err.getvalue()


def test_csv_export_parses_and_matches_the_formula(catalog_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "grpo.csv"
    code, _, err = run("scalerl-grpo", "--format", "csv", "-o", str(target),
                       "--catalog", str(catalog_dir))
    assert code == 0 and "wrote" in err
    rows = csv_rows(target.read_text(encoding="utf-8"))
    assert len(rows) == charts.CURVE_POINTS and {r["algorithm_id"] for r in rows} == {"grpo"}
    fit = load_valid_catalog(catalog_dir).algorithms["grpo"].scalerl
    assert fit is not None
    middle = rows[len(rows) // 2]
    assert float(middle["reward_percent"]) == pytest.approx(
        100 * reward(fit, float(middle["gb200_hours"])), rel=5e-4)
    khatri = load_valid_catalog(catalog_dir).references["scalerl_khatri"]
    first = rows[0]  # the curve's provenance, once (issue 47)
    assert first["licence"] == "CC BY 4.0" and first["sources"] == khatri.title
    assert first["data_date"]  # the export is dated as the site's files are
    assert (middle["licence"], middle["sources"]) == ("", "")


def test_json_export_to_stdout_has_source_and_licence(catalog_dir: Path) -> None:
    code, out, _ = run("scalerl-comparison", "--format", "json", "--catalog", str(catalog_dir),
                       "--site-url", "https://example.org/")
    assert code == 0
    data = json.loads(out)
    assert data["id"] == "scalerl-comparison" and data["licence"]["name"] == "CC BY 4.0"
    assert data["sources"] and all(s["title"] for s in data["sources"])
    assert [s["algorithm_id"] for s in data["series"]] == ["cispo", "dapo", "grpo"]
    assert data["page"] == "https://example.org/algorithms/"


def test_html_export_inlines_plotly_or_references_it(catalog_dir: Path, tmp_path: Path) -> None:
    inline, small = tmp_path / "inline.html", tmp_path / "small.html"
    assert run("scalerl-dapo", "--catalog", str(catalog_dir), "-o", str(inline))[0] == 0
    assert run("scalerl-dapo", "--catalog", str(catalog_dir), "-o", str(small),
               "--plotly-src", "plotly.min.js")[0] == 0
    big, little = inline.read_text(encoding="utf-8"), small.read_text(encoding="utf-8")
    bundle = chartsite.plotly_js_path().read_text(encoding="utf-8")
    assert bundle in big and len(big) > len(bundle) and len(little) < 200_000
    assert '<script src="plotly.min.js"></script>' in little
    for html in (big, little):
        assert 'data-tn-chart="scalerl-dapo"' in html and "tn-chart__spec" in html
        assert "<svg" in html and "http://" not in html.split("<body", 1)[0]
        assert 'src="assets/' not in html and 'href="assets/' not in html  # nothing external
        # the theme script and colours inline, not the site's shared embed/ files (issue 47)
        assert "embed/theme" not in html and "prefers-color-scheme" in html.split("<body")[0]


def test_unknown_chart_is_an_error_listing_the_ids(catalog_dir: Path) -> None:
    code, out, err = run("scalerl-nope", "--catalog", str(catalog_dir))
    assert code == 2 and out == ""
    assert "unknown chart id 'scalerl-nope'" in err and "scalerl-comparison" in err
