"""Chart images, preview cards, oEmbed, colours and the comparison's featured selection, built
from a small catalog (no site build): PNG sizes, deterministic rendering and its cache,
contrast of every chart colour on both backgrounds, the embed height estimate, and the
comparison drawing a readable featured set with the rest on request."""

from __future__ import annotations

import errno
import io
import json
import os
import time
from pathlib import Path

import jsonschema
import pytest
from helpers_charts import (  # noqa: F401  (the fixtures: catalog, grpo)
    fitted_catalog_fixture,
    fitted_grpo_fixture,
    many_fits_catalog,
)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import embed, imagejobs, images, plotlyspec, share, svg
from tinkernomics.site.charts import spec as charts

OEMBED_RICH_SCHEMA = {
    "type": "object",
    "required": ["version", "type", "html", "width", "height", "title", "provider_name",
                 "provider_url", "thumbnail_url", "thumbnail_width", "thumbnail_height"],
    "properties": {
        "version": {"const": "1.0"}, "type": {"const": "rich"},
        "html": {"type": "string", "pattern": "^<div [^>]*><iframe "},
        "width": {"type": "integer", "minimum": 1}, "height": {"type": "integer", "minimum": 1},
        "title": {"type": "string", "minLength": 1},
        "provider_url": {"type": "string", "pattern": "^https?://"},
        "thumbnail_url": {"type": "string", "pattern": "^https?://.*/chart\\.png$"},
        "thumbnail_width": {"type": "integer"}, "thumbnail_height": {"type": "integer"},
    },
}
"""oEmbed 1.0 (https://oembed.com section 2.3.4) for type ``rich``; the thumbnail trio together."""


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours, computed here independently."""

    def luminance(colour: str) -> float:
        rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("colour", charts.PALETTE)
def test_every_chart_colour_has_3_to_1_contrast(colour: str, theme: str) -> None:
    assert contrast(colour, charts.THEMES[theme]["paper_bgcolor"]) >= 3.0


def test_contrast_helper_matches_a_known_pair() -> None:
    assert contrast("#E69F00", "#ffffff") == pytest.approx(2.25, abs=0.01)  # the old DAPO orange


def test_chart_png_is_1200_wide_and_the_card_1200x630(grpo: charts.Chart) -> None:
    cache, url = images.ImageCache(), "https://example.org/tn/"
    png = cache.png(images.variant_jobs(grpo, url)[0])  # chart.png's job, as a build places it
    width, height = images.png_size(png)
    assert width == 1200 and 800 < height < 1000
    assert images.png_size(cache.png(images.card_job(grpo, url))) == (1200, 630)
    with pytest.raises(ValueError):
        images.png_size(b"GIF89a" + png[6:])


def test_images_are_palette_pngs_that_keep_the_chart_colours(grpo: charts.Chart) -> None:
    from PIL import Image

    png = images.ImageCache().png(images.variant_jobs(grpo, "")[0])
    assert png[25] == 3  # IHDR colour type 3: indexed colour, a palette of at most 256 entries
    with Image.open(io.BytesIO(png)) as image:
        colours = {rgb for _, rgb in image.convert("RGB").getcolors(maxcolors=1 << 16)}
    assert len(colours) <= 16  # 4 bits a pixel: flat colours and a few edge shades
    series = {tuple(int(s.color[i:i + 2], 16) for i in (1, 3, 5)) for s in grpo.series}
    near = [min(sum(abs(a - b) for a, b in zip(c, want, strict=True)) for c in colours)
            for want in series]
    assert max(near) <= 12  # each curve's colour survives quantisation (within a few levels)


def test_png_source_has_title_axes_legend_credit_licence_url_and_date(
        grpo: charts.Chart) -> None:
    from tinkernomics.site.charts.svg import standalone_svg

    text = standalone_svg(grpo, "https://example.org/tn/")
    for expected in (grpo.title, "GB200-hours (log scale)", "Pass rate (reward)",
                     "GRPO", "tinker-nomics", "CC BY 4.0",
                     "https://example.org/tn/algorithms/grpo/", "data as of 2026-11-30"):
        assert expected in text, expected
    assert "var(--" not in text  # literal colours: resvg and image viewers draw them


def test_rendering_is_deterministic_and_cached(grpo: charts.Chart, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    cache = images.ImageCache(tmp_path)
    first = cache.png(images.card_job(grpo, ""))
    assert first == images.render_png(images.card_svg(grpo), images.CARD_WIDTH_PX)
    assert len(list(tmp_path.glob("*.png"))) == 1

    def fail(*_args: object) -> bytes:
        raise AssertionError("rendered again instead of reading the cache")

    monkeypatch.setattr(images, "render_png", fail)
    assert cache.png(images.card_job(grpo, "")) == first


def test_oembed_is_a_valid_rich_response(grpo: charts.Chart) -> None:
    data = embed.oembed(grpo, "https://example.org/tn/", (1200, 894))
    jsonschema.validate(json.loads(json.dumps(data)), OEMBED_RICH_SCHEMA)
    assert data["thumbnail_url"] == "https://example.org/tn/embed/scalerl-grpo/chart.png"
    assert 'src="https://example.org/tn/embed/scalerl-grpo/?theme=auto"' in data["html"]


def test_snippet_holds_without_script(grpo: charts.Chart) -> None:
    snippet = embed.embed_snippet(grpo, "https://example.org/tn/")
    iframe = snippet.split("\n")[0]
    assert 'scrolling="no"' in iframe and "container-type:inline-size" in iframe
    assert "cqw" in iframe and "?theme=auto\"" in iframe
    dark = embed.embed_iframe(grpo, "https://example.org/tn/", "dark")
    assert "?theme=dark#theme=dark" in dark  # the fragment holds the theme with scripts off


def test_embed_height_estimate_grows_with_the_chart_and_switches_layout(
        grpo: charts.Chart) -> None:
    narrow, wide = embed.embed_height(grpo, 360), embed.embed_height(grpo, 768)
    assert narrow > 500 and wide > 500
    assert embed.embed_height(grpo, 960) > embed.embed_height(grpo, 700)
    assert embed.embed_height(grpo, 1200) == embed.embed_height(grpo, 960)  # max width


# --------------------------------------------------------------------------- featured selection


def test_comparison_draws_every_fit_when_there_are_few(catalog: Catalog) -> None:
    chart = charts.build_chart(catalog, charts.COMPARISON_ID)
    assert [s.algorithm_id for s in chart.series] == ["cispo", "dapo", "grpo"]
    assert chart.others == ()


def test_comparison_draws_a_featured_set_and_offers_the_rest(tmp_path: Path) -> None:
    catalog = many_fits_catalog(tmp_path, 40)
    chart = charts.build_chart(catalog, charts.COMPARISON_ID)
    featured = [s.algorithm_id for s in chart.series]
    assert len(featured) == charts.FEATURED_MAX
    assert featured[0] == "cispo"  # the reported fit comes first
    others = [aid for aid, _ in chart.others]
    assert len(featured) + len(others) == len(charts.fitted_algorithms(catalog))
    assert not set(featured) & set(others)
    spec = plotlyspec.plotly_figure(chart)
    assert len(spec["data"]) == 3 * charts.FEATURED_MAX + 1  # the page does not grow with fits
    # An added curve has the same three traces, on the comparison's own axis.
    added = charts.series_for(catalog, others[0], chart.x_low, chart.x_high, chart.factor)
    traces = plotlyspec.series_traces(added, chart)
    assert [t["x"][0] for t in traces[:2]] == [chart.x_low, chart.x_low]
    assert traces[0]["line"]["color"] == charts.color_of(catalog, others[0])


def test_comparison_axis_spans_every_fitted_curve(tmp_path: Path) -> None:
    catalog = many_fits_catalog(tmp_path, 12)
    chart = charts.build_chart(catalog, charts.COMPARISON_ID)
    c_mids = [a.scalerl.C_mid.value for a in charts.fitted_algorithms(catalog).values()]
    assert chart.x_low <= min(c_mids) / 10 and chart.x_high >= max(c_mids) * 10


def test_csv_metadata_header_names_title_page_units_sources_and_licence(
        grpo: charts.Chart) -> None:
    """The CSV's metadata moved to data.json (issue 32: the CSV starts with its header)."""
    from helpers_charts import csv_rows

    from tinkernomics.site.charts import data as chartdata

    text = chartdata.to_csv(grpo, "https://example.org/tn/")
    assert text.splitlines()[0] == ",".join(chartdata.CSV_COLUMNS)
    meta = chartdata.to_json(grpo, "https://example.org/tn/")
    assert meta["title"] == grpo.title
    assert meta["page"] == "https://example.org/tn/algorithms/grpo/"
    params = meta["series"][0]["parameters"]
    assert (params["A"]["value"], params["B"]["value"], params["C_mid"]["value"]) == (
        0.5, 1.8, 4000)
    assert params["R0"]["status"] == "assumed"
    assert meta["csv"]["units"]["reward_percent"].startswith("pass rate in percent")
    assert any(s["id"] == "glennklockwood_h100" and s["url"].startswith("https://")
               for s in meta["sources"])
    assert meta["date"] == "2026-11-30"
    assert meta["licence"]["url"].startswith("https://creativecommons.org/")
    assert len(csv_rows(text)) == charts.CURVE_POINTS  # the table itself is unchanged


