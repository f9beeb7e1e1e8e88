"""The comparison chart at 1,000 algorithms (half of them fitted), in headless Chromium: it
draws its featured set by default, its page fragment stays small, and a curve chosen from the
"Add a curve" list is fetched and drawn. Built with the chart feature's own writers (the
figure, the series files, plotly.js), not a whole site build."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from helpers_charts import many_fits_catalog
from test_charts_browser import TIMEOUT_MS, _serve

from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import export as chartexport
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import files
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg

pytestmark = [pytest.mark.scale, pytest.mark.browser]

FITTED, UNFITTED = 497, 500  # plus the three fitted and the unfitted algorithms of the fixture
MAX_FIGURE_GZIP_BYTES = 60_000


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("scale")
    catalog = many_fits_catalog(root / "project", FITTED, UNFITTED)
    assert len(catalog.algorithms) >= 1000
    ctx = SiteContext(root=root / "project", catalog=catalog)
    chart = charts.build_chart(catalog, charts.COMPARISON_ID)
    site = root / "site"
    folder = site / chartsite.EMBED_DIR / charts.COMPARISON_ID / chartsite.SERIES_DIR
    chartsite.write_series_files(ctx, chart, folder)
    (folder.parent / chartsite.SPEC_FILE).write_text(files.spec_file_text(chart),
                                                     encoding="utf-8")
    # the two files spec.json names: the chart's points and what every chart shares
    (folder.parent / files.DATA_JSON).write_text(
        files.json_text(chartdata.to_json(chart)), encoding="utf-8")
    (folder.parent.parent / files.SPEC_BASE_FILE).write_text(
        files.shared_embed_files()[files.SPEC_BASE_FILE], encoding="utf-8")
    vendor = site / chartsite.VENDOR_PLOTLY
    vendor.parent.mkdir(parents=True)
    vendor.symlink_to(chartsite.plotly_js_path())
    overrides = Path(__file__).resolve().parent.parent / "site_overrides"
    assets = chartsite.Assets(
        root="", inline_css=(overrides / chartsite.CHART_CSS).read_text(encoding="utf-8"),
        inline_js=chartexport.loader_js(overrides.parent),
        plotly_src=chartsite.VENDOR_PLOTLY)
    page = chartsite.render_standalone(chart, "", mode=chartsite.PAGE, assets=assets)
    page = page.replace("<html lang=\"en\" data-tn-embed>", "<html lang=\"en\">", 1)
    (site / "index.html").write_text(page, encoding="utf-8")
    figure = chartsite.render_figure(chart, root="../", site_url="")
    server = _serve(site)
    yield chart, figure, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_the_figure_does_not_grow_with_the_catalog(served) -> None:
    chart, figure, _ = served
    assert len(chart.series) == charts.FEATURED_MAX
    assert len(chart.others) == FITTED + 3 - charts.FEATURED_MAX
    assert len(gzip.compress(figure.encode())) < MAX_FIGURE_GZIP_BYTES


def test_default_selection_shows_and_a_curve_is_added_on_request(browser, served) -> None:
    chart, _, url = served
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(url)
        box = f"#chart-{charts.COMPARISON_ID}"
        assert chartsvg.chart_svg(chart).count('<path class="curve"') == charts.FEATURED_MAX
        page.locator(f"{box} .tn-chart__frame").hover()
        page.wait_for_selector(f"{box}.tn-chart--ready .legend .traces", timeout=TIMEOUT_MS)
        assert page.locator(f"{box} .legend .traces").count() == charts.FEATURED_MAX
        wanted_id, wanted_name = chart.others[-1]
        page.select_option(f"{box} .tn-chart__select", wanted_id)
        page.locator(f"{box} [data-tn-add]").click()
        page.wait_for_function(
            f"() => document.querySelector('{box} .tn-chart__plot').data.length === "
            f"{3 * charts.FEATURED_MAX + 1 + 3}", timeout=TIMEOUT_MS)
        legend = page.locator(f"{box} .legend .traces").all_text_contents()
        assert any(wanted_name in text for text in legend)
        # the file's curve has no grid of its own (issue 47): it is drawn on the chart's
        assert page.evaluate(f"""() => {{
            const data = document.querySelector('{box} .tn-chart__plot').data;
            const added = data[data.length - 3];
            return added.x.length === {charts.CURVE_POINTS}
              && added.x.every((x, i) => x === data[0].x[i])
              && added.customdata.every((h, i) => h === data[0].customdata[i]);
        }}""")
        assert page.locator(f"{box} .tn-chart__status-text").inner_text().startswith("Added")
        assert page.locator(f"{box} option[value='{wanted_id}']").is_disabled()
        assert errors == []
    finally:
        context.close()
