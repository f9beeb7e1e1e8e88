"""Rasterise the image SVGs with ThorVG (pipeline step 6, output; used by ``charts.images``).

ThorVG (the ``thorvg-python`` wheel: a ctypes binding that ships ``libthorvg``, no system
libraries) draws our chart images, but its SVG loader reads less of SVG than a browser. The image
SVGs ``charts.svg`` writes already carry presentation attributes (no ``<style>``: ThorVG ignores
it, so one is an error here rather than an unstyled image); ``rewrite`` resolves the rest of what
ThorVG reads differently, without changing the downloadable file (only the rasteriser's input):

- **Fonts.** ThorVG picks a font by family name (the TTF's file stem) and ignores
  ``font-weight``: each text gets ``Roboto-Regular``, ``-Medium`` or ``-Bold`` by CSS font
  matching over those three weights (600 draws bold, as resvg drew it).
- **text-anchor.** ThorVG starts every text at ``x``; end and middle texts are moved left by
  their advance width (Pillow's FreeType at the font's design size, no kerning: ThorVG does not
  kern either).
- **Characters.** ThorVG draws a text's bytes as they are, entities included (``&lt;`` is
  four glyphs): ``<``, ``>`` and ``&`` in catalog text are drawn as ``‹``, ``›`` and ``+``,
  which need no escaping, and measured as such (``text_width``).
- **Baseline.** ThorVG draws a text's baseline 0.072 em above ``y`` (measured, the same for the
  three faces); texts are moved down by that.

Fonts and the engine are loaded once per process (``_engine``) and shared by the image worker
threads, which draw one image at a time (``_THORVG``); images are drawn on a white canvas
(opaque, so the premultiplied buffer is the RGB image).
"""

from __future__ import annotations

import ctypes
import math
import threading
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import thorvg_python
    from PIL import Image, ImageFont

REWRITE_VERSION = 2
"""Part of the image cache key: bump it when ``rewrite`` changes what is drawn."""
DRAWABLE = str.maketrans({"<": "‹", ">": "›", "&": "+"})
"""Characters ThorVG would draw as entities, as look-alikes that need no escaping."""
FACES = {400: ("Roboto-Regular", "Roboto"), 500: ("Roboto-Medium", "RobotoMedium"),
         700: ("Roboto-Bold", "RobotoBold")}
"""CSS weight -> (ThorVG family name, ``font_roboto`` attribute holding the TTF path)."""
BASELINE_SHIFT_EM = 0.072
"""How far above ``y`` ThorVG 1.1 draws a text's baseline, in em (measured on Roboto)."""
MEASURE_PX = 2048
"""Texts are measured at Roboto's units per em, so advances are the unhinted design widths."""
SVG_NS = "http://www.w3.org/2000/svg"
_INHERITED = ("font-family", "font-size", "font-weight", "text-anchor")
_LOCK = threading.Lock()
"""Guards the first load of the engine and the measuring fonts (worker threads share them)."""
_THORVG = threading.Lock()
"""Held while ThorVG draws: one image at a time per process. ThorVG is not safe to use from two
threads at once (the loaded fonts' glyphs are read in lazily, shared by every canvas: drawn
side by side on a cold start, an image came out different, and once the process crashed), and
the binding sets some C functions' ``argtypes`` for each call from the image's size. The rest
of an image, the SVG rewrite and Pillow's palette and compression, runs outside it."""


def face(weight: str) -> str:
    """The Roboto face CSS font matching picks for ``weight`` among the three loaded."""
    wanted = {"normal": 400, "bold": 700}.get(weight) or float(weight)
    if wanted in FACES:
        return FACES[int(wanted)][0]
    have = sorted(FACES)
    if wanted > 500:  # heavier first, then lighter (CSS Fonts 4, section 5.2)
        pick = next((w for w in have if w >= wanted), have[-1])
    else:
        pick = next((w for w in reversed(have) if w <= wanted), have[0])
    return FACES[pick][0]


@cache
def _measure_font(family: str) -> ImageFont.FreeTypeFont:
    from PIL import ImageFont

    path = dict(FACES.values())[family]
    return ImageFont.truetype(_font_path(path), MEASURE_PX, layout_engine=ImageFont.Layout.BASIC)


def text_width(family: str, size: float, text: str) -> float:
    """Advance width of ``text`` in ``family`` at ``size`` px, as ThorVG lays it out (one
    thread at a time: a FreeType face is not safe to use from two at once)."""
    with _LOCK:
        return _measure_font(family).getlength(text.translate(DRAWABLE)) * size / MEASURE_PX


def _font_path(attribute: str) -> str:
    import font_roboto

    return str(getattr(font_roboto, attribute))


def _number(value: str) -> float:
    return float(value.strip().removesuffix("px"))


