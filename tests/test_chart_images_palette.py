"""Chart images are stored as small palette PNGs (``charts.pngpalette``, issue 47): the image's
flat colours exactly, at most 16 entries (4 bits a pixel) for a chart with few colours: its flat
colours and ``EDGE_ENTRIES`` edge shades, at least ``PALETTE_COLOURS``; more entries rather than
a wrong colour when a chart has many."""

from __future__ import annotations

import io

import pytest
from helpers_charts import (  # noqa: F401  (the fixtures: catalog, grpo)
    fitted_catalog_fixture,
    fitted_grpo_fixture,
)
from PIL import Image

from tinkernomics.site.charts import images, pngpalette, raster, share
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts.svg import standalone_svg


def _colours(png: bytes) -> set[tuple[int, int, int]]:
    with Image.open(io.BytesIO(png)) as image:
        return {rgb for _, rgb in image.convert("RGB").getcolors(maxcolors=1 << 16)}


@pytest.mark.parametrize("variant", share.VARIANTS, ids=lambda v: v.stem)
def test_a_one_curve_chart_is_a_few_exact_colours_at_4_bits(grpo: charts.Chart,
                                                          variant: share.Variant) -> None:
    svg_text = standalone_svg(grpo, "https://example.org/", variant.theme, variant.layout)
    rgb = raster.rasterise(svg_text, variant.width).convert("RGB")
    png = images.render_png(svg_text, variant.width)
    assert png[24] == 4 and png[25] == 3  # IHDR: bit depth 4, indexed colour
    kept = _colours(png)
    pixels = rgb.width * rgb.height
    flat = {c for n, c in rgb.getcolors(pixels) if n >= pixels * pngpalette.FLAT_SHARE}
    assert flat and flat <= kept  # background, ink, grid, axis and curve: exact
    assert len(kept) <= max(images.PALETTE_COLOURS, len(flat) + pngpalette.EDGE_ENTRIES)


def test_many_flat_colours_get_more_entries_not_wrong_colours() -> None:
    stripes = [(i * 12, 255 - i * 12, (i * 37) % 256) for i in range(20)]
    image = Image.new("RGB", (200, 20 * 10), (255, 255, 255))
    for i, colour in enumerate(stripes):
        image.paste(colour, (0, i * 10, 200, i * 10 + 10))
    png = pngpalette.palette_png(image)
    assert _colours(png) == set(stripes)
    assert png[24] == 8


def test_the_palette_is_deterministic(grpo: charts.Chart) -> None:
    svg_text = standalone_svg(grpo, "https://example.org/")
    assert images.render_png(svg_text, 400) == images.render_png(svg_text, 400)


@pytest.mark.parametrize(("colours", "bits"), [(2, 1), (3, 2), (4, 2), (9, 4), (16, 4), (17, 8)])
def test_the_png_writer_packs_each_palette_size_at_its_bit_depth_losslessly(
        colours: int, bits: int) -> None:
    """``png_file`` (libdeflate) writes the pixels Pillow's own writer would, at the fewest bits
    a pixel; an odd width checks the packing at each row's end."""
    palette = [value for i in range(colours) for value in (i * 13 % 256, 255 - i * 7, i * 29 % 256)]
    indices = Image.new("P", (37, 11))
    indices.putdata([(x * 3 + y * 5) % colours for y in range(11) for x in range(37)])
    png = pngpalette.png_file(indices, palette)
    assert png[24] == bits and png[25] == 3
    indices.putpalette(palette)
    with Image.open(io.BytesIO(png)) as written:
        assert written.convert("RGB").tobytes() == indices.convert("RGB").tobytes()
