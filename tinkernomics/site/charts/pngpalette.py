"""Chart images as small palette PNGs (pipeline step 6, output; used by ``charts.images``).

A chart image is flat colours (background, ink, grid, axis, each curve) and the anti-aliased
edges between them: a few thousand colours, nearly all of them edges. ``palette_png`` keeps the
image's most frequent exact colours and draws every other one as the nearest of them, without
dithering, so flat areas stay flat and every flat colour stays exact; up to 16 entries are stored
4 bits a pixel. Pillow writes it, then oxipng (the ``pyoxipng`` wheel: Rust, no system
libraries) recompresses the same pixels with libdeflate and its own palette order
(``recompress``). Line charts lose nothing visible (checked on the light, dark, narrow and
comparison images). Bytes matter at 1,000 charts of five images each (issue 47: the images under
50 MB): a single-curve chart's 1200 px image went from 21.7 KB (16 entries, Pillow's zlib) to
17.5 KB, its 800 px phone image from 27.4 to 19.3 KB.
"""

from __future__ import annotations

import io
from typing import cast

from PIL import Image

PALETTE_COLOURS = 8
"""A single-curve chart's flat colours (background, ink, grid, axis, the curve) and the most
common of their anti-aliased edges fit in 8 entries, stored 4 bits a pixel like 16 but fewer
distinct values, so deflate finds longer matches: the phone image a fifth smaller than with 16
at no visible cost (text edges keep three greys). The entries are the image's most frequent
exact colours, so a flat area or a one-pixel grid line keeps its colour (an octree palette of
16 or 32 loses the comparison chart's grid lines); a chart with more flat colours gets more
entries (``palette_size``)."""
FLAT_SHARE = 0.002
"""A colour on at least this share of the pixels is a flat colour of the chart: it always gets
an entry of its own, so a chart with many curves gets a larger palette instead of a wrong
colour (``palette_size``)."""
EDGE_ENTRIES = 4
"""Entries left for anti-aliased edges beside the flat colours."""
OXIPNG_LEVEL = 2
"""oxipng's preset: 2 gets nearly all that 6 gets (within 1%) in a tenth of the time."""


def palette_size(counts: list[tuple[int, tuple[int, int, int]]], pixels: int) -> int:
    """``PALETTE_COLOURS``, or more when the chart's flat colours and ``EDGE_ENTRIES`` need it
    (at most 256)."""
    flat = sum(1 for count, _ in counts if count >= pixels * FLAT_SHARE)
    return min(256, max(PALETTE_COLOURS, flat + EDGE_ENTRIES))


CELL_SHIFT = 2
"""Pillow maps a colour to a palette entry through a cache of 4x4x4 cells (each channel's top
six bits): every colour of a cell gets the entry nearest the cell's lowest corner, so white
would be drawn as (250, 251, 251) or (253, 253, 253). ``palette_png`` therefore maps onto
proxies, each palette colour moved to its cell's corner (one colour a cell: ``common_colours``),
and then names the exact colours: a pixel of a palette colour keeps it exactly."""


def common_colours(rgb: Image.Image) -> list[tuple[int, int, int]]:
    """The image's most frequent colours, one a cache cell (``CELL_SHIFT``), as many as
    ``palette_size`` asks."""
    pixels = rgb.width * rgb.height
    # An RGB image's colours are (count, (r, g, b)); Pillow's stubs say object.
    found = cast(list[tuple[int, tuple[int, int, int]]], rgb.getcolors(pixels) or [])
    counts = sorted(found, key=lambda c: (-c[0], c[1]))
    want, cells = palette_size(counts, pixels), set()
    chosen: list[tuple[int, int, int]] = []
    for _, colour in counts:
        cell = tuple(v >> CELL_SHIFT for v in colour)
        if cell not in cells:
            cells.add(cell)
            chosen.append(colour)
            if len(chosen) == want:
                break
    return chosen


def palette_png(image: Image.Image, optimize: bool = True) -> bytes:
    """An RGB image as a palette PNG of its most frequent exact colours (``common_colours``;
    4 bits a pixel up to 16), every other colour drawn as (about) the nearest of them, no
    dithering; the mapping is Pillow's, in C (``CELL_SHIFT``); ``optimize``: recompressed by
    oxipng (``recompress``), else Pillow's default zlib. Deterministic."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    exact = [value for colour in common_colours(rgb) for value in colour]
    proxies = Image.new("P", (1, 1))
    proxies.putpalette([value >> CELL_SHIFT << CELL_SHIFT for value in exact])
    quantised = rgb.quantize(palette=proxies, dither=Image.Dither.NONE)
    quantised.putpalette(exact)
    out = io.BytesIO()
    if not optimize:
        quantised.save(out, "PNG")
        return out.getvalue()
    quantised.save(out, "PNG", compress_level=1)  # oxipng deflates it again
    return recompress(out.getvalue())


def recompress(png: bytes) -> bytes:
    """The same pixels in fewer bytes: oxipng (``OXIPNG_LEVEL``, rows unfiltered, which is what
    its filter search picks for these palette images anyway; metadata stripped: Pillow writes
    none that matters). Deterministic for a given oxipng version (part of the image cache key)."""
    import oxipng

    return oxipng.optimize_from_memory(png, level=OXIPNG_LEVEL, filter=[oxipng.RowFilter.NoOp],
                                       strip=oxipng.StripChunks.safe())
