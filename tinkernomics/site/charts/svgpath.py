"""A chart's curve as a short SVG path (pipeline step 6, output; used by ``charts.svg``).

A curve has ``spec.CURVE_POINTS`` points so that the interactive chart can show a value
anywhere along it; a picture needs fewer. ``curve_path`` drops the points that lie within
``TOLERANCE_PX`` of the straight line through their neighbours kept (Douglas-Peucker), where
the curve is flat or straight, and writes the rest as one ``M x y l dx dy ...`` path in tenths
of a pixel, each step relative to the last (no drift: steps are differences of the rounded
positions). The drawing moves by at most ``TOLERANCE_PX`` (a fifth of a pixel of the largest
PNG, under a tenth of the 2.5 px line), about a third of the bytes of the 61-point polyline it
replaces: 1.3 MB of the embed folders and pages at 1,000 algorithms (issue 47).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

TOLERANCE_PX = 0.1
"""How far (SVG user units: px of the layout) a dropped point may lie from the path drawn;
the coordinates' own rounding step."""

Point = tuple[int, int]
"""A position in tenths of a px."""


def _farthest(points: list[Point], first: int, last: int) -> tuple[float, int]:
    """(distance, index) of the point between ``first`` and ``last`` farthest from the line
    through them (distances in tenths)."""
    (ax, ay), (bx, by) = points[first], points[last]
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy) or 1.0
    far, index = 0.0, first
    for i in range(first + 1, last):
        px, py = points[i]
        d = abs(dx * (py - ay) - dy * (px - ax))
        if d > far:
            far, index = d, i
    return far / length, index


def simplified(points: list[Point], tolerance: float) -> list[Point]:
    """The points Douglas-Peucker keeps: the ends, and every point that lies further than
    ``tolerance`` from the line through the points kept either side of it."""
    keep = {0, len(points) - 1}
    spans = [(0, len(points) - 1)] if len(points) > 2 else []
    while spans:
        first, last = spans.pop()
        far, index = _farthest(points, first, last)
        if far > tolerance:
            keep.add(index)
            spans += [(first, index), (index, last)]
    return [points[i] for i in sorted(keep)]


def tenths(value: int) -> str:
    """A length in tenths of a px as SVG path data writes it shortest: 12.5, .5, -.5, 3."""
    whole, part = divmod(abs(value), 10)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}" if not part else f"{sign}{whole or ''}.{part}"


def _joined(numbers: list[str]) -> str:
    """Path numbers, a space between them unless the next one's minus sign separates them."""
    out = numbers[0]
    for number in numbers[1:]:
        out += number if number.startswith("-") else f" {number}"
    return out


def curve_path(points: Sequence[tuple[float, float]],
               tolerance: float = TOLERANCE_PX) -> str:
    """The path data (``d``) of a curve through ``points`` (px, any precision; drawn to
    0.1 px), simplified within ``tolerance`` px."""
    at = simplified([(round(x * 10), round(y * 10)) for x, y in points], tolerance * 10)
    steps = [tenths(v) for a, b in itertools.pairwise(at) for v in (b[0] - a[0], b[1] - a[1])]
    start = f"M{tenths(at[0][0])} {tenths(at[0][1])}"
    return f"{start}l{_joined(steps)}" if steps else start