def test_prune_deletes_images_unused_for_a_month_and_keeps_those_read(grpo: charts.Chart,
                                                                      tmp_path: Path) -> None:
    cache = images.ImageCache(tmp_path)
    card = cache.png(images.card_job(grpo, ""))
    cache.png(images.variant_jobs(grpo, "")[0])
    month_ago = time.time() - (images.PRUNE_AFTER_DAYS + 1) * 86400
    for path in tmp_path.glob("*.png"):
        os.utime(path, (month_ago, month_ago))
    assert cache.png(images.card_job(grpo, "")) == card  # a build still shows the card
    assert cache.prune() == 1
    assert [p.read_bytes() for p in tmp_path.glob("*.png")] == [card]
    assert images.ImageCache().prune() == 0  # no folder, nothing to do


def test_place_links_the_cached_image_and_never_writes_through_a_link(
        grpo: charts.Chart, tmp_path: Path) -> None:
    """A built PNG is the cache's file (no bytes copied); placing another image at the same
    path replaces the link instead of writing into the cached file."""
    cache = images.ImageCache(tmp_path / "cache")
    chart_job, card_job = imagejobs.jobs(grpo, "")
    dest = tmp_path / "site" / "chart.png"
    dest.parent.mkdir()
    size = cache.place(chart_job, dest)
    assert size == images.png_size(dest.read_bytes()) and size[0] == share.WIDE_PX
    [cached] = (tmp_path / "cache").glob("*.png")
    assert os.path.samefile(dest, cached)
    chart_bytes = cached.read_bytes()
    assert cache.place(card_job, dest) == (1200, 630)
    assert cached.read_bytes() == chart_bytes  # the cached chart is untouched
    assert dest.read_bytes() == images.render_png(card_job.svg(), card_job.width)
    uncached = tmp_path / "site" / "nocache.png"
    assert images.ImageCache().place(chart_job, uncached)[0] == 1200
    assert uncached.read_bytes() == chart_bytes


