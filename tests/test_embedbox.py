"""The "Embed this chart" box as the page ships it (``embedbox``): the plain embed address for a
reader without JavaScript; the chart's facts are in its spec.json, once, and the snippets
themselves are written by charts.js (tests/test_embedbox_browser.py checks them)."""

from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re

import pytest
from helpers_charts import fitted_catalog

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import embed, embedbox, files
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import spec as charts

SITE = "https://example.org/tn/"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return fitted_catalog(tmp_path_factory.mktemp("box"))


@pytest.fixture(scope="module")
def comparison(catalog: Catalog) -> charts.Chart:
    return charts.build_chart(catalog, charts.COMPARISON_ID)


def _box(html: str) -> str:
    return html.split('<details class="tn-chart__embed"', 1)[1].split("</details>", 1)[0]


def _facts(chart: charts.Chart, site_url: str) -> dict:
    return json.loads(files.spec_file_text(chart, site_url))[files.BOX_KEY]


def test_the_box_ships_no_facts_and_no_snippet(comparison: charts.Chart) -> None:
    """The facts are in the chart's spec.json, fetched when the box opens (issue 47: 2.3 KB
    of JSON in every page with a chart)."""
    html = chartsite.render_figure(comparison, root="../", site_url=SITE)
    box = _box(html)
    assert "<textarea" not in box and "<template" not in box
    assert len(box.encode()) < 1000  # was 10 KB and more with every snippet written out
    assert _facts(comparison, SITE) == embedbox.box_data(comparison, SITE, SITE)


def test_without_a_site_url_the_file_s_addresses_are_relative_to_it(
        comparison: charts.Chart) -> None:
    facts = _facts(comparison, "")
    assert facts["base"] == "../../"  # embed/<id>/ to the root; charts.js makes it absolute
    assert facts["page"] == comparison.page
    assert facts["sources"] == [s.title for s in comparison.sources]  # charts.js cites them
    assert "cite" not in facts and "bibtex" not in facts and "caption" not in facts


def test_without_script_the_box_gives_the_embed_address(comparison: charts.Chart) -> None:
    html = chartsite.render_figure(comparison, root="../", site_url="")
    address = htmllib.escape(embed.embed_src(comparison, "../"))
    assert f'<a href="{address}">{address}</a>' in _box(html)


def test_the_height_terms_are_the_formula_s(comparison: charts.Chart) -> None:
    css = embed.height_css(comparison)
    terms = embed.secant_terms(comparison, embed.NARROW_NODES) + embed.secant_terms(
        comparison, embed.WIDE_NODES)
    found = re.findall(r"(-?\d+)px \+ (-?[\d.]+) \* ", css)
    assert [list(t) for t in found] == terms


def test_catalog_text_stays_inert_in_the_facts(comparison: charts.Chart) -> None:
    hostile = dataclasses.replace(comparison, title='</template><script>alert("x")</script>&')
    html = chartsite.render_figure(hostile, root="../", site_url=SITE)
    assert "<script>" not in _box(html)
    assert _facts(hostile, SITE)["title"] == hostile.title
