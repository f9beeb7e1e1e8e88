"""What a chart image shows, as a cache key (pipeline step 6, output; used by ``charts.images``).

An ``ImageJob`` is one image to draw: a key naming everything it shows, its width, and a
function that makes its SVG. ``ImageCache`` (``charts.images``) looks a job up by its key and
calls that function only for an image it must draw, so a rebuild whose charts did not change
makes no image SVG at all (issue 47: keyed by the SVG text, the startup made every variant's
SVG of every chart only to find it cached). A chart's key is its data (the frozen ``Chart``'s
repr), the site URL its images print and a digest of the modules that write its SVGs
(``svg_code_version``), so a change of either still re-renders it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tinkernomics.derived import derive
from tinkernomics.site import identity
from tinkernomics.site.charts import cardsvg, raster, settings, spec, svg, themes
from tinkernomics.site.charts.cardsvg import card_svg
from tinkernomics.site.charts.share import VARIANTS
from tinkernomics.site.charts.spec import Chart
from tinkernomics.site.charts.svg import standalone_svg
from tinkernomics.site.identity import CARD_WIDTH_PX


@dataclass(frozen=True)
class ImageJob:
    """One image to draw: ``key`` names everything it shows (two jobs with one key and width
    draw the same pixels), ``width`` is its width in px, and ``make_svg`` makes the SVG to
    draw, called only when the image is not cached yet (or, under ``mkdocs serve``, to
    measure it). ``svg_job`` keys an SVG by its own text; ``chart_jobs`` a chart's images by
    the chart's data."""

    key: str
    width: int
    make_svg: Callable[[], str] = field(compare=False, repr=False)

    def svg(self) -> str:
        return self.make_svg()


def svg_job(svg_text: str, width: int) -> ImageJob:
    """The job of an SVG already made, keyed by its text."""
    return ImageJob(f"svg|{svg_text}", width, lambda: svg_text)


SVG_MODULES = (svg, cardsvg, spec, themes, settings, raster, identity, derive)
"""What a chart's image SVG is made by besides the chart (``svg.standalone_svg``,
``cardsvg.card_svg``): their source is part of a chart job's key."""


@cache
def svg_code_version() -> str:
    """A digest of ``SVG_MODULES``' source: a change to how a chart's SVG is written re-renders
    its images, as a change of the SVG text did when the cache was keyed by it."""
    digest = hashlib.sha256()
    for module in SVG_MODULES:
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def chart_key(chart: Chart, site_url: str) -> str:
    """What a chart's images show: its data (the frozen ``Chart``'s repr, every field, no
    object address), the site URL they print, and the code that draws them."""
    text = f"{svg_code_version()}|{site_url}|{chart!r}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def variant_jobs(chart: Chart, site_url: str, key: str | None = None) -> list[ImageJob]:
    """The jobs of the chart's image variants (``share.VARIANTS``: light and dark, wide and
    narrow; the first is ``chart.png``'s), keyed by ``key`` (``chart_key``)."""
    key = key or chart_key(chart, site_url)
    return [ImageJob(f"chart|{v.theme}|{v.layout}|{key}", v.width,
                     functools.partial(standalone_svg, chart, site_url, v.theme, v.layout))
            for v in VARIANTS]


def card_job(chart: Chart, site_url: str, key: str | None = None) -> ImageJob:
    """The job of the chart's preview card (``card.png``)."""
    key = key or chart_key(chart, site_url)
    return ImageJob(f"card|{key}", CARD_WIDTH_PX, functools.partial(card_svg, chart, site_url))


def jobs(chart: Chart, site_url: str) -> list[ImageJob]:
    """The jobs of a chart's ``chart.png`` and ``card.png``."""
    key = chart_key(chart, site_url)
    return [variant_jobs(chart, site_url, key)[0], card_job(chart, site_url, key)]


def all_jobs(chart: Chart, site_url: str, key: str | None = None) -> list[ImageJob]:
    """Every image a build draws for the chart: its variants and its preview card, keyed by
    ``key`` (``chart_key``, made here unless given)."""
    key = key or chart_key(chart, site_url)
    return [*variant_jobs(chart, site_url, key), card_job(chart, site_url, key)]
