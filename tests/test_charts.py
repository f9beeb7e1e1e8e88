"""ScaleRL charts: curve values against the formula, the Plotly spec, the static SVG, data files,
the page/embed HTML and the files written into the site."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
import tomllib
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path

import helpers_charts
import plotly.graph_objects as go
import pytest
from helpers_charts import csv_rows, fitted_catalog, joined_spec, many_fits_catalog_dir, reward

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import AssertedBy, Status
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import images as chartimages
from tinkernomics.site.charts import plotlyspec
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg

SVG_NS = "{http://www.w3.org/2000/svg}"
PLOTLY_JS_VERSION = "4.1.1"
PLOTLY_JS_SHA256 = re.search(r"sha256: `(\w+)`", (chartsite.plotly_js_path().parent / "README.md")
                             .read_text(encoding="utf-8")).group(1)  # type: ignore[union-attr]
"""The vendored bundle's hash, as its README records it (one place to change on a refresh)."""
"""The vendored bundle (tinkernomics/site/charts/static/plotly/README.md says how to refresh)."""
BASIC_BUNDLE_TRACES = {"scatter", "bar", "pie"}
"""The trace types plotly.js's basic partial bundle can draw."""


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return fitted_catalog(tmp_path_factory.mktemp("charts"))


@pytest.fixture(scope="module")
def comparison(catalog: Catalog) -> charts.Chart:
    return charts.build_chart(catalog, charts.COMPARISON_ID)


def factor_from_catalog(catalog: Catalog) -> float:
    """GB200 -> H100 factor from the two hardware entries, computed here independently."""
    return catalog.hardware["gb200"].bf16_dense_tflops.value / \
        catalog.hardware["h100"].bf16_dense_tflops.value


def spec_traces(spec: dict, suffix: str) -> dict[str, dict]:
    """Traces of one kind (' C_mid', ' asymptote A') by algorithm name."""
    return {t["name"].removesuffix(suffix): t for t in spec["data"]
            if t["name"].endswith(suffix)}


# --------------------------------------------------------------------------- ids


def test_chart_ids_are_the_comparison_then_one_per_fitted_algorithm(catalog: Catalog) -> None:
    fitted = sorted(a.id for a in catalog.algorithms.values() if a.scalerl is not None)
    assert fitted == ["cispo", "dapo", "grpo"]
    assert "ppo" in catalog.algorithms  # an algorithm without a fit gets no chart
    assert charts.chart_ids(catalog) == ["scalerl-comparison"] + [f"scalerl-{a}" for a in fitted]


def test_without_any_fit_the_comparison_is_a_note_and_the_build_goes_on(tmp_path: Path) -> None:
    """A catalog where no algorithm has a ScaleRL fit still builds: the comparison's place on the
    algorithms page says why there is no chart; an algorithm chart id stays an error."""
    root = many_fits_catalog_dir(tmp_path, fitted=0, unfitted=2)
    for path in (root / "algorithms").glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\nscalerl:\n(?:  [^\n]*\n|    [^\n]*\n)*", "\n", text),
                        encoding="utf-8")
    catalog = load_valid_catalog(root)
    assert not any(a.scalerl for a in catalog.algorithms.values())
    chart = chartsite.macros(SiteContext(root=tmp_path, catalog=catalog))["chart"]
    assert chart(charts.COMPARISON_ID) == chartsite.NO_FITS_NOTE
    assert "No algorithm in the catalog has a ScaleRL fit yet" in chartsite.NO_FITS_NOTE
    with pytest.raises(charts.UnknownChartError):
        chart("scalerl-grpo")


def test_unknown_chart_id_names_the_known_ones(catalog: Catalog) -> None:
    with pytest.raises(charts.UnknownChartError) as err:
        charts.build_chart(catalog, "scalerl-ppo")
    assert "scalerl-ppo" in str(err.value) and "scalerl-comparison, scalerl-cispo" in str(err.value)


# --------------------------------------------------------------------------- curve values


