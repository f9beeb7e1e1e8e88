"""A chart as images a blogger can paste (pipeline step 6, embeds): the image variants, their
stable file names, the alt text that states the chart's finding, and the ready-made
``<img>`` (``<picture>``) and Markdown snippets.

Every chart has four PNGs at stable URLs beside its embed page (``embed/<id>/``): light and
dark, wide (1200 px, the downloadable SVG's layout) and narrow (the phone layout at 800 px, so
its 13 px text is 11.7 px when shown 360 px wide). Each prints the date its data are as of; a
post that must not change when the data do saves the image and hosts it (the box says so): the
site keeps no dated copy (``files``). The same variants exist as SVG files.

The ``<picture>`` and Markdown snippets are written in the browser by charts.js
(``imageSnippets``) from the facts ``embedbox.box_data`` ships; tests/helpers_embedbox.py
holds the reference text they must equal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tinkernomics.derived import derive
from tinkernomics.site.charts import raster
from tinkernomics.site.charts.spec import Chart, Series
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


@lru_cache(maxsize=4096)
def long_description(chart: Chart) -> str:
    """What the chart is and every number it shows: read on the page (screen readers); once
    per chart for its page and its embed page (issue 47)."""
    return f"{_kind(chart)} {finding(chart)}"


def _fit(text: str, limit: int = ALT_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


@lru_cache(maxsize=4096)
def alt_text(chart: Chart) -> str:
    """The images' alt text, at most ``ALT_MAX_CHARS``: what kind of chart, then its finding;
    for a comparison as many ceilings as fit, then how many more. Written once per chart for
    its embed page's preview tags and its box's facts (issue 47)."""
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


@lru_cache(maxsize=4096)
def png_size(chart: Chart, site_url: str) -> tuple[int, int]:
    """``chart.png``'s (width, height), from its SVG (nothing drawn). The SVG is asked for
    with the arguments ``files`` and ``imagejobs`` pass, so that its cache hands back the one
    ``chart.svg`` writes (by keyword it was a second key: every SVG drawn twice)."""
    first = VARIANTS[0]
    return raster.size(standalone_svg(chart, site_url, first.theme, first.layout), first.width)
