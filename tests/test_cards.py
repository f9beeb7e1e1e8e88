"""Link-preview cards read at preview size (issue 32): a network shows the 1200x630 card about
500 px wide, so in card pixels the title is at least 48 px (20 px shown) and every other text
at least 24 px (10 px shown), the plot spans most of the card's width with few tick labels, and
catalog text (a long or hostile name) is cut to fit, never run off the card. Built from the
fitted fixture catalog (no site build)."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from helpers_charts import (  # noqa: F401  (the fixtures: catalog, grpo)
    fitted_catalog_fixture,
    fitted_grpo_fixture,
)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import images, raster
from tinkernomics.site.charts import spec as charts

NS = "{http://www.w3.org/2000/svg}"
PREVIEW_PX = 500
TITLE_MIN_PX = 48
TEXT_MIN_PX = 24


def _texts(svg_text: str) -> Iterator[tuple[str, float, ET.Element]]:
    """(text, font size in px, element) of every ``<text>``, the size inherited if not its own."""

    def walk(element: ET.Element, size: str | None) -> Iterator[tuple[str, float, ET.Element]]:
        size = element.get("font-size", size)
        if element.tag == f"{NS}text":
            assert size is not None, "a text without a font size"
            yield "".join(element.itertext()), float(size.removesuffix("px")), element
        for child in element:
            yield from walk(child, size)

    return walk(ET.fromstring(svg_text), None)


@pytest.fixture(scope="module", name="comparison")
def comparison_fixture(catalog: Catalog) -> charts.Chart:
    return charts.build_chart(catalog, charts.COMPARISON_ID, date="2026-11-30")


def _cards(grpo: charts.Chart, comparison: charts.Chart) -> dict[str, str]:
    url = "https://example.org/tn/"
    return {"chart": images.card_svg(grpo, url), "comparison": images.card_svg(comparison, url),
            "site": images.site_card_svg(comparison, "The economics of RL post-training", url)}


def test_card_text_reads_at_preview_size(grpo: charts.Chart, comparison: charts.Chart) -> None:
    for name, card in _cards(grpo, comparison).items():
        texts = list(_texts(card))
        title, *rest = texts
        assert title[0] in (grpo.title, comparison.title, charts.PUBLISHER)
        assert title[1] * PREVIEW_PX / images.CARD_WIDTH_PX >= 20 - 0.01, name
        assert title[1] >= TITLE_MIN_PX, name
        small = [(text, size) for text, size, _ in rest if size < TEXT_MIN_PX]
        assert not small, (name, small)
        shown = {text for text, _, _ in rest}
        assert {"10k", "GB200-hours (log scale)"} <= shown, name  # ticks and axis title
        assert any("CC BY 4.0" in text and "example.org/tn" in text for text in shown), name


def test_the_chart_card_states_the_finding_and_the_comparison_has_a_legend(
        grpo: charts.Chart, comparison: charts.Chart) -> None:
    cards = _cards(grpo, comparison)
    chart_texts = [text for text, _, _ in _texts(cards["chart"])]
    assert chart_texts[1].startswith("Pass rate rises towards 50%")
    assert "data as of 2026-11-30" in chart_texts
    comparison_texts = {text for text, _, _ in _texts(cards["comparison"])}
    assert {s.label for s in comparison.series} <= comparison_texts


def _plot(card: str) -> ET.Element:
    [group] = [e for e in ET.fromstring(card).iter(f"{NS}g")
               if "tn-svg--card" in e.get("class", "")]
    [frame] = [e for e in group.iter(f"{NS}rect") if e.get("fill") == "none"]
    return frame


def test_the_plot_spans_most_of_the_card_width(grpo: charts.Chart,
                                              comparison: charts.Chart) -> None:
    for name, card in _cards(grpo, comparison).items():
        frame = _plot(card)
        assert float(frame.get("width")) >= 0.8 * images.CARD_WIDTH_PX, name
        assert float(frame.get("height")) >= 0.45 * images.CARD_HEIGHT_PX, name
        curves = [e for e in ET.fromstring(card).iter(f"{NS}polyline")]
        xs = [float(p.split(",")[0]) for e in curves for p in e.get("points").split()]
        assert max(xs) - min(xs) >= 0.8 * images.CARD_WIDTH_PX, name
        assert {float(e.get("stroke-width")) for e in curves} >= {6.0}, name  # thick lines


def test_the_card_labels_few_ticks(grpo: charts.Chart) -> None:
    """At most 5 reward labels and 6 compute labels, even on a chart spanning many decades."""
    wide = dataclasses.replace(grpo, x_low=0.01, x_high=1e9, y_high=1.0)
    texts = [text for text, _, _ in _texts(images.card_svg(wide))]
    assert len([t for t in texts if t.endswith("%") and t[:-1].isdigit()]) <= 5
    compute = [t for t in texts if t in {charts.short_number(10.0**k) for k in range(-2, 10)}]
    assert 3 <= len(compute) <= 6, compute


def test_long_and_hostile_catalog_text_is_cut_to_fit_and_escaped(
        comparison: charts.Chart) -> None:
    name = "<script>alert(1)</script> " + "Extremely Long Algorithm Name " * 8
    series = tuple(dataclasses.replace(s, name=name + s.name) for s in comparison.series)
    chart = dataclasses.replace(comparison, title="Title " + name, series=series)
    card = images.card_svg(chart)
    assert "<script>" not in card
    prepared = raster._prepared(card)[0]
    drawn = [e for e in ET.fromstring(prepared).iter(f"{NS}text")]
    # ThorVG draws an entity as its characters ('&lt;' as 4 glyphs): look-alikes instead
    assert not [e for e in drawn if set("<>&") & set("".join(e.itertext()))]
    assert "‹script›alert(1)‹/script›" in "".join("".join(e.itertext()) for e in drawn)
    texts = [e for e in drawn if e.get("transform") is None]  # the rotated axis title
    cut = 0
    for element in texts:
        text = "".join(element.itertext())
        size, x = float(element.get("font-size")), float(element.get("x"))
        right = x + raster.text_width(element.get("font-family"), size, text)
        assert x >= 0 and right <= images.CARD_WIDTH_PX - 40, (text, x, right)
        if "Extremely" in text:
            assert text.endswith("…")
            cut += 1
    assert cut == 2 + len(series) and len(texts) > 10  # title, subtitle, each legend key
    legend = [e for e in texts if "Extremely" in "".join(e.itertext())][2:]
    assert len({e.get("y") for e in legend}) <= (len(series) + 1) // 2  # two keys a row


def test_the_cards_are_1200x630_pngs(grpo: charts.Chart, comparison: charts.Chart) -> None:
    cache = images.ImageCache()
    for card in _cards(grpo, comparison).values():
        assert images.png_size(cache.png(images.svg_job(card, images.CARD_WIDTH_PX))) == (1200, 630)