def _place_text(element: ET.Element, props: dict[str, str]) -> None:
    """Give a ``<text>`` the face, size and start position ThorVG needs."""
    family = face(props.get("font-weight", "400"))
    size = _number(props.get("font-size", "16"))
    anchor = props.get("text-anchor", "start")
    for name in ("font-weight", "text-anchor"):
        element.attrib.pop(name, None)
    element.set("font-family", family)
    element.set("font-size", f"{size:g}")
    x, y = _number(element.get("x", "0")), _number(element.get("y", "0"))
    text = "".join(element.itertext())
    element.text = text.translate(DRAWABLE)
    for child in list(element):
        element.remove(child)
    if anchor in ("middle", "end"):
        shift = text_width(family, size, text)
        x -= shift if anchor == "end" else shift / 2
    elif anchor != "start":
        raise ValueError(f"unsupported text-anchor {anchor!r}")
    element.set("x", f"{x:.2f}")
    element.set("y", f"{y + BASELINE_SHIFT_EM * size:.2f}")


def _resolve(element: ET.Element, inherited: dict[str, str]) -> None:
    props = inherited | {k: v for k in _INHERITED if (v := element.get(k)) is not None}
    if element.tag == "text":
        _place_text(element, props)
    for child in element:
        _resolve(child, props)


def _tree(svg_text: str) -> ET.Element:
    root = ET.fromstring(svg_text)
    for element in root.iter():
        if element.tag.startswith(f"{{{SVG_NS}}}"):
            element.tag = element.tag[len(SVG_NS) + 2:]
        if element.tag == "style":
            raise ValueError("an image SVG carries presentation attributes, not a <style> "
                             "(ThorVG ignores it): write them in charts/svg.py")
    _resolve(root, {})
    return root


def _prepared(svg_text: str) -> tuple[str, float, float]:
    """(rewritten SVG, view box width, view box height)."""
    root = _tree(svg_text)
    root.set("xmlns", SVG_NS)
    return ET.tostring(root, encoding="unicode"), *_view_box(root)


def _view_box(root: ET.Element) -> tuple[float, float]:
    box = root.get("viewBox")
    if box:
        view_w, view_h = (float(v) for v in box.replace(",", " ").split()[2:])
        return view_w, view_h
    return _number(root.get("width", "0")), _number(root.get("height", "0"))


def size(svg_text: str, width: int) -> tuple[int, int]:
    """The (width, height) in px ``rasterise`` draws the SVG at, without drawing it."""
    view_w, view_h = _view_box(ET.fromstring(svg_text))
    return width, math.ceil(view_h * width / view_w - 1e-6)



def _engine() -> thorvg_python.Engine:
    with _LOCK:  # the first image's threads would each load it
        return _loaded_engine()


@cache
def _loaded_engine() -> thorvg_python.Engine:
    """The process's ThorVG engine (none of ThorVG's own task threads: each image worker thread
    draws its own canvas), with the three Roboto faces loaded."""
    import thorvg_python as tvg

    engine = tvg.Engine(threads=0)
    loader = tvg.Text(engine)
    for family, attribute in FACES.values():
        path = _font_path(attribute)
        # ThorVG names a loaded font after its file; the rewrite writes these names
        if Path(path).stem != family or loader.font_load(path) != tvg.Result.SUCCESS:
            raise RuntimeError(f"ThorVG could not load {family} from {path}")
    return engine


def rasterise(svg_text: str, width: int) -> Image.Image:
    """The SVG drawn ``width`` px wide (height from its aspect ratio, rounded up, as resvg
    sized it) on white, as an RGB Pillow image."""
    import thorvg_python as tvg
    from PIL import Image

    text, view_w, view_h = _prepared(svg_text)
    exact_h = view_h * width / view_w
    height = math.ceil(exact_h - 1e-6)  # as ``size`` says
    engine = _engine()
    with _THORVG:
        canvas = tvg.SwCanvas(engine)
        try:
            canvas.set_target(width, height)
            buffer = canvas.buffer_arr
            if buffer is None:
                raise ValueError("ThorVG gave the canvas no buffer")
            ctypes.memset(buffer, 0xFF, width * height * 4)  # white, opaque
            picture = tvg.Picture(engine)
            if picture.load_data(text.encode() + b"\0", "svg", None, True) != tvg.Result.SUCCESS:
                raise ValueError("ThorVG could not read the SVG")
            picture.set_size(width, exact_h)
            canvas.add(picture)
            canvas.update()
            canvas.draw(False)  # keep the white background
            canvas.sync()
            pixels = memoryview(buffer).cast("B")
            return Image.frombytes("RGB", (width, height), pixels, "raw", "RGBX")
        finally:
            canvas.destroy()
