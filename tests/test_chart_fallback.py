"""The static chart of a page and an embed page (``charts.fallback``, issue 47): the chart's
SVG files as light and dark pictures, cropped to the drawing, instead of inline SVGs repeating
them; each SVG drawn once per build. Fixture catalogs only (``helpers_charts``)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html import escape

import pytest
from helpers_charts import fitted_catalog

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import share
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> charts.Chart:
    catalog: Catalog = fitted_catalog(tmp_path_factory.mktemp("fallback"))
    return charts.build_chart(catalog, charts.COMPARISON_ID)


FILES = "../embed/scalerl-comparison/"


@pytest.mark.parametrize(("mode", "base"), [(chartsite.PAGE, FILES), (chartsite.EMBED, "")])
def test_the_static_chart_is_the_charts_files_not_inline_svg(
        comparison: charts.Chart, mode: str, base: str) -> None:
    """A page and an embed page show the chart's SVG files (issue 47: each inlined what
    ``chart*.svg`` hold): a light and a dark picture, each narrow on phones, lazy, with the
    chart's title, described by the caption, and the file's size (no layout shift while it
    loads)."""
    site = "https://example.org/tn/"
    if mode == chartsite.PAGE:
        html = chartsite.render_figure(comparison, root="../", site_url=site)
    else:
        html = chartsite.render_embed_page(comparison, site)
    fallback = html.split('<div class="tn-chart__fallback"', 1)[1].split("</div>", 1)[0]
    assert "<svg" not in fallback and 'class="tn-svg' not in html
    label = chartsvg.label_id(comparison, chartsite.CAPTION)
    height = chartsvg.file_box(comparison, site, "wide")[1]
    for theme, suffix in (("light", ""), ("dark", "-dark")):
        assert (f'<picture class="tn-chart__pic tn-chart__pic--{theme}">'
                f'<source media="(max-width: 600px)" srcset="{base}chart-narrow{suffix}.svg">'
                f'<img src="{base}chart{suffix}.svg" width="720" height="{height:g}" '
                f'alt="{escape(comparison.title)}" aria-describedby="{label}-d" '
                'loading="lazy" decoding="async"></picture>') in fallback
    assert f'<span class="tn-chart__desc" id="{label}-d">' in html  # it describes them


def test_each_chart_svg_is_drawn_once_for_its_page_embed_page_and_files(
        comparison: charts.Chart, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page and the embed page draw no SVG: only the four files do (issue 47: the page's
    two and the embed page's two were drawn again beside them)."""
    drawn: list[tuple[str, str | None]] = []
    parts = chartsvg._chart_parts

    def counted(chart: charts.Chart, layout: str, ident: str, theme: str | None,
                *args: object, **kwargs: object) -> tuple[float, float, str]:
        drawn.append((layout, theme))
        return parts(chart, layout, ident, theme, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chartsvg, "_chart_parts", counted)
    chartsvg.chart_svg.cache_clear()
    chartsvg.standalone_svg.cache_clear()
    site = "https://example.org/tn/"
    chartsite.render_figure(comparison, root="../", site_url=site)
    chartsite.render_embed_page(comparison, site)
    for variant in share.VARIANTS:
        chartsvg.standalone_svg(comparison, site, variant.theme, variant.layout)
    assert sorted(drawn) == sorted((v.layout, v.theme) for v in share.VARIANTS)


@pytest.mark.parametrize("layout", ["wide", "narrow"])
def test_the_file_box_is_where_the_file_draws_the_chart(comparison: charts.Chart,
                                                        layout: str) -> None:
    """A page crops the chart's file to its drawing with ``file_box``: the drawing starts at
    its top and the file is its total height."""
    top, total = chartsvg.file_box(comparison, "https://example.org/tn/", layout)
    text = chartsvg.standalone_svg(comparison, "https://example.org/tn/", "light", layout)
    assert f'height="{total:g}"' in text.split(">", 1)[0]
    assert f'transform="translate(0 {top:g})"' in text


@pytest.mark.parametrize("layout", ["wide", "narrow"])
def test_an_embed_crops_the_legend_just_above_its_first_curve(comparison: charts.Chart,
                                                              layout: str) -> None:
    """``data-tn-legend`` (charts-frame.js crops the static chart there in a short frame) is
    16 px above the first legend line, on whatever row the legend's wrapping put it."""
    first = ET.fromstring(chartsvg.chart_svg(comparison, layout=layout)).find(
        ".//{http://www.w3.org/2000/svg}g[@class='tn-svg__legend']/{http://www.w3.org/2000/svg}line")
    assert first is not None
    assert chartsvg.legend_top(comparison, layout) == float(first.get("y1", "")) - 16
    html = chartsite.render_embed_page(comparison, "")
    tops = " ".join(f"{chartsvg.legend_top(comparison, name):g}" for name in chartsvg.LAYOUTS)
    assert f'data-tn-legend="{tops}"' in html
