"""A chart as images a blogger can paste (pipeline step 6, embeds): the image variants, their
stable file names, the alt text that states the chart's finding, and the ready-made
``<img>`` (``<picture>``) and Markdown snippets.

Every chart has four PNGs at stable URLs beside its embed page (``embed/<id>/``): light and
dark, wide (1200 px, the downloadable SVG's layout) and narrow (the phone layout at 800 px, so
its 13 px text is 11.7 px when shown 360 px wide). Each prints the date its data are as of; a
post that must not change when the data do saves the image and hosts it (the box says so): the
site keeps no dated copy (``files``). The same variants exist as SVG files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from tinkernomics.derived import derive
from tinkernomics.site.charts import cite, raster
from tinkernomics.site.charts.spec import LICENCE_URL, Chart, Series
from tinkernomics.site.charts.svg import standalone_svg


@dataclass(frozen=True)
class Variant:
    """One image of a chart: its file stem, theme, SVG layout and PNG width (px)."""

    stem: str
    theme: str
    layout: str
    width: int

    def png(self) -> str:
        return f"{self.stem}.png"

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


ALT_MAX_CHARS = 420
"""The longest alt text the image snippets carry (X/Twitter's image description limit)."""


def _named(s: Series) -> str:
    """A curve in running prose: "CISPO (ScaleRL recipe)", never a possessive of its label."""
    return f"{s.name} ({s.curve})" if s.curve else s.name


def _one_finding(s: Series) -> str:
    p = s.params
    flag = " Its parameters are unverified." if s.unverified else ""
    return (f"The fitted pass rate of {_named(s)} rises from {_percent(p.R0)} towards a "
            f"ceiling of {_percent(p.A)} and gets half of that gain by "
            f"{_hours(p.C_mid)}.{flag}")


def _comparison_lead(chart: Chart) -> str:
    """Which curves may be compared: one setting names its highest ceiling; several settings
    are named, and nothing is ranked across them (a recipe beside a loss is not a race)."""
    groups = chart.groups
    if len(groups) == 1:
        top = max(chart.series, key=lambda s: (s.params.A, s.title))
        return (f"Of {len(chart.series)} fitted curves, all fitted in one setting, {_named(top)} "
                f"has the highest ceiling ({_percent(top.params.A)}).")
    return (f"The {len(chart.series)} fitted curves come from {len(groups)} settings, not "
            "compared with each other.")


def _highest_first(series: tuple[Series, ...]) -> list[Series]:
    return sorted(series, key=lambda s: (-s.params.A, s.title))


def _group_ceilings(group: tuple[Series, ...], short: bool = False,
                    named: bool = True) -> list[str]:
    """Each curve's ceiling, highest first (``short``: without the half-way point; ``named``:
    the curve with its label, else the algorithm's name alone, under its setting's name)."""
    return [f"{_named(s) if named else s.name} {_percent(s.params.A)}"
            + ("" if short else f" (half-way at {_hours(s.params.C_mid)})")
            for s in _highest_first(group)]


def _ceilings(chart: Chart, short: bool = False) -> list[str]:
    """Every curve's ceiling, setting by setting, highest first within each."""
    return [c for _, group in chart.groups for c in _group_ceilings(group, short, not short)]


def _unverified_note(series: tuple[Series, ...]) -> str:
    unverified = sum(1 for s in series if s.unverified)
    return (f" {unverified} of the {len(series)} fits have unverified parameters."
            if unverified else "")


def _by_setting(chart: Chart, short: bool = False) -> str:
    """"Setting: curve ceiling, curve ceiling; setting: ..." (a chart of several settings)."""
    return "; ".join(f"{name}: {', '.join(_group_ceilings(group, short, named=False))}"
                     for name, group in chart.groups)


def finding(chart: Chart) -> str:
    """What the chart shows, from its own numbers, with every curve's ceiling by setting (the
    page's long description)."""
    if len(chart.series) == 1:
        return _one_finding(chart.series[0])
    each = "; ".join(_ceilings(chart)) if len(chart.groups) == 1 else _by_setting(chart)
    return (f"{_comparison_lead(chart)} Ceilings: {each}."
            f"{_unverified_note(chart.series)}")


def _kind(chart: Chart) -> str:
    return (f"Line chart: {chart.title}, pass rate against training compute in GB200-hours "
            f"(log scale).")


def long_description(chart: Chart) -> str:
    """What the chart is and every number it shows: read on the page (screen readers)."""
    return f"{_kind(chart)} {finding(chart)}"


def _fit(text: str, limit: int = ALT_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def alt_text(chart: Chart) -> str:
    """The images' alt text, at most ``ALT_MAX_CHARS``: what kind of chart, then its finding;
    for a comparison as many ceilings as fit, then how many more."""
    head = _kind(chart)
    if len(chart.series) == 1:
        return _fit(f"{head} {_one_finding(chart.series[0])}")
    text = f"{head} {_comparison_lead(chart)}"
    if len(chart.groups) > 1:
        return _fit(f"{text} Ceilings: {_by_setting(chart, short=True)}.")
    ceilings = _ceilings(chart, short=True)
    for shown in range(len(ceilings), 0, -1):
        rest = len(ceilings) - shown
        more = f", and {rest} more" if rest else ""
        full = f"{text} Ceilings: {', '.join(ceilings[:shown])}{more}."
        if len(full) <= ALT_MAX_CHARS:
            return full
    return _fit(text)


# --------------------------------------------------------------------------- snippets


def image_url(chart: Chart, base: str, variant: Variant) -> str:
    return f"{base}embed/{chart.id}/{variant.png()}"


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
    sources = theme_parts(chart, base, theme)["sources"]
    img = (f'<img src="{escape(image_url(chart, base, wide))}" width="{size[0]}" '
           f'height="{size[1]}" alt="{escape(alt_text(chart))}" loading="lazy" '
           'style="max-width:100%;height:auto">')
    page = escape(cite.page_url(chart, base))
    return (f'<figure><a href="{page}"><picture>{sources}{img}</picture></a>'
            f"<figcaption>{_html_caption(chart, base)}</figcaption></figure>")


def _html_caption(chart: Chart, base: str) -> str:
    """The caption (``cite.caption_parts``) with the page and the licence as links."""
    title, source, licence, page = cite.caption_parts(chart, base)
    return (f"{escape(title)} {escape(source)} "
            f'<a href="{escape(LICENCE_URL)}">{escape(licence)}</a> '
            f'<a href="{escape(page)}">{escape(page)}</a>')


_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>]")


def _markdown_text(text: str) -> str:
    """Catalog text in Markdown: every character Markdown reads as markup (or raw HTML: ``<``)
    backslash-escaped."""
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), text)


