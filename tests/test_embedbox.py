"""The "Embed this chart" box as the page ships it (``embedbox``): the chart's facts once, as
inert JSON, and the plain embed address for a reader without JavaScript; the snippets
themselves are written by charts.js (tests/test_embedbox_browser.py checks them)."""

from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re

import pytest
from helpers_charts import fitted_catalog

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import embed, embedbox
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


def _facts(html: str) -> dict:
    text = _box(html).split('<template class="tn-chart__box">', 1)[1].split("</template>")[0]
    return json.loads(text)


def test_the_box_ships_facts_once_and_no_snippet(comparison: charts.Chart) -> None:
    html = chartsite.render_figure(comparison, root="../", site_url=SITE)
    box = _box(html)
    assert "<textarea" not in box and "data-tn-image-themes" not in box
    assert _facts(html) == embedbox.box_data(comparison, SITE, SITE)
    assert len(box.encode()) < 4000  # was 10 KB and more with every snippet written out


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
    assert _facts(html)["title"] == hostile.title
