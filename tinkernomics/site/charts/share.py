"""A chart as images a blogger can paste (pipeline step 6, embeds): the image variants, their
stable and dated file names, the alt text that states the chart's finding, and the ready-made
``<img>`` (``<picture>``) and Markdown snippets.

Every chart has four PNGs at stable URLs beside its embed page (``embed/<id>/``): light and
dark, wide (1200 px, the downloadable SVG's layout) and narrow (the phone layout at 800 px, so
its 13 px text is 11.7 px when shown 360 px wide). Each is also written under a dated name
(``chart-dark-2026-11-30.png``, the date the chart's data last changed): a post that must not
change when the data do links that one. The same variants exist as SVG files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from tinkernomics.derived import derive
from tinkernomics.site.charts import raster
from tinkernomics.site.charts.spec import PUBLISHER, Chart, Series
from tinkernomics.site.charts.svg import standalone_svg


@dataclass(frozen=True)
class Variant:
    """One image of a chart: its file stem, theme, SVG layout and PNG width (px)."""

    stem: str
    theme: str
    layout: str
    width: int

    def png(self, date: str = "") -> str:
        return f"{self.stem}-{date}.png" if date else f"{self.stem}.png"

    @property
    def svg(self) -> str:
        return f"{self.stem}.svg"


WIDE_PX = 1200
NARROW_PX = 800
VARIANTS = (
    Variant("chart", "light", "wide", WIDE_PX),
    Variant("chart-dark", "dark", "wide", WIDE_PX),
    Variant("chart-narrow", "light", "narrow", NARROW_PX),
    Variant("chart-narrow-dark", "dark", "narrow", NARROW_PX),
)
"""``chart.png`` first: the file the oEmbed thumbnail and the tools row name."""
BY_STEM = {v.stem: v for v in VARIANTS}
THEMES = ("auto", "light", "dark")
"""The snippet themes (as ``embed.SNIPPET_THEMES``)."""
NARROW_MEDIA = "(max-width: 600px)"
DARK_MEDIA = "(prefers-color-scheme: dark)"


# --------------------------------------------------------------------------- alt text


def _percent(value: float) -> str:
    return f"{derive.format_number(value * 100)}%"


def _hours(value: float) -> str:
    return f"{derive.format_number(value)} GB200-hours"


def _one_finding(s: Series) -> str:
    p = s.params
    flag = " (unverified parameters)" if s.unverified else ""
    return (f"{s.title}'s fitted pass rate{flag} rises from {_percent(p.R0)} towards an "
            f"asymptote of {_percent(p.A)}, reaching half of that gain at "
            f"{_hours(p.C_mid)}.")


def _comparison_finding(series: tuple[Series, ...]) -> str:
    top = max(series, key=lambda s: (s.params.A, s.title))
    fast = min(series, key=lambda s: (s.params.C_mid, s.title))
    each = "; ".join(f"{s.title} {_percent(s.params.A)} (half-way at {_hours(s.params.C_mid)})"
                     for s in sorted(series, key=lambda s: (-s.params.A, s.title)))
    unverified = sum(1 for s in series if s.unverified)
    note = (f" {unverified} of the {len(series)} fits have unverified parameters."
            if unverified else "")
    who = "" if fast is top else f"{fast.title} "
    return (f"Of {len(series)} algorithms, {top.title} has the highest asymptote "
            f"({_percent(top.params.A)}) and {who}reaches half of its gain with the "
            f"least compute ({_hours(fast.params.C_mid)}). Asymptotes: {each}.{note}")


def finding(chart: Chart) -> str:
    """What the chart shows, in a sentence or three, from its own numbers."""
    if len(chart.series) > 1:
        return _comparison_finding(chart.series)
    return _one_finding(chart.series[0])


def alt_text(chart: Chart) -> str:
    """The images' alt text: what kind of chart, then its finding."""
    return (f"Line chart: {chart.title}, pass rate against training compute in GB200-hours "
            f"(log scale). {finding(chart)}")


# --------------------------------------------------------------------------- snippets


def image_url(chart: Chart, base: str, variant: Variant, date: str = "") -> str:
    return f"{base}embed/{chart.id}/{variant.png(date)}"


def _sources(chart: Chart, base: str, theme: str) -> list[tuple[str, str]]:
    """(media, file stem) of the ``<source>`` elements, most specific first."""
    narrow = f"{NARROW_MEDIA} and {DARK_MEDIA}"
    if theme == "auto":
        return [(narrow, "chart-narrow-dark"), (NARROW_MEDIA, "chart-narrow"),
                (DARK_MEDIA, "chart-dark")]
    return [(NARROW_MEDIA, "chart-narrow-dark" if theme == "dark" else "chart-narrow")]


def html_snippet(chart: Chart, base: str, size: tuple[int, int], theme: str = "auto") -> str:
    """A ``<picture>``: the narrow image on phones, the dark one where ``theme`` asks (``auto``:
    the reader's system setting); a host that strips ``<picture>`` keeps the ``<img>``, which
    links to the chart's page. ``size`` is the wide PNG's (width, height)."""
    wide = BY_STEM["chart-dark" if theme == "dark" else "chart"]
    sources = "".join(
        f'<source media="{media}" srcset="{escape(image_url(chart, base, BY_STEM[stem]))}">'
        for media, stem in _sources(chart, base, theme))
    img = (f'<img src="{escape(image_url(chart, base, wide))}" width="{size[0]}" '
           f'height="{size[1]}" alt="{escape(alt_text(chart))}" loading="lazy" '
           'style="max-width:100%;height:auto">')
    page = escape(f"{base}{chart.page}")
    return f'<a href="{page}"><picture>{sources}{img}</picture></a>'


def _markdown_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def markdown_snippet(chart: Chart, base: str, theme: str = "auto") -> str:
    """``[![alt](chart.png)](page)``: Markdown has one image, light unless ``theme`` is dark."""
    stem = "chart-dark" if theme == "dark" else "chart"
    url = image_url(chart, base, BY_STEM[stem])
    return (f"[![{_markdown_text(alt_text(chart))}]({url})]({base}{chart.page})\n"
            f"*{_markdown_text(chart.title)}, from {PUBLISHER}.*")


@lru_cache(maxsize=4096)
def png_size(chart: Chart, site_url: str) -> tuple[int, int]:
    """``chart.png``'s (width, height), from its SVG (nothing drawn)."""
    return raster.size(standalone_svg(chart, site_url), WIDE_PX)


def image_snippets(chart: Chart, site_url: str, base: str) -> dict[str, str]:
    """The image snippets per theme (JSON for the theme menu's ``data-tn-themes``) and the
    ``auto`` ones shown first; ``base`` is the site URL, or the page's root without one."""
    size = png_size(chart, site_url)
    html_by = {t: html_snippet(chart, base, size, t) for t in THEMES}
    md_by = {t: markdown_snippet(chart, base, t) for t in THEMES}
    return {"html": json.dumps(html_by, ensure_ascii=False),
            "markdown": json.dumps(md_by, ensure_ascii=False),
            "html_auto": html_by["auto"], "markdown_auto": md_by["auto"]}