def markdown_snippet(chart: Chart, base: str, theme: str = "auto") -> str:
    """``[![alt](chart.png)](page)`` and the caption in italics: Markdown has one image,
    light unless ``theme`` is dark."""
    stem = "chart-dark" if theme == "dark" else "chart"
    url = image_url(chart, base, BY_STEM[stem])
    title, source, licence, page = cite.caption_parts(chart, base)
    caption = _markdown_text(f"{title} {source} {licence}")
    return (f"[![{_markdown_text(alt_text(chart))}]({url})]({page})\n"
            f"*{caption}* <{page}>")


@lru_cache(maxsize=4096)
def png_size(chart: Chart, site_url: str) -> tuple[int, int]:
    """``chart.png``'s (width, height), from its SVG (nothing drawn)."""
    return raster.size(standalone_svg(chart, site_url), WIDE_PX)


def theme_parts(chart: Chart, base: str, theme: str) -> dict[str, str]:
    """What changes in the image snippets with the theme: the ``<source>`` elements and the
    file of the ``<img>`` (and of the Markdown image)."""
    sources = "".join(
        f'<source media="{media}" srcset="{escape(image_url(chart, base, BY_STEM[stem]))}">'
        for media, stem in _sources(chart, base, theme))
    return {"sources": sources, "image": BY_STEM["chart-dark" if theme == "dark" else "chart"]
            .png()}


def image_snippets(chart: Chart, site_url: str, base: str) -> dict[str, str]:
    """The ``auto`` image snippets, and per theme only what differs (JSON for the theme menu's
    ``data-tn-image-themes``: charts.js swaps the sources and the image file, so a chart page
    does not carry every snippet three times); ``base`` is the site URL, or the page's root
    without one."""
    size = png_size(chart, site_url)
    parts = {t: theme_parts(chart, base, t) for t in THEMES}
    return {"themes": json.dumps(parts, ensure_ascii=False),
            "html_auto": html_snippet(chart, base, size, "auto"),
            "markdown_auto": markdown_snippet(chart, base, "auto")}