def test_place_copies_where_a_link_cannot_be_made(grpo: charts.Chart, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(images.os, "link", no_links)
    cache = images.ImageCache(tmp_path / "cache")
    job = imagejobs.jobs(grpo, "")[1]
    dest = tmp_path / "card.png"
    assert cache.place(job, dest) == (1200, 630)
    [cached] = (tmp_path / "cache").glob("*.png")
    assert not os.path.samefile(dest, cached) and dest.read_bytes() == cached.read_bytes()


def test_images_are_compressed_harder_than_pillows_default_with_the_same_pixels(
        grpo: charts.Chart) -> None:
    from PIL import Image

    png = images.ImageCache().png(images.variant_jobs(grpo, "")[0])
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        default = io.BytesIO()
        image.save(default, "PNG")
        with Image.open(io.BytesIO(default.getvalue())) as again:
            assert again.tobytes() == image.tobytes()
            assert again.getpalette() == image.getpalette()
    assert len(png) < 0.95 * len(default.getvalue())


def test_the_image_cache_key_follows_the_png_settings(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    cache = images.ImageCache(tmp_path)
    before = cache._path(images.svg_job("<svg/>", 100))
    images.renderer_version.cache_clear()
    monkeypatch.setattr(images, "PNG_OPTIMIZE", not images.PNG_OPTIMIZE)
    try:
        assert cache._path(images.svg_job("<svg/>", 100)) != before
    finally:
        images.renderer_version.cache_clear()


def test_rasterised_svgs_place_the_chart_as_a_group_not_a_nested_svg(
        grpo: charts.Chart) -> None:
    """resvg draws a nested <svg> through an extra clipped layer (about 40% slower per image):
    the file and the card hold one <svg> element, the chart a <g> (the file's scaled and
    centred; the card's drawn at card scale, its own layout)."""
    for svg_text, group in ((svg.standalone_svg(grpo, "https://example.org/"),
                             '<g font-size="13" transform="translate('),
                            (images.card_svg(grpo, "https://example.org/"),
                             '<g class="tn-svg tn-svg--card"')):
        assert svg_text.count("<svg") == 1
        assert svg_text.count(group) == 1


def test_placed_chart_fits_and_centres_like_xmidymid_meet(grpo: charts.Chart) -> None:
    width, height = svg.LAYOUTS["wide"].width, svg.svg_height(grpo)
    at_size = svg.placed_chart(grpo, (0, 40, width, height))
    assert 'transform="translate(0 40)"' in at_size
    half = svg.placed_chart(grpo, (100, 0, width, height / 2))
    assert f'transform="translate({100 + width / 4:g} 0) scale(0.5)"' in half
