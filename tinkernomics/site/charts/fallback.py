"""The static chart a figure shows first (pipeline step 6, part of ``feature.figure_context``):
on a site page and on an embed page, the chart's own SVG files, referred to, not inlined.

Until issue 47 each algorithm page inlined two SVGs (wide and narrow, ~7.9 KB) and each embed
page one (4.5 KB) that repeated ``embed/<id>/chart*.svg``: 4.7 MB at 1,000 algorithms, drawn
again per page. Now the fallback is two ``<picture>`` elements (``pictures``), light and dark,
each choosing the narrow file on a phone (``NARROW_MEDIA``, as the frame's aspect ratio does)
and the wide one otherwise. CSS shows the one of the palette: Material's attribute
(``[data-md-color-scheme=slate]``, charts.css) on a site page, ``?theme=``, ``#theme=`` or
``prefers-color-scheme`` on an embed page (``embed.embed_theme_css``); both images are lazy,
so a hidden one is never fetched. The file has the chart's title above the drawing and the
credit line below; the fallback crops both off (the figure's caption says them): the frame
has the drawing's aspect ratio (``--tn-h-<layout>``: its height at the layout's width) and the
image is shifted up by the title's height (``--tn-top-<layout>``), scaled to fit the frame
as the inline SVG's ``xMidYMid meet`` was. Each image is named as the inline SVG was: by the
chart's title (its ``alt``) and described by the caption's description (``aria-describedby``),
not by the images' long alt text (``share.alt_text``), which the snippets and the
sr-only summary below the chart carry (two copies of it were 0.5 KB a page).

An embed page too short for the legend crops it off (charts-frame.js lowers ``--tn-h-*`` to
``data-tn-legend``); with ``?bg=transparent`` charts-frame.js shows the same files with their
background fills dropped. An export (``tinkernomics chart --format html``) is one file with
nothing beside it, so it still inlines its SVGs (``inline_svgs``).
"""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from tinkernomics.site.charts import share
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg

NARROW_MEDIA = "(max-width: 600px)"
"""When the narrow file is shown (charts.css switches the frame at the same width)."""
CAPTION = "caption"
"""What names an inline figure's SVGs (an export's): its caption's title and description
(ids ``label_id``), read by ``aria-labelledby``."""


def frame_style(chart: charts.Chart, site_url: str, files: bool = True) -> str:
    """The chart box's drawing height per layout (its aspect ratio, charts.css, with the
    layout's width), so the fallback fills the box and the interactive chart replaces it
    without a layout shift; with ``files``, the title's height to crop off each file."""
    parts = []
    for name in chartsvg.LAYOUTS:
        parts.append(f"--tn-h-{name}:{chartsvg.svg_height(chart, name):g}")
        if files:
            parts.append(f"--tn-top-{name}:{chartsvg.file_box(chart, site_url, name)[0]:g}")
    return ";".join(parts)


def legend_attr(chart: charts.Chart) -> str:
    """``data-tn-legend``: where each layout's legend starts (wide, narrow)."""
    return " ".join(f"{chartsvg.legend_top(chart, name):g}" for name in chartsvg.LAYOUTS)


def pictures(chart: charts.Chart, data_base: str, site_url: str, label: str) -> Markup:
    """The light and the dark ``<picture>`` of the chart's files in its embed folder
    (``data_base``), each the wide file with the narrow one for phones, described by the
    caption's description (id ``label`` + ``-d``)."""
    alt = escape(chart.title)
    out = []
    for theme in ("light", "dark"):
        wide, narrow = (next(v for v in share.VARIANTS if v.theme == theme and v.layout == name)
                        for name in ("wide", "narrow"))
        width = chartsvg.LAYOUTS["wide"].width
        height = chartsvg.file_box(chart, site_url, "wide")[1]
        out.append(
            f'<picture class="tn-chart__pic tn-chart__pic--{theme}">'
            f'<source media="{NARROW_MEDIA}" srcset="{escape(data_base + narrow.svg)}">'
            f'<img src="{escape(data_base + wide.svg)}" width="{width:g}" height="{height:g}" '
            f'alt="{alt}" aria-describedby="{label}-d" loading="lazy" decoding="async">'
            "</picture>")
    return Markup("".join(out))


def inline_svgs(chart: charts.Chart, styled: bool) -> Markup:
    """An export's wide and narrow SVGs (CSS shows one), named by the caption (``CAPTION``);
    ``styled``: the wide one carries the rules (else the page's stylesheet has them)."""
    return Markup(chartsvg.chart_svg(chart, layout="wide", styled=styled, named_by=CAPTION)
                  + chartsvg.chart_svg(chart, layout="narrow", styled=False, named_by=CAPTION))
