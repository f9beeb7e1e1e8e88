"""Issue 47, the embed folders' bytes: no file twice, no digit more than a chart can show, the
static curve drawn with the points a picture needs, and each SVG drawn once per build."""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import helpers_charts
import pytest
from helpers_charts import fitted_catalog, many_fits_catalog

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import files, images, share, svgpath
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg

BASE = "https://example.org/tn/"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return fitted_catalog(tmp_path_factory.mktemp("fitted"))


@pytest.fixture(scope="module")
def built(catalog: Catalog) -> dict[str, charts.Chart]:
    return {cid: charts.build_chart(catalog, cid, date="2026-11-30")
            for cid in charts.chart_ids(catalog)}


@pytest.fixture(scope="module")
def folders(built: dict[str, charts.Chart],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every chart's embed folder, without PNGs (their bytes are the image cache's)."""
    root = tmp_path_factory.mktemp("embed")
    cache = images.ImageCache(draw=False)
    for cid, chart in built.items():
        helpers_charts.write_chart_files(chart, root / cid, BASE, cache)
    return {cid: root / cid for cid in built}


def test_no_two_files_of_an_embed_folder_are_byte_identical(folders: dict[str, Path]) -> None:
    for folder in folders.values():
        seen: dict[str, str] = {}
        for path in sorted(folder.iterdir()):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            assert digest not in seen, f"{path.name} is a copy of {seen.get(digest)}"
            seen[digest] = path.name


def significant_digits(value: float) -> int:
    """Significant digits of a number as a file prints it: 13170 and 0.4014 have 4."""
    mantissa = f"{abs(value):.15g}".split("e")[0]
    return len(mantissa.replace(".", "").strip("0"))


def test_significant_digits_are_counted_as_printed() -> None:
    assert [significant_digits(v) for v in (13170.0, 0.4014, 100000.0, 56.7528, 1.234e-05, 0.0)] \
        == [4, 4, 1, 6, 4, 0]


def _curve_numbers(spec: dict[str, Any]) -> list[float]:
    return [v for trace in spec["data"] if trace.get("mode") == "lines"
            for key in ("x", "y", "customdata") for v in trace.get(key, []) if v is not None]


def test_no_curve_point_has_more_digits_than_a_chart_shows(folders: dict[str, Path]) -> None:
    for folder in folders.values():
        spec = json.loads((folder / files.SPEC_FILE).read_text("utf-8"))
        numbers = _curve_numbers(spec)
        data = json.loads((folder / "data.json").read_text("utf-8"))
        numbers += [v for s in data["series"] for p in s["points"] for v in p.values()]
        rows = list(csv.DictReader(io.StringIO((folder / "data.csv").read_text("utf-8"))))
        numbers += [float(r[k]) for r in rows
                    for k in ("gb200_hours", "h100_equivalent_hours", "reward_percent")]
        assert len(numbers) > 3 * charts.CURVE_POINTS
        too_long = [v for v in numbers if significant_digits(v) > charts.POINT_DIGITS]
        assert not too_long, f"{folder.name}: {too_long[:5]}"


def test_the_comparisons_extra_curves_are_as_short(tmp_path: Path) -> None:
    from tinkernomics.site.build import SiteContext

    catalog = many_fits_catalog(tmp_path / "catalog", charts.FEATURED_MAX + 2)
    comparison = charts.build_chart(catalog, charts.COMPARISON_ID)
    assert comparison.others
    ctx = SiteContext(root=tmp_path, catalog=catalog)
    chartsite.write_series_files(ctx, comparison, tmp_path / "series")
    written = list((tmp_path / "series").glob("*.json"))
    assert len(written) == len(comparison.others)
    for path in written:
        numbers = _curve_numbers({"data": json.loads(path.read_text("utf-8"))})
        assert numbers and max(map(significant_digits, numbers)) <= charts.POINT_DIGITS


# --------------------------------------------------------------------------- the static curve

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)")


def path_points(d: str) -> list[tuple[float, float]]:
    """The absolute points of an ``M x y l dx dy ...`` path."""
    assert d.startswith("M") and d.count("M") == 1 and d.count("l") == 1
    start, steps = d[1:].split("l")
    x, y = (float(v) for v in _NUMBER.findall(start))
    out = [(x, y)]
    values = [float(v) for v in _NUMBER.findall(steps)]
    for dx, dy in zip(values[::2], values[1::2], strict=True):
        x, y = x + dx, y + dy
        out.append((x, y))
    return out


def _distance_to(point: tuple[float, float], line: list[tuple[float, float]]) -> float:
    """Distance from ``point`` to the polyline ``line``."""
    px, py = point
    best = math.inf
    for (ax, ay), (bx, by) in itertools.pairwise(line):
        dx, dy = bx - ax, by - ay
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy)
                                                   / (dx * dx + dy * dy)))
        best = min(best, math.hypot(px - ax - t * dx, py - ay - t * dy))
    return best


def _curves(svg_text: str) -> list[str]:
    root = ET.fromstring(svg_text)
    curve = dict(chartsvg.PAINT["curve"])["stroke-width"]  # a file's curves carry no class
    return [e.get("d", "") for e in root.iter(f"{SVG_NS}path")
            if e.get("class") == "curve" or e.get("stroke-width") == curve]


@pytest.mark.parametrize("layout", ["wide", "narrow"])
def test_the_static_curve_keeps_within_a_tenth_of_a_pixel_of_every_point(
        built: dict[str, charts.Chart], layout: str) -> None:
    for chart in built.values():
        frame = chartsvg._frame(chart, chartsvg.LAYOUTS[layout])
        drawn = _curves(chartsvg.chart_svg(chart, layout=layout))
        assert len(drawn) == len(chart.series)
        for s, d in zip(chart.series, drawn, strict=True):
            full = [(frame.x(c), frame.y(r)) for c, r in s.points]
            line = path_points(d)
            assert len(line) < len(full), "a smooth curve needs fewer points"
            assert line[0] == pytest.approx(full[0]) and line[-1] == pytest.approx(full[-1])
            worst = max(_distance_to(p, line) for p in full)
            assert worst <= svgpath.TOLERANCE_PX + 1e-9, (chart.id, worst)


def test_the_files_draw_the_same_curve_as_the_page(built: dict[str, charts.Chart]) -> None:
    chart = built["scalerl-grpo"]
    page = _curves(chartsvg.chart_svg(chart, layout="narrow"))
    for theme in ("light", "dark"):
        assert _curves(chartsvg.standalone_svg(chart, BASE, theme, "narrow")) == page


def test_path_numbers_are_written_shortest() -> None:
    assert [svgpath.tenths(v) for v in (0, 5, -5, 10, 125, -125, -3)] == \
        ["0", ".5", "-.5", "1", "12.5", "-12.5", "-.3"]
    d = svgpath.curve_path([(64, 160), (74.7, 159.9), (85.3, 159.7), (96, 200)], tolerance=0)
    assert d == "M64 160l10.7-.1 10.6-.2 10.7 40.3"
    assert path_points(d)[-1] == pytest.approx((96, 200))


def test_a_straight_run_is_one_step_and_a_bend_is_kept() -> None:
    straight = [(x, 100 - x / 2) for x in range(0, 100, 10)]
    assert svgpath.curve_path(straight) == "M0 100l90-45"
    bent = [*straight, (100, 80)]
    assert len(path_points(svgpath.curve_path(bent))) == 3


# --------------------------------------------------------------------------- drawn once


def test_the_box_and_the_file_share_one_drawing_of_chart_svg(
        built: dict[str, charts.Chart]) -> None:
    """The embed box measures ``chart.png`` from the SVG that ``chart.svg`` writes: one
    drawing, not one per way of asking for it."""
    chart = built["scalerl-grpo"]
    chartsvg.standalone_svg.cache_clear()
    share.png_size.cache_clear()
    share.png_size(chart, BASE)
    first = share.VARIANTS[0]
    chartsvg.standalone_svg(chart, BASE, first.theme, first.layout)
    assert chartsvg.standalone_svg.cache_info().misses == 1


def test_whole_curve_numbers_are_written_without_a_point_zero(folders: dict[str, Path]) -> None:
    """``1139``, not ``1139.0``: the same number, two bytes fewer (issue 47)."""
    for folder in folders.values():
        data = json.loads((folder / "data.json").read_text("utf-8"))
        numbers = [v for s in data["series"] for p in s["points"] for v in p.values()]
        assert any(isinstance(v, int) for v in numbers)
        assert not [v for v in numbers if isinstance(v, float) and v.is_integer()]
        text = (folder / "data.csv").read_text("utf-8")
        assert not re.search(r",\d+\.0,", text), folder.name
