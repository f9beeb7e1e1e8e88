"""Chart images as small palette PNGs (pipeline step 6, output; used by ``charts.images``).

A chart image is flat colours (background, ink, grid, axis, each curve) and the anti-aliased
edges between them: a few thousand colours, nearly all of them edges. ``palette_png`` keeps the
image's most frequent exact colours and draws every other one as the nearest of them, without
dithering, so flat areas stay flat and every flat colour stays exact; up to 16 entries are stored
4 bits a pixel. The file is written here (``png_file``: signature, header, palette, one data
chunk, end), its rows unfiltered and compressed by libdeflate (``DEFLATE_LEVEL``; the
``deflate`` wheel, which releases the GIL, so the image threads compress beside the build's
pages). Line charts lose nothing visible (checked on the light, dark, narrow and comparison
images). Bytes matter at 1,000 charts of five images each (issue 47: the images under 50 MB): a
single-curve chart's 1200 px image went from 21.7 KB (16 entries, Pillow's zlib level 9) to
17.5 KB, its 800 px phone image from 27.4 to 19.3 KB; oxipng, tried too, gave about as much and
holds the GIL.
"""

from __future__ import annotations

import io
import struct
import zlib
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
DEFLATE_LEVEL = 11
"""libdeflate's level: 11 is 3.5% smaller than 10 for 2.5 times its time (about 0.08 s an
image), 12 another 2% for 1.6 times more; paid once (images are cached), but every cold build
and test that draws images pays it."""


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
    dithering; the mapping is Pillow's, in C (``CELL_SHIFT``); ``optimize``: written by
    ``png_file`` (libdeflate), else by Pillow. Deterministic."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    colours = common_colours(rgb)
    exact = [value for colour in colours for value in colour]
    proxies = Image.new("P", (1, 1))
    proxies.putpalette([value >> CELL_SHIFT << CELL_SHIFT for value in exact])
    quantised = rgb.quantize(palette=proxies, dither=Image.Dither.NONE)
    if optimize:
        return png_file(quantised, exact)
    quantised.putpalette(exact)
    out = io.BytesIO()
    quantised.save(out, "PNG")
    return out.getvalue()


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PACKED = {1: "P;1", 2: "P;2", 4: "P;4", 8: "P"}
"""Bits a pixel -> Pillow's raw packer for palette indices."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bit_depth(entries: int) -> int:
    """The fewest bits a pixel (1, 2, 4 or 8) that index ``entries`` palette colours."""
    return next(bits for bits in (1, 2, 4, 8) if entries <= 1 << bits)


def png_file(indices: Image.Image, palette: list[int]) -> bytes:
    """A palette PNG of ``indices`` (a "P" image) with ``palette`` (flat RGB values): rows
    packed at ``bit_depth``, each with filter type 0 (none: what suits few flat colours), one
    IDAT compressed by libdeflate at ``DEFLATE_LEVEL``. Deterministic."""
    import deflate

    width, height = indices.size
    bits = bit_depth(len(palette) // 3)
    packed = indices.tobytes("raw", _PACKED[bits])
    stride = (width * bits + 7) // 8
    rows = b"".join(b"\0" + packed[y * stride:(y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, bits, 3, 0, 0, 0)  # indexed colour
    return (PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"PLTE", bytes(palette))
            + _chunk(b"IDAT", deflate.zlib_compress(rows, DEFLATE_LEVEL)) + _chunk(b"IEND", b""))
