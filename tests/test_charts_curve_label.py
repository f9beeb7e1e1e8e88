"""A charted fit's ``curve_label`` (what the curve is: a recipe, a loss inside a baseline) reaches
every output that names the curve, as text: legend (Plotly and static SVG), caption, alt text,
parameter table, CSV, JSON and the API; a label a spreadsheet would run, or one too long for a
legend, is refused at its file and field. Fixture catalogs only (``helpers_charts``)."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers_catalog import write_file
from helpers_charts import fitted_catalog_dir

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_catalog, load_valid_catalog
from tinkernomics.catalog.models.scalerl import CURVE_LABEL_MAX
from tinkernomics.site.api import convert as apiconvert
from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import feature as chartfeature
from tinkernomics.site.charts import plotlyspec, share
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg

HOSTILE = "loss a < b & c > d, \"q\""
"""A label validation lets through (no tag) with what SVG, HTML, Plotly and CSV treat specially:
angle brackets, an ampersand, a comma and quotes. Every output must show it as written."""


def _label(root: Path, algo_id: str, label: str) -> None:
    path = root / "algorithms" / f"{algo_id}.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("scalerl:\n", f"scalerl:\n  curve_label: {json.dumps(label)}\n", 1)
    write_file(root, f"algorithms/{algo_id}.yaml", text)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = fitted_catalog_dir(tmp_path_factory.mktemp("labelled"))
    _label(root, "cispo", "ScaleRL recipe")
    _label(root, "dapo", HOSTILE)
    return load_valid_catalog(root)


@pytest.fixture(scope="module")
def chart(labelled: Catalog) -> charts.Chart:
    return charts.build_chart(labelled, charts.COMPARISON_ID, date="2026-12-02")


def _by_id(chart: charts.Chart) -> dict[str, charts.Series]:
    return {s.algorithm_id: s for s in chart.series}


def test_series_are_named_by_algorithm_and_label(chart: charts.Chart) -> None:
    s = _by_id(chart)
    assert s["cispo"].title == "CISPO — ScaleRL recipe"
    assert s["dapo"].title == f"DAPO — {HOSTILE}"
    assert s["grpo"].title == "GRPO"  # no label: the name alone
    # the comparison's description names each curve under its setting, the label first
    assert "ScaleRL recipe (8B dense model, Polaris-53K): CISPO" in chart.description


def test_plotly_legend_and_hover_show_the_label_as_text(chart: charts.Chart) -> None:
    traces = plotlyspec.plotly_figure(chart)["data"]
    names = [t["name"] for t in traces]
    assert "CISPO — ScaleRL recipe" in names
    dapo = next(t for t in traces if t.get("legendgroup") == "dapo" and t.get("showlegend", True))
    # Plotly reads tags and entities in names: escaped, it turns them back into the label.
    assert dapo["name"] == "DAPO — loss a &lt; b &amp; c &gt; d, \"q\""
    assert "DAPO — loss a &lt; b &amp; c &gt; d" in dapo["hovertemplate"]


@pytest.mark.parametrize("layout", ["wide", "narrow"])
def test_static_svg_legend_carries_the_label(chart: charts.Chart, layout: str) -> None:
    # It parses: the hostile label was escaped.
    root = ET.fromstring(chartsvg.standalone_svg(chart, layout=layout))
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "CISPO — ScaleRL recipe" in texts
    assert any(t.startswith(f"DAPO — {HOSTILE}") for t in texts)


def test_alt_text_and_table_name_the_curve(chart: charts.Chart) -> None:
    assert "ScaleRL recipe (8B dense model, Polaris-53K): CISPO 61%" in share.finding(chart)
    rows = [chartfeature._param_row(s, chart.factor) for s in chart.series]
    assert {r.name for r in rows} >= {"CISPO — ScaleRL recipe", f"DAPO — {HOSTILE}"}


def test_data_files_have_the_label_beside_the_algorithm(chart: charts.Chart) -> None:
    rows = list(csv.DictReader(io.StringIO(chartdata.to_csv(chart))))
    by_algo = {r["algorithm_id"]: r for r in rows}
    assert by_algo["cispo"]["algorithm"] == "CISPO"
    assert by_algo["cispo"]["curve"] == "ScaleRL recipe"
    assert by_algo["dapo"]["curve"] == HOSTILE  # the csv module quoted it; it reads back whole
    assert by_algo["grpo"]["curve"] == ""
    data = chartdata.to_json(chart)
    series = {s["algorithm_id"]: s for s in data["series"]}
    assert series["cispo"]["curve"] == "ScaleRL recipe"
    assert series["cispo"]["label"] == "CISPO — ScaleRL recipe"
    assert series["grpo"]["curve"] is None and series["grpo"]["label"] == "GRPO"
    assert data["csv"]["wide_labels"]["cispo_reward_percent"] == "CISPO — ScaleRL recipe"


def test_api_publishes_the_label(labelled: Catalog) -> None:
    fit = labelled.algorithms["cispo"].scalerl
    assert fit is not None
    assert apiconvert.build_scalerl("cispo", fit, None).curve_label == "ScaleRL recipe"
    bare = labelled.algorithms["grpo"].scalerl
    assert bare is not None and apiconvert.build_scalerl("grpo", bare, None).curve_label is None


@pytest.mark.parametrize(("label", "says"), [
    ("=HYPERLINK(\"x\")", "start with a letter or digit"),
    ("-loss", "start with a letter or digit"),
    ("x" * (CURVE_LABEL_MAX + 1), str(CURVE_LABEL_MAX)),
])
def test_bad_labels_are_refused_at_their_field(tmp_path: Path, label: str, says: str) -> None:
    root = fitted_catalog_dir(tmp_path)
    _label(root, "cispo", label)
    _, found = load_catalog(root)
    problems = [p for p in found if "curve_label" in str(p)]
    assert problems, found
    text = str(problems[0])
    assert "cispo.yaml" in text and says in text


def test_page_figure_escapes_the_label(chart: charts.Chart) -> None:
    html = chartfeature.render_figure(chart, root="../", site_url="")
    assert "DAPO — loss a &lt; b &amp; c &gt; d" in html
    assert "a < b" not in html


@pytest.fixture(scope="module")
def two_losses(tmp_path_factory: pytest.TempPathFactory) -> charts.Chart:
    """CISPO a whole recipe; DAPO and GRPO losses in the same baseline, on the same model."""
    root = fitted_catalog_dir(tmp_path_factory.mktemp("settings"))
    _label(root, "cispo", "ScaleRL recipe")
    _label(root, "dapo", "loss in the baseline")
    _label(root, "grpo", "loss in the baseline")
    return charts.build_chart(load_valid_catalog(root), charts.COMPARISON_ID)


def test_curves_are_grouped_by_setting_and_named(two_losses: charts.Chart) -> None:
    """Issue 44: fits made in different settings are set apart, each setting named; the model
    is named only where settings differ in it (here they do not)."""
    groups = {name: [s.algorithm_id for s in group] for name, group in two_losses.groups}
    assert groups == {"ScaleRL recipe": ["cispo"], "Loss in the baseline": ["dapo", "grpo"]}
    order = [s.algorithm_id for s in two_losses.series]
    assert order.index("cispo") not in range(order.index("dapo"), order.index("grpo") + 1)
    assert "compare curves within a setting" in two_losses.description


def test_summaries_rank_only_within_a_setting(two_losses: charts.Chart) -> None:
    """CISPO's 61% ceiling is not set above the losses' (another setting): no summary names a
    highest ceiling or a least compute across settings; each ranks within its setting."""
    texts = [share.finding(two_losses), share.alt_text(two_losses),
             chartsvg_subtitle(two_losses)]
    for text in texts:
        assert "highest" not in text and "least compute" not in text
    assert "Loss in the baseline: DAPO 52%" in share.finding(two_losses)
    assert "2 settings" in share.finding(two_losses)


def test_plotly_legend_keeps_settings_apart_and_svg_heads_them(two_losses: charts.Chart) -> None:
    traces = plotlyspec.plotly_figure(two_losses)["data"]
    ranked = sorted((t["legendrank"], t["legendgroup"]) for t in traces
                    if t.get("showlegend", True) and "legendrank" in t)
    assert [g for _, g in ranked] == [s.algorithm_id for s in two_losses.series]
    svg = chartsvg.chart_svg(two_losses)
    assert ">ScaleRL recipe:<" in svg and ">Loss in the baseline:<" in svg


def chartsvg_subtitle(chart: charts.Chart) -> str:
    from tinkernomics.site.charts import cardsvg
    return cardsvg.subtitle(chart)
