"""The image SVGs and the rewrite that lets ThorVG draw them (``charts.svg``, ``charts.raster``),
checked on the pixels it draws: the image SVGs style every element with presentation attributes
(no ``<style>``, which ThorVG ignores), end and middle texts end or centre on their anchor,
weights pick the Roboto face (the title is bold), texts sit on their baseline, and a ``<style>``
in an image SVG is an error rather than a silently unstyled image."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from helpers_charts import fitted_catalog_fixture, fitted_grpo_fixture  # noqa: F401
from PIL import Image

from tinkernomics.site.charts import images, raster, share, svg
from tinkernomics.site.charts import spec as charts

NS = "{http://www.w3.org/2000/svg}"
LIGHT = charts.THEMES["light"]


def _page(body: str, width: int = 400, height: int = 200) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}"><rect x="0" y="0" width="{width}" '
            f'height="{height}" fill="#ffffff"/>{body}</svg>')


def _ink(image: Image.Image, box: tuple[int, int, int, int] | None = None,
         threshold: int = 128) -> tuple[int, int, int, int]:
    """Bounding box (left, top, right, bottom; right and bottom exclusive) of dark pixels."""
    grey = (image.crop(box) if box else image).convert("L")
    found = grey.point(lambda v: 255 if v < threshold else 0).getbbox()
    assert found is not None, "nothing drawn"
    left, top = box[:2] if box else (0, 0)
    return found[0] + left, found[1] + top, found[2] + left, found[3] + top


def _dark_pixels(image: Image.Image) -> int:
    return sum(image.convert("L").point(lambda v: 255 if v < 128 else 0).histogram()[255:])


def _elements(svg_text: str) -> list[ET.Element]:
    return list(ET.fromstring(svg_text).iter())


def _inherited(svg_text: str, name: str) -> list[str | None]:
    """The value of presentation attribute ``name`` each text gets, from itself or the nearest
    element around it that sets it (SVG inheritance)."""
    found: list[str | None] = []

    def walk(element: ET.Element, value: str | None) -> None:
        value = element.get(name, value)
        if element.tag == f"{NS}text":
            found.append(value)
        for child in element:
            walk(child, value)

    walk(ET.fromstring(svg_text), None)
    return found


def test_the_card_svg_holds_no_style_and_every_text_has_its_paint(grpo: charts.Chart) -> None:
    """The card (charts.cardsvg, a layout of its own) writes its attributes directly."""
    text = images.card_svg(grpo, "https://example.org/")
    assert not [e for e in _elements(text) if e.tag == f"{NS}style"]
    for name in ("fill", "font-family", "font-size"):
        assert None not in _inherited(text, name), f"a text without {name}"


def test_the_image_svg_styles_every_element_with_attributes_and_holds_no_style(
        grpo: charts.Chart) -> None:
    """The file's drawing is the page's, element for element, each class written out as its
    attributes (light theme); the file carries no class or id nothing in it refers to."""
    text = svg.standalone_svg(grpo, "https://example.org/")
    out = _elements(text)
    assert not [e for e in out if e.tag == f"{NS}style"]
    assert not [e for e in out if e.get("class") or e.get("id")]
    [group] = [e for e in out if e.get("font-size") == "13"]
    page = list(ET.fromstring(svg.chart_svg(grpo, styled=False)).iter())[1:]
    drawn = list(group.iter())[1:]
    # the file's own background is behind the drawing: the page's (its third element, after
    # the title and description) is not drawn again
    assert page[2].get("class") == "bg" and drawn[2].tag != f"{NS}rect"
    del page[2]
    assert [e.tag for e in drawn] == [e.tag for e in page]
    want = {  # written out from the page's stylesheet rules (svg._css), light theme
        "grid": {"stroke": LIGHT["xaxis.gridcolor"], "stroke-width": None},
        "axis": {"stroke": LIGHT["xaxis.linecolor"], "stroke-width": None, "fill": "none"},
        "curve": {"fill": "none", "stroke-width": "2.5"},
        "asym": {"fill": None, "stroke-width": "1.2", "stroke-dasharray": "6 4"},
    }  # a property at SVG's initial value (a 1 px stroke; a line has no fill) is not written
    painted = {name: 0 for name in want}
    for on_page, in_file in zip(page, drawn, strict=True):
        for name in on_page.get("class", "").split():
            if name in want:
                assert {k: in_file.get(k) for k in want[name]} == want[name], name
                painted[name] += 1
    assert all(painted.values()), painted
    root = ET.fromstring(text)
    assert root.get("fill") == LIGHT["font.color"] and group.get("font-size") == "13"
    assert root[0].tag == f"{NS}rect" and root[0].get("fill") == LIGHT["paper_bgcolor"]
    for name in ("fill", "font-family", "font-size"):
        assert None not in _inherited(text, name), f"a text without {name}"


def test_the_page_stylesheet_and_the_image_attributes_are_the_same_rules(
        grpo: charts.Chart) -> None:
    """One table (svg.PAINT) writes both: each rule of the page's stylesheet, with the light
    theme's colours, is what an image SVG writes on that class's elements."""
    css = svg._css()
    for var, key in svg.SVG_VARS.items():
        css = css.replace(f"var(--tn-svg-{var})", LIGHT[key])
    for name in ("bg", "grid", "axis", "curve", "asym"):
        attrs = svg.paint(name, "light").removeprefix(" ")
        declarations = ";".join(part.replace('="', ":").rstrip('"')
                                for part in attrs.split('" '))
        assert f".tn-svg .{name}{{{declarations}}}" in css, name


def test_every_text_names_a_loaded_face_and_nothing_thorvg_ignores(grpo: charts.Chart) -> None:
    faces = {family for family, _ in raster.FACES.values()}
    for source in (svg.standalone_svg(grpo), images.card_svg(grpo)):
        texts = [e for e in _elements(raster._prepared(source)[0]) if e.tag == f"{NS}text"]
        assert texts
        for e in texts:
            assert e.get("font-family") in faces
            assert e.get("text-anchor") is None and e.get("font-weight") is None
            assert float(e.get("font-size")) > 0


@pytest.mark.parametrize(("weight", "family"), [
    ("400", "Roboto-Regular"), ("normal", "Roboto-Regular"), ("300", "Roboto-Regular"),
    ("500", "Roboto-Medium"), ("600", "Roboto-Bold"), ("700", "Roboto-Bold"),
    ("bold", "Roboto-Bold"), ("900", "Roboto-Bold")])
def test_weights_pick_the_face_css_font_matching_picks(weight: str, family: str) -> None:
    assert raster.face(weight) == family


@pytest.mark.parametrize("anchor", ["end", "middle", "start"])
def test_anchored_text_ends_or_centres_on_its_anchor(anchor: str) -> None:
    body = (f'<line x1="200" x2="200" y1="0" y2="10" stroke="#000"/>'
            f'<text x="200" y="120" font-family="Roboto" font-size="30" fill="#000" '
            f'text-anchor="{anchor}">HIH 100%</text>')
    left, _, right, _ = _ink(raster.rasterise(_page(body), 400), (0, 60, 400, 200))
    if anchor == "end":
        assert abs(right - 200) <= 2  # the H's side bearing is about 2 px at this size
    elif anchor == "middle":
        assert abs((left + right) / 2 - 200) <= 2
    else:
        assert abs(left - 200) <= 3


def test_y_tick_labels_are_right_aligned_to_the_axis(grpo: charts.Chart) -> None:
    """On the chart itself: every y tick label ends 8 units left of the plot, like resvg drew."""
    image = raster.rasterise(svg.standalone_svg(grpo), share.WIDE_PX)
    scale = share.WIDE_PX / svg.LAYOUTS["wide"].width
    layout = svg.LAYOUTS["wide"]
    anchor = (layout.plot_left - 8) * scale
    rights = []
    for k in range(round(grpo.y_high * 10) + 1):
        y = (svg.TITLE_PX + layout.plot_top + layout.plot_height * (1 - k / 10 / grpo.y_high))
        box = (0, round((y - 8) * scale), round(anchor + 6), round((y + 6) * scale))
        rights.append(_ink(image, box)[2])
    assert all(abs(r - anchor) <= 2 for r in rights), (anchor, rights)


def test_texts_sit_on_their_baseline() -> None:
    body = '<text x="20" y="150" font-family="Roboto" font-size="100" fill="#000">H</text>'
    _, top, _, bottom = _ink(raster.rasterise(_page(body), 400))
    assert abs(bottom - 150) <= 1  # H stands on the baseline
    assert abs((bottom - top) - 71) <= 2  # Roboto's cap height, 0.711 em


def test_the_title_is_drawn_bold(grpo: charts.Chart) -> None:
    source = svg.standalone_svg(grpo)
    title = next(e for e in _elements(raster._prepared(source)[0])
                 if e.tag == f"{NS}text" and "".join(e.itertext()) == grpo.title)
    assert title.get("font-family") == "Roboto-Bold"  # font-weight 600, drawn bold as resvg did
    band = (0, 0, share.WIDE_PX, 60)
    bold = raster.rasterise(source, share.WIDE_PX).crop(band)
    regular = raster.rasterise(source.replace('font-weight="600"', 'font-weight="400"', 1),
                               share.WIDE_PX).crop(band)
    assert _dark_pixels(bold) > 1.25 * _dark_pixels(regular)


def test_card_title_starts_at_its_x_and_axis_titles_are_centred(grpo: charts.Chart) -> None:
    card = raster.rasterise(images.card_svg(grpo), images.CARD_WIDTH_PX)
    left, _, _, _ = _ink(card, (0, 20, 1200, 80))
    assert 48 <= left <= 54  # x=48 (cardsvg.MARGIN), plus the first glyph's side bearing
    chart = raster.rasterise(svg.standalone_svg(grpo), share.WIDE_PX)
    layout = svg.LAYOUTS["wide"]
    scale = share.WIDE_PX / layout.width
    middle = (layout.plot_left + layout.width - layout.plot_right) / 2 * scale
    baseline = svg.TITLE_PX + layout.plot_top + layout.plot_height + 40  # X_TITLE's y
    left, _, right, _ = _ink(chart, (0, round((baseline - 12) * scale), share.WIDE_PX,
                                     round((baseline + 4) * scale)))
    assert abs((left + right) / 2 - middle) <= 2, (left, right, middle)


def test_a_style_element_in_an_image_svg_is_an_error() -> None:
    """ThorVG ignores ``<style>``: an image SVG with one would be drawn unstyled."""
    with pytest.raises(ValueError, match="presentation attributes"):
        raster._prepared(_page("<style>.a{fill:red}</style>"))


def test_an_unknown_text_anchor_is_an_error() -> None:
    with pytest.raises(ValueError):
        raster._prepared(_page('<text x="1" y="1" text-anchor="justify">a</text>'))


def test_threads_drawing_images_of_different_sizes_draw_what_one_thread_draws(
        grpo: charts.Chart, monkeypatch: pytest.MonkeyPatch) -> None:
    """The image workers are threads sharing one ThorVG, which is not safe to use from two at
    once: on a cold start, images drawn side by side came out different (the fonts' glyphs are
    read in lazily) and a process crashed, and the binding sets a C function's argument types
    for each call from the image's size. ``raster._THORVG`` lets one thread draw at a time;
    the races are rare, so the lock is checked directly too."""
    from concurrent.futures import ThreadPoolExecutor

    import thorvg_python as tvg

    for cls, name in ((tvg.SwCanvas, "set_target"), (tvg.Picture, "load_data"),
                      (tvg.SwCanvas, "draw")):
        def held(*args: object, _real: object = getattr(cls, name), _name: str = name) -> object:
            assert raster._THORVG.locked(), f"{_name} called without raster._THORVG"
            return _real(*args)  # type: ignore[operator]

        monkeypatch.setattr(cls, name, held)

    sources = [(svg.standalone_svg(grpo, f"https://e{i}.org/"), 1200 - 40 * i) for i in range(6)]
    sources += [(images.card_svg(grpo, f"https://e{i}.org/"), 600 + 40 * i) for i in range(6)]
    alone = [raster.rasterise(*source).tobytes() for source in sources]
    for _ in range(3):
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(lambda s: raster.rasterise(*s).tobytes(), sources))
        assert together == alone