def test_reward_at_c_mid_is_half_way_between_r0_and_a(comparison: charts.Chart,
                                                      catalog: Catalog) -> None:
    spec = plotlyspec.plotly_figure(comparison)
    markers = spec_traces(spec, " C_mid")
    for s in comparison.series:
        fit = catalog.algorithms[s.algorithm_id].scalerl
        assert fit is not None
        r0 = fit.R0.value / 100 if fit.R0 else 0.0
        half_way = (r0 + fit.A.value / 100) / 2
        assert reward(fit, fit.C_mid.value) == pytest.approx(half_way)
        assert s.midpoint_reward == pytest.approx(half_way, abs=1e-12)
        marker = markers[s.name]
        assert marker["x"] == [fit.C_mid.value]
        assert marker["y"][0] == pytest.approx(half_way, abs=1e-6)
    assert {s.algorithm_id: s.params.R0 for s in comparison.series}["cispo"] == 0.12


def test_curve_ends_match_the_formula_at_both_axis_ends(comparison: charts.Chart,
                                                        catalog: Catalog) -> None:
    spec = plotlyspec.plotly_figure(comparison)
    curves = {t["legendgroup"]: t for t in spec["data"] if t.get("showlegend", True)
              and t.get("mode") == "lines"}
    for s in comparison.series:
        fit = catalog.algorithms[s.algorithm_id].scalerl
        assert fit is not None
        (c0, r_first), (c1, r_last) = s.points[0], s.points[-1]
        assert (c0, c1) == pytest.approx((comparison.x_low, comparison.x_high))
        assert r_first == pytest.approx(reward(fit, comparison.x_low), rel=1e-12)
        assert r_last == pytest.approx(reward(fit, comparison.x_high), rel=1e-12)
        trace = curves[s.algorithm_id]
        assert trace["y"][0] == pytest.approx(reward(fit, comparison.x_low), rel=5e-4)
        assert trace["y"][-1] == pytest.approx(reward(fit, comparison.x_high), rel=5e-4)
        # the axis shows the whole rise: under 5% of the gain at the left, over 95% at the right
        r0 = fit.R0.value / 100 if fit.R0 else 0.0
        gain = fit.A.value / 100 - r0
        assert r_first - r0 < 0.05 * gain and r_last - r0 > 0.95 * gain


def test_points_are_log_spaced_and_rise_monotonically(comparison: charts.Chart) -> None:
    for s in comparison.series:
        xs = [math.log10(c) for c, _ in s.points]
        steps = {round(b - a, 9) for a, b in itertools.pairwise(xs)}
        assert len(s.points) == charts.CURVE_POINTS and len(steps) == 1
        rewards = [r for _, r in s.points]
        assert rewards == sorted(rewards)


def test_h100_equivalent_hours_use_the_hardware_factor(comparison: charts.Chart,
                                                       catalog: Catalog) -> None:
    factor = factor_from_catalog(catalog)
    spec = plotlyspec.plotly_figure(comparison)
    for s in comparison.series:
        for (c, _), h in zip(s.points, s.h100_hours, strict=True):
            assert h == pytest.approx(c * factor)
    curve = spec["data"][0]
    assert curve["customdata"][0] == pytest.approx(curve["x"][0] * factor, rel=1e-3)
    top = spec["layout"]["xaxis2"]["range"]
    assert top == pytest.approx([math.log10(comparison.x_low * factor),
                                 math.log10(comparison.x_high * factor)])


# --------------------------------------------------------------------------- Plotly spec


def test_the_vendored_plotly_js_is_the_basic_bundle_its_readme_names() -> None:
    path = chartsite.plotly_js_path()
    data = path.read_bytes()
    banner = f"/**\n* plotly.js (basic - minified) v{PLOTLY_JS_VERSION}\n".encode()
    assert data.startswith(banner)
    assert hashlib.sha256(data).hexdigest() == PLOTLY_JS_SHA256
    assert len(data) < 1_500_000  # the full bundle is 4.8 MB
    readme = (path.parent / "README.md").read_text(encoding="utf-8")
    assert f"**{PLOTLY_JS_VERSION}**" in readme and PLOTLY_JS_SHA256 in readme
    assert (path.parent / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_the_vendored_plotly_js_ships_as_package_data() -> None:
    """A wheel carries the bundle: setuptools' package-data globs (pyproject.toml) match it."""
    path = chartsite.plotly_js_path()
    package_dir = Path(chartsite.__file__).parent
    with (Path(__file__).parents[1] / "pyproject.toml").open("rb") as f:
        globs = tomllib.load(f)["tool"]["setuptools"]["package-data"]["*"]
    assert path in {p for pattern in globs for p in package_dir.glob(pattern)}


def test_every_trace_the_charts_draw_is_one_the_basic_bundle_has(catalog: Catalog) -> None:
    """A trace type outside the bundle would draw nothing in the reader's browser."""
    for chart_id in charts.chart_ids(catalog):
        chart = charts.build_chart(catalog, chart_id)
        traces = plotlyspec.plotly_figure(chart)["data"]
        for algorithm_id, _name in chart.others:  # the curves a reader adds on request
            series = charts.series_for(catalog, algorithm_id, chart.x_low, chart.x_high,
                                       chart.factor)
            traces += plotlyspec.series_traces(series, chart)
        assert traces, chart_id
        assert {t.get("type", "scatter") for t in traces} <= BASIC_BUNDLE_TRACES, chart_id


def test_spec_is_a_valid_plotly_figure(comparison: charts.Chart) -> None:
    spec = plotlyspec.plotly_figure(comparison)
    go.Figure(data=spec["data"], layout=spec["layout"])  # raises on any unknown property
    image = go.Figure(data=spec["data"], layout=spec["layout"])
    image.update_layout(spec["image"]["layout"])  # the image's changes, as relayout keys
    assert image.layout.margin.t == 150 and image.layout.title.text == comparison.title
    assert image.layout.xaxis.type == "log"  # the page's layout under them
    assert set(spec["image"]["layout"]) == {"title", "margin.t"}  # not a second copy of it
    for theme in spec["themes"].values():
        go.Figure(data=spec["data"], layout=spec["layout"]).update_layout(theme)


def unverified_copy(catalog: Catalog, algo_id: str) -> Catalog:
    """``catalog`` with ``algo_id``'s charted fit unverified, forced past validation (which
    refuses it: rule_scalerl_sourced), to test that the chart still says so."""
    forced = copy.deepcopy(catalog)
    entry = forced.entries["algorithm"][algo_id]
    fit = entry.model.scalerl
    assert fit is not None
    old = {"status": Status.unverified, "asserted_by": AssertedBy.original_site,
           "source": "original_site", "reported_instead": "No source gives it."}
    entry.model = entry.model.model_copy(update={"scalerl": fit.model_copy(update={
        name: getattr(fit, name).model_copy(update=old) for name in ("A", "B", "C_mid")})})
    forced.entries["algorithm"] = dict(forced.entries["algorithm"])  # a new dict: not cached
    return forced


def test_spec_marks_c_mid_and_asymptote_and_flags_unverified_fits(catalog: Catalog) -> None:
    catalog = unverified_copy(catalog, "dapo")
    comparison = charts.build_chart(catalog, charts.COMPARISON_ID)
    spec = plotlyspec.plotly_figure(comparison)
    legend = [t["name"] for t in spec["data"] if t.get("showlegend", True)]
    assert sorted(legend) == ["CISPO", "DAPO (unverified)", "GRPO"]
    asymptotes = spec_traces(spec, " asymptote A")
    for s in comparison.series:
        fit = catalog.algorithms[s.algorithm_id].scalerl
        assert fit is not None
        assert asymptotes[s.name]["y"] == [fit.A.value / 100] * 2
        assert asymptotes[s.name]["line"]["dash"] == "dash"
        marker = spec_traces(spec, " C_mid")[s.name]
        assert ("unverified" in marker["hovertemplate"]) is s.unverified
    hover = spec["data"][0]["hovertemplate"]
    assert "GB200-h" in hover and "H100-eq h" in hover and "%{y:.1%}" in hover


def test_spec_axes_and_themes(comparison: charts.Chart) -> None:
    layout = plotlyspec.plotly_figure(comparison)["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["xaxis2"]["overlaying"] == "x"
    assert layout["xaxis"]["ticktext"][:2] == ["100", "1k"]
    assert layout["yaxis"]["range"][1] >= max(s.params.A for s in comparison.series)
    light, dark = charts.THEMES["light"], charts.THEMES["dark"]
    assert light.keys() == dark.keys()
    assert light["paper_bgcolor"] != dark["paper_bgcolor"]
    assert light["font.color"] != dark["font.color"]


def test_single_algorithm_chart_labels_c_mid_and_a(catalog: Catalog) -> None:
    chart = charts.build_chart(catalog, "scalerl-grpo")
    assert [s.algorithm_id for s in chart.series] == ["grpo"]
    texts = [a["text"] for a in plotlyspec.plotly_figure(chart)["layout"]["annotations"]]
    assert texts == ["asymptote A = 50%", "C_mid = 4,000 GB200-h"]


def test_an_algorithm_keeps_its_colour_on_every_chart(catalog: Catalog,
                                                      comparison: charts.Chart) -> None:
    colours = {s.algorithm_id: s.color for s in comparison.series}
    assert len(set(colours.values())) == len(colours)
    for algo_id, colour in colours.items():
        assert charts.build_chart(catalog, f"scalerl-{algo_id}").series[0].color == colour


# --------------------------------------------------------------------------- static SVG


@pytest.mark.parametrize("layout", ["wide", "narrow"])
def test_static_svg_draws_every_curve(comparison: charts.Chart, layout: str) -> None:
    svg = ET.fromstring(chartsvg.chart_svg(comparison, layout=layout))
    assert svg.get("viewBox", "").startswith(f"0 0 {chartsvg.LAYOUTS[layout].width:g}")
    curves = [p for p in svg.iter(f"{SVG_NS}path") if p.get("class") == "curve"]
    assert len(curves) == len(comparison.series)
    assert all(p.get("d", "").startswith("M") for p in curves)
    texts = [t.text for t in svg.iter(f"{SVG_NS}text")]
    assert "DAPO" in texts and "CISPO" in texts and "1k" in texts
    style = svg.find(f"{SVG_NS}style")
    assert style is not None and "[data-md-color-scheme=slate] .tn-svg" in (style.text or "")


def test_standalone_svg_has_title_and_licence(comparison: charts.Chart) -> None:
    svg = ET.fromstring(chartsvg.standalone_svg(comparison))
    texts = " ".join(t.text or "" for t in svg.iter(f"{SVG_NS}text"))
    assert comparison.title in texts and charts.LICENCE in texts


# --------------------------------------------------------------------------- data files


def test_csv_has_every_point_with_provenance(comparison: charts.Chart, catalog: Catalog) -> None:
    """Every point with its curve and status; the provenance once, on each curve's first row
    (issue 47), which "fill down" repeats."""
    rows = csv_rows(chartdata.to_csv(comparison))
    assert len(rows) == len(comparison.series) * charts.CURVE_POINTS
    assert tuple(rows[0]) == chartdata.CSV_COLUMNS
    firsts = rows[::charts.CURVE_POINTS]
    assert [r["algorithm_id"] for r in firsts] == [s.algorithm_id for s in comparison.series]
    assert {r["licence"] for r in firsts} == {"CC BY 4.0"}
    rest = [r for i, r in enumerate(rows) if i % charts.CURVE_POINTS]
    assert {r[c] for r in rest for c in chartdata.PROVENANCE_COLUMNS} == {""}
    by_algo = {r["algorithm_id"]: r for r in rows}  # the last point of each
    fit = catalog.algorithms["cispo"].scalerl
    assert fit is not None
    last = by_algo["cispo"]
    assert float(last["reward_percent"]) == pytest.approx(
        100 * reward(fit, float(last["gb200_hours"])), rel=5e-4)  # percent, as the chart shows
    khatri = catalog.references["scalerl_khatri"]
    first = next(r for r in firsts if r["algorithm_id"] == "cispo")
    assert last["parameter_status"] == "reported" and first["sources"] == khatri.title
    assert by_algo["dapo"]["parameter_status"] == "derived"  # read off a plot


def test_json_has_sources_licence_and_parameters(comparison: charts.Chart) -> None:
    data = json.loads(json.dumps(chartdata.to_json(comparison, "https://example.org/tn/")))
    assert data["licence"]["name"] == "CC BY 4.0"
    assert data["licence"]["url"].startswith("https://creativecommons.org/licenses/by/4.0")
    assert data["page"] == "https://example.org/tn/algorithms/"
    ids = {s["id"] for s in data["sources"]}
    assert {"scalerl_khatri", "glennklockwood_b200", "glennklockwood_h100"} <= ids
    assert "original_site" not in ids  # the charted fits are sourced (rule_scalerl_sourced)
    cispo = next(s for s in data["series"] if s["algorithm_id"] == "cispo")
    assert cispo["parameters"]["R0"]["value"] == 0.12 and cispo["status"] == "reported"
    assert cispo["parameters"]["R0"]["as_given"] == {"value": 12, "unit": "percent"}
    grpo = next(s for s in data["series"] if s["algorithm_id"] == "grpo")
    assert grpo["parameters"]["A"]["status"] == "derived"  # read off the paper's plot
    # A and R0 are fractions like the reward; a fit without R0 says it is assumed (not null).
    assert grpo["parameters"]["A"]["value"] == 0.5 and grpo["parameters"]["A"]["unit"] == "fraction"
    assert grpo["parameters"]["R0"] == {
        "value": 0.0, "unit": "fraction", "status": "assumed", "source": None,
        "note": "not given by the fit's source; the curve assumes 0"}
    assert max(p["reward"] for p in grpo["points"]) <= grpo["parameters"]["A"]["value"]
    assert len(grpo["points"]) == charts.CURVE_POINTS


# --------------------------------------------------------------------------- HTML


def test_template_json_is_plain_text_to_the_html_parser() -> None:
    value = {"a": "</template><!-- &amp; >"}
    text = template_json(value)
    assert not set("<>&") & set(text)
    assert json.loads(text) == value


@pytest.mark.parametrize(("here", "root"), [("", "./"), ("algorithms/", "../"),
                                            ("algorithms/grpo/", "../../")])
def test_root_from_a_page(here: str, root: str) -> None:
    assert chartsite.root_from(here) == root


def test_page_figure_has_spec_fallback_downloads_and_snippet(comparison: charts.Chart) -> None:
    html = chartsite.render_figure(comparison, root="../", site_url="https://example.org/tn/")
    assert "\n\n" not in html  # one markdown HTML block
    assert 'data-tn-chart="scalerl-comparison"' in html
    # The spec is one file per chart, shared with the embed page, not a copy in each page.
    assert 'data-tn-spec="../embed/scalerl-comparison/spec.json"' in html
    assert "tn-chart__spec" not in html
    for name in ("data.csv", "data.json", "chart.svg", "chart.png"):
        assert f'href="../embed/scalerl-comparison/{name}"' in html
    for ext in ("csv", "json", "svg"):  # downloads are named after the chart
        assert f'download="scalerl-comparison.{ext}"' in html
    assert 'download="scalerl-comparison.png"' not in html  # the PNG: a URL to copy (issue 32)
    # The embed box: the plain address for readers without script (snippets: charts.js).
    assert ('<a href="https://example.org/tn/embed/scalerl-comparison/?theme=auto">'
            in html)
    assert 'data-tn-copy-link="https://example.org/tn/algorithms/#chart-scalerl-comparison"' \
        in html
    assert "<svg" not in html and '<table class="tn-table">' in html  # the files (issue 47)
    assert "<style>" not in html
    wide, narrow = (chartsvg.svg_height(comparison, name) for name in ("wide", "narrow"))
    top = chartsvg.file_box(comparison, "https://example.org/tn/", "wide")[0]
    assert (f'style="--tn-h-wide:{wide:g};--tn-top-wide:{top:g};--tn-h-narrow:{narrow:g};'
            in html)  # box = the drawing's ratio; the file's title is cropped off



def test_embed_page_has_no_site_chrome(comparison: charts.Chart) -> None:
    html = chartsite.render_embed_page(comparison, "https://example.org/tn/")
    assert "md-header" not in html and "tn-chart__embed" not in html
    assert 'src="../../assets/javascripts/charts.js"' in html
    assert 'href="data.csv"' in html and "data-tn-embed" in html
    # the theme script and colours are embed/'s shared files, not inline (issue 47)
    assert '<script src="../../embed/theme.js"></script>' in html
    assert '<link rel="stylesheet" href="../../embed/theme.css">' in html
    assert "<style>" not in html.split("<body")[0] and "<script>" not in html
    shared = chartsite.files.shared_embed_files()
    assert "prefers-color-scheme" in shared["theme.css"] and "theme=" in shared["theme.js"]


NO_IMAGES = chartimages.ImageCache(draw=False)
"""Writes a chart's files without drawing its PNGs (as ``mkdocs serve``), for the tests of its
other files."""


def test_spec_file_is_the_plotly_figure_that_an_export_inlines(
        comparison: charts.Chart, tmp_path: Path) -> None:
    """Pages and embed pages fetch ``spec.json``, joined with the two files it names as
    charts.js joins them; an export (opened from disk, where a fetch fails) carries the same
    figure inline, whole."""
    folder = tmp_path / chartsite.EMBED_DIR / comparison.id
    helpers_charts.write_chart_files(comparison, folder, "https://example.org/tn/", NO_IMAGES)
    for name, text in chartsite.files.shared_embed_files().items():
        (folder.parent / name).write_text(text, encoding="utf-8")
    from_file = joined_spec(folder)
    assert from_file == json.loads(json.dumps(plotlyspec.plotly_figure(comparison)))
    assert from_file["data"][0]["name"] == "CISPO"
    embed_page = (folder / "index.html").read_text(encoding="utf-8")
    assert 'data-tn-spec="spec.json"' in embed_page and "tn-chart__spec" not in embed_page
    export = chartsite.render_figure(comparison, root="./", site_url="", mode=chartsite.EXPORT)
    assert "data-tn-spec" not in export
    inline = export.split('class="tn-chart__spec" data-search-exclude>', 1)[1]
    assert json.loads(inline.split("</template>", 1)[0]) == from_file


def test_spec_file_holds_no_curve_point_and_nothing_every_chart_shares(
        comparison: charts.Chart, tmp_path: Path) -> None:
    """``spec.json`` names the points (``data.json``) and the shared part (``spec-base.json``)
    instead of holding them (issue 47: the points were in three files of the folder)."""
    helpers_charts.write_chart_files(comparison, tmp_path, "https://example.org/tn/", NO_IMAGES)
    spec = json.loads((tmp_path / chartsite.SPEC_FILE).read_text(encoding="utf-8"))
    curves = [spec["data"][i] for i in spec["points"]["traces"]]
    assert len(curves) == len(comparison.series) and all(c["mode"] == "lines" for c in curves)
    assert not any(key in c for c in curves for key in ("x", "y", "customdata"))
    assert not {"config", "themes", "narrow"} & set(spec)
    assert not set(plotlyspec.BASE_LAYOUT) & set(spec["layout"])


def test_write_outputs_writes_embeds_data_and_plotly_deterministically(
        catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = SiteContext(root=Path.cwd(), catalog=catalog, site_url=helpers_charts.SHARED_SITE_URL)
    # the run's shared write of the same catalog, and one here with its own image cache: each
    # image is rendered twice
    first, second = helpers_charts.shared_fitted_site(), tmp_path / "b"
    monkeypatch.setenv(chartsite.IMAGE_CACHE_ENV, str(tmp_path / "b-cache"))
    chartsite.write_outputs(ctx, second)
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    expected = {f"embed/{cid}/{name}" for cid, chart in chartsite._charts(ctx).items()
                for name in helpers_charts.chart_file_names(chart)}
    shared = {f"embed/{name}" for name in chartsite.files.shared_embed_files()}
    assert shared == {"embed/resize.js", "embed/theme.js", "embed/theme.css",
                      "embed/spec-base.json"}
    assert set(files) == expected | shared | {chartsite.VENDOR_PLOTLY, chartsite.SITE_CARD}
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel
    assert (first / chartsite.VENDOR_PLOTLY).read_bytes() == \
        chartsite.plotly_js_path().read_bytes()


def test_caption_states_each_fits_setting_and_what_is_not_drawn(catalog: Catalog) -> None:
    """A chart says on what model and data its curves were fitted (the fit's own labels, never
    a generic one), and the comparison says that an algorithm without a sourced fit is left out."""
    comparison = charts.build_chart(catalog, charts.COMPARISON_ID)
    for series in comparison.series:
        setting = f"{series.fit.model}, {series.fit.dataset}"
        assert setting in comparison.description
        one = charts.build_chart(catalog, charts.algorithm_chart_id(series.algorithm_id))
        assert f"Fitted on: {setting}." in one.description
        assert charts.NOT_DRAWN not in one.description
    assert comparison.description.endswith(charts.NOT_DRAWN)
    assert comparison.description.count("Fitted on:") == 1  # one line, settings joined


def test_a_series_file_leaves_out_the_grid_the_comparison_shares(
        comparison: charts.Chart, catalog: Catalog) -> None:
    """``series/<id>.json`` has no x or customdata on its curve (issue 47): charts.js takes
    them from the comparison's first curve, which must then be every curve's grid."""
    first = plotlyspec.plotly_figure(comparison)["data"][0]
    for algorithm_id in catalog.algorithms:
        if catalog.algorithms[algorithm_id].scalerl is None:
            continue
        series = charts.series_for(catalog, algorithm_id, comparison.x_low, comparison.x_high,
                                   comparison.factor)
        full = plotlyspec.series_traces(series, comparison)
        curve, *marks = plotlyspec.series_file_traces(series, comparison)
        assert "x" not in curve and "customdata" not in curve and curve["y"] == full[0]["y"]
        assert (full[0]["x"], full[0]["customdata"]) == (first["x"], first["customdata"])
        assert marks == full[1:] and all("x" in trace for trace in marks)


def test_the_inline_svgs_are_named_by_the_caption(comparison: charts.Chart) -> None:
    """An export's SVGs (inline: nothing beside it) have no title or description of their
    own (issue 47): both are named by the figure's caption, which ``aria-labelledby`` reads
    whether or not an SVG is shown."""
    html = chartsite.render_figure(comparison, root="../", site_url="", mode=chartsite.EXPORT)
    wide, narrow = re.findall(r"<svg\b[^>]*>.*?</svg>", html, re.S)
    ident = f"tn-svg-{comparison.id}-{chartsite.CAPTION}"
    for svg in (wide, narrow):
        assert f'aria-labelledby="{ident}-t {ident}-d"' in svg.split(">", 1)[0]
        assert "<title id=" not in svg and "<desc" not in svg
    caption = html[html.index("<figcaption"):html.index("</figcaption>")]
    assert f'id="{ident}-t">{escape(comparison.title)}<' in caption
    assert f'id="{ident}-d">{escape(comparison.description)}<' in caption
    assert html.count(f'id="{ident}-t"') == html.count(f'id="{ident}-d"') == 1

