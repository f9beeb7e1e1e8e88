"""Charts on the site and as embeds (pipeline step 6: a feature module of ``site.build``).

Macros: ``chart(chart_id)`` puts a chart on a page (first paint and no-JS fallback: the chart's
SVG files, ``fallback``), the URL of its Plotly spec for
``site_overrides/assets/javascripts/charts.js``, data and image downloads, an embed snippet, a
parameter table); ``algorithm_chart(algorithm_id)`` is the same for an algorithm's own chart
("" when it has no fit). Algorithm pages get their chart through
``pages.add_algorithm_section`` (slot "chart", right after the ScaleRL fit).

``write_outputs`` writes, per chart id, ``embed/<id>/`` (``files.write_chart_files``: embed
page, data, images in every variant, preview card, oEmbed, Plotly spec);
``embed/scalerl-comparison/series/<algorithm>.json`` for curves a reader adds to the
comparison; the site's own preview card; ``files.shared_embed_files`` (``resize.js`` for hosts,
``theme.js``, ``theme.css``, ``spec-base.json``) and ``assets/vendor/plotly.min.js``, the
vendored basic bundle of the plotly.js version the installed plotly package ships
(``static/plotly/``; never a CDN).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.derived import derive
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import embed, embedbox, fallback, files, images, plotlyspec, share
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg
from tinkernomics.site.identity import SITE_CARD
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages.views import Links
from tinkernomics.site.postbuild import finish, previews

EMBED_DIR = embed.EMBED_DIR
VENDOR_PLOTLY = "assets/vendor/plotly.min.js"
LOADER_SCRIPTS = ("assets/javascripts/charts-share.js", "assets/javascripts/charts-frame.js",
                  "assets/javascripts/charts.js")
"""The chart loader's files (``site_overrides/``) in load order: charts.js, last, starts it.
Embed pages link them all and exports inline them; site pages need no charts-frame.js."""
CHART_CSS = "assets/stylesheets/charts.css"
SPEC_FILE = files.SPEC_FILE
EMBED_OEMBED_REL = "alternate"
"""The embed page's oEmbed discovery link says exactly ``rel="alternate"``, which parsers that
match the attribute exactly find (it has no Material script to fetch a sitemap for it)."""
SERIES_DIR = "series"
"""Under the comparison's embed folder: one JSON of Plotly traces per curve not drawn by default."""
SITE_TAGLINE = "The economics of RL post-training for LLMs"
IMAGE_CACHE_ENV = "TINKERNOMICS_IMAGE_CACHE"
IMAGE_CACHE_DIR = ".image-cache"
"""Rendered PNGs by content hash, under the project root (or ``$TINKERNOMICS_IMAGE_CACHE``);
not in ``.cache/``, Zensical's cache, which ``zensical build --clean`` deletes."""
CHART_IMAGES_ENV = "TINKERNOMICS_CHART_IMAGES"
"""``0``: no chart PNGs (set for ``mkdocs serve`` by macros/mkdocs_hooks.py); the rest is built."""


# --------------------------------------------------------------------------- rendering helpers


@cache
def _env() -> Environment:
    # auto_reload off: the package's templates, not a stat of each file at every chart's page
    return Environment(loader=PackageLoader("tinkernomics.site.charts", "templates"),
                       autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True,
                       auto_reload=False)


def plotly_js_path() -> Path:
    """The vendored plotly.js basic bundle (scatter, bar, pie: the site draws scatter traces
    only), 1.19 MB against the full bundle's 4.8 MB; see static/plotly/README.md."""
    return Path(str(resources.files("tinkernomics.site.charts") / "static" / "plotly"
                    / "plotly-basic.min.js"))


_site_base = files.site_base


def root_from(here: str) -> str:
    """Relative path from the page at ``here`` (a site-relative directory path such as
    ``algorithms/grpo/``) to the site root: ``../../``; ``./`` for the home page."""
    depth = len([part for part in here.split("/") if part])
    return "../" * depth or "./"


# --------------------------------------------------------------------------- view model


@dataclass(frozen=True)
class ParamRow:
    """One row of the parameter table, formatted."""

    name: str
    A: str
    B: str
    C_mid: str
    C_mid_h100: str
    R0: str
    fit_on: str
    status: str


def _param_row(s: charts.Series, factor: derive.Factor) -> ParamRow:
    fit: m.ScaleRLFit = s.fit
    h100 = derive.h100_equivalent_hours(fit.C_mid.value, factor)
    return ParamRow(
        name=s.title, A=derive.format_figure(fit.A), B=derive.format_number(fit.B.value),
        C_mid=derive.format_number(fit.C_mid.value), C_mid_h100=f"≈{derive.format_number(h100)}",
        R0=derive.format_figure(fit.R0) if fit.R0 is not None else "0% (assumed)",
        fit_on=f"{fit.model}, {fit.dataset}", status=s.status.value,
    )


CAPTION = fallback.CAPTION
PAGE, EMBED, EXPORT = "page", "embed", "export"
"""Where a figure is shown: a site page, the embed page, or a file exported by the CLI."""
VARIANT_LABELS = ("light", "dark", "narrow", "narrow dark")
"""How the tools row names ``share.VARIANTS``."""


def _fallback(chart: charts.Chart, mode: str, data_base: str, site_url: str) -> dict[str, Any]:
    """The static chart: the chart's files on a page or embed page, inline SVGs in an export
    (nothing beside it to refer to); its box's style, and on an embed page where its legend
    starts (``fallback``)."""
    exported, label = mode == EXPORT, chartsvg.label_id(chart, CAPTION)
    return {"svg": (fallback.inline_svgs(chart, styled=False) if exported
                    else fallback.pictures(chart, data_base, site_url, label)),
            "label": label,
            "frame_style": fallback.frame_style(chart, site_url, files=not exported),
            "legend": fallback.legend_attr(chart) if mode != PAGE else ""}


def figure_context(chart: charts.Chart, *, root: str, site_url: str, mode: str = PAGE,
                   params: bool = True) -> dict[str, Any]:
    """Every value ``figure.html`` prints.

    ``root`` is the relative path from the page to the site root; data links point at the
    chart's embed folder (siblings on the embed page; none in an export, whose data is inline).
    What the figure does not print is not made (issue 47): the parameter rows without a table
    (an algorithm page's figure, ``params=False``), the images' alt text on a site page (only
    the standalone page's preview tags print it).
    """
    data_base = "" if mode == EMBED else f"{root}{EMBED_DIR}/{chart.id}/"
    show_params = params and mode != EMBED
    note = chart.unverified_note
    base = _site_base(site_url)
    page_url = "" if mode == EXPORT and not base else f"{base or root}{chart.page}"
    return {
        "id": chart.id, "title": chart.title, "description": chart.description,
        "unverified_note": note,
        **_fallback(chart, mode, data_base, site_url),
        "spec_json": (Markup(template_json(plotlyspec.plotly_figure(chart))) if mode == EXPORT
                      else ""),
        "spec_url": "" if mode == EXPORT else f"{data_base}{SPEC_FILE}",
        "data_links": mode != EXPORT,
        "csv_url": f"{data_base}data.csv", "json_url": f"{data_base}data.json",
        "svg_url": f"{data_base}chart.svg", "png_url": f"{data_base}chart.png",
        "series_url": f"{data_base}{SERIES_DIR}/",
        "file_stem": chart.id, "data_base": data_base,
        "page_url": page_url,
        "share_url": f"{page_url}#chart-{chart.id}" if page_url else "",
        "link_target": "_top" if mode == EMBED else "",
        "canonical": f"{base}{EMBED_DIR}/{chart.id}/" if base else "",
        "oembed_url": f"{base}{EMBED_DIR}/{chart.id}/oembed.json" if base else "",
        "show_embed": mode == PAGE,
        "show_params": show_params,
        "box": embedbox.box_texts(chart, base or root) if mode == PAGE else {},
        "variants": [(v.png(), label) for v, label in zip(share.VARIANTS, VARIANT_LABELS,
                                                           strict=True)],
        "date": chart.date,
        "summary": share.long_description(chart),
        "alt": share.alt_text(chart) if mode != PAGE else "",
        "heading": mode == EMBED,
        "key": [(f"{s.name} ({charts.UNVERIFIED_MARK})" if s.unverified else s.name, s.color)
                for s in chart.series] if mode == EMBED else [],
        "others": chart.others if mode == PAGE else (),
        "rows": ([_param_row(s, chart.factor) for s in chart.series]
                 if show_params or mode == EMBED else []),
        "factor_text": chart.factor_text if show_params else "",
        "sources": chart.sources,
        "licence": charts.LICENCE, "licence_url": charts.LICENCE_URL,
    }


def render_figure(chart: charts.Chart, *, root: str, site_url: str, mode: str = PAGE,
                  params: bool = True) -> str:
    ctx = figure_context(chart, root=root, site_url=site_url, mode=mode, params=params)
    return _env().get_template("figure.html").render(c=ctx).strip()


@dataclass(frozen=True)
class Assets:
    """How a standalone page gets its CSS and scripts: by URL (embed) or inline (export)."""

    root: str = "../../"
    inline_css: str = ""
    inline_js: str = ""
    inline_plotly: str = ""
    plotly_src: str = ""

    @property
    def shared_theme(self) -> str:
        """Where the theme script and colours are (``embed/``), or "" to inline them (an
        export that inlines its CSS is one file; the site's embed pages share them)."""
        return "" if self.inline_css else f"{self.root}{EMBED_DIR}/"


def render_standalone(chart: charts.Chart, site_url: str, *, mode: str = EMBED,
                      assets: Assets | None = None) -> str:
    """A page with only the chart (no site chrome): the embed page, or a CLI export. Neither is
    in the site's search index, so the figure's marks that keep its parts out of it are left
    out (issue 47: 100 bytes an embed page)."""
    assets = assets or Assets()
    ctx = figure_context(chart, root=assets.root, site_url=site_url, mode=mode)
    figure = _env().get_template("figure.html").render(c=ctx).strip()
    figure = figure.replace(" data-search-exclude", "")
    page = {
        "root": assets.root, "figure": Markup(figure),
        "shared": assets.shared_theme, "theme_js": files.THEME_JS, "theme_css": files.THEME_CSS,
        "inline_theme_js": Markup("" if assets.shared_theme else files.theme_js()),
        "inline_theme_css": Markup("" if assets.shared_theme else files.theme_css()),
        "inline_css": Markup(assets.inline_css),
        "inline_js": Markup(_script_safe(assets.inline_js)), "scripts": LOADER_SCRIPTS,
        "inline_plotly": Markup(_script_safe(assets.inline_plotly)),
        "plotly_src": assets.plotly_src,
        "fill": mode == EMBED,
        "oembed_rel": EMBED_OEMBED_REL,
        "preview_tags": Markup(_embed_preview_tags(chart, ctx) if ctx["canonical"] else ""),
    }
    return _env().get_template("embed.html").render(c=ctx, page=page)


def _embed_preview_tags(chart: charts.Chart, ctx: dict[str, Any]) -> str:
    """The embed page's og/twitter tags (the pages' pass runs before embeds are written)."""
    card = f"{ctx['canonical']}card.png"
    return previews.embed_page_tags(chart.title, chart.description, ctx["canonical"], card,
                                    ctx["alt"]).replace("\n  ", "\n")  # one a line, as the rest


def _script_safe(js: str) -> str:
    """Inline script text must not close its own tag."""
    return js.replace("</script", "<\\/script")


def render_embed_page(chart: charts.Chart, site_url: str) -> str:
    return render_standalone(chart, site_url, mode=EMBED)


# --------------------------------------------------------------------------- feature seam


def _charts(ctx: SiteContext) -> dict[str, charts.Chart]:
    """Every chart of the catalog, built once per site build (cached on the context)."""
    built = ctx.extra.get("charts")
    if built is None:
        built = {cid: _dated(charts.build_chart(ctx.catalog, cid, ctx.factor), ctx)
                 for cid in charts.chart_ids(ctx.catalog)}
        ctx.extra["charts"] = built
    return built


NO_FITS_NOTE = ('<p class="tn-note">No algorithm in the catalog has a ScaleRL fit yet, so there '
                'is no curve to compare. An algorithm\'s fit (<code>scalerl:</code> A, B and '
                'C<sub>mid</sub>) adds its curve here and its own chart to its page.</p>')
"""What the comparison chart's place shows while no algorithm has a fit (the chart needs one)."""


def macros(ctx: SiteContext) -> dict[str, Any]:
    """``chart`` and ``algorithm_chart``; also adds the chart to every fitted algorithm page."""

    def chart(chart_id: str, here: str | None = None, params: bool = True) -> str:
        """A chart by its stable id; an unknown id fails the build, listing the known ones.
        The comparison, while no algorithm has a fit, is a note saying so.

        ``here`` is the page it is placed on (default: the chart's own page, e.g.
        ``algorithms/`` for the comparison), which makes its links relative. ``params=False``
        leaves out the parameter table (for pages that show it already).
        """
        built = _charts(ctx)
        if chart_id == charts.COMPARISON_ID and chart_id not in built:
            return NO_FITS_NOTE
        if chart_id not in built:
            raise charts.UnknownChartError(chart_id, list(built))
        found = built[chart_id]
        root = root_from(found.page if here is None else here)
        return render_figure(found, root=root, site_url=ctx.site_url, params=params)

    def algorithm_chart(algorithm_id: str) -> str:
        """The algorithm's own chart (its page lists the parameters), or "" without a fit."""
        if algorithm_id not in ctx.catalog.algorithms:
            raise KeyError(f"unknown algorithm id {algorithm_id!r}")
        chart_id = charts.algorithm_chart_id(algorithm_id)
        return chart(chart_id, params=False) if chart_id in _charts(ctx) else ""

    def algorithm_section(_ctx: SiteContext, algorithm_id: str, links: Links) -> str:
        chart_id = charts.algorithm_chart_id(algorithm_id)
        if chart_id not in _charts(ctx):
            return ""
        return chart(chart_id, here=links.here, params=False)

    pages.add_algorithm_section(ctx, "chart", algorithm_section)
    return {"chart": chart, "algorithm_chart": algorithm_chart}


def _dated(chart: charts.Chart, ctx: SiteContext) -> charts.Chart:
    """The chart with the date its data last changed (``spec.data_date``: from its sources,
    never the build day), which its images print."""
    return dataclasses.replace(chart, date=charts.data_date(ctx.catalog, chart))


def image_cache_folder(root: Path) -> Path:
    """The image cache of the project at ``root``: ``$TINKERNOMICS_IMAGE_CACHE``, else there."""
    return Path(os.environ.get(IMAGE_CACHE_ENV) or root / IMAGE_CACHE_DIR)


def image_cache(ctx: SiteContext) -> images.ImageCache:
    draw = os.environ.get(CHART_IMAGES_ENV, "1") != "0"
    return images.ImageCache(image_cache_folder(ctx.root), draw=draw)


def write_series_files(ctx: SiteContext, chart: charts.Chart, folder: Path) -> None:
    """Traces of each fitted curve the comparison leaves out, on its axis, for "add a curve"."""
    if not chart.others:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for algorithm_id, _name in chart.others:
        series = charts.series_for(ctx.catalog, algorithm_id, chart.x_low, chart.x_high,
                                   chart.factor)
        traces = plotlyspec.series_file_traces(series, chart)
        files.write_text(folder / f"{algorithm_id}.json", json.dumps(
            traces, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


_PREFILL_KEY, _IMAGE_KEYS = "image_prefill", "image_keys"


def _image_keys(ctx: SiteContext) -> dict[str, str]:
    """Each chart's image key (``images.chart_key``), made once per build for the prefill and
    the placing (each made it, issue 47)."""
    if _IMAGE_KEYS not in ctx.extra:
        ctx.extra[_IMAGE_KEYS] = {cid: images.chart_key(chart, ctx.site_url)
                                  for cid, chart in _charts(ctx).items()}
    return ctx.extra[_IMAGE_KEYS]


def _image_jobs(ctx: SiteContext) -> list[images.ImageJob]:
    keys = _image_keys(ctx)
    return [job for cid, chart in _charts(ctx).items()
            for job in images.all_jobs(chart, ctx.site_url, keys[cid])]


def start_outputs(ctx: SiteContext) -> None:
    """Before the pages: start the workers on the images not cached yet, which then render
    beside MkDocs' pages; those a failed build left (``mkdocs serve``) are stopped first."""
    images.stop_all()
    ctx.extra[_PREFILL_KEY] = image_cache(ctx).start_prefill(_image_jobs(ctx))


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """Embeds, downloads, images, the host resize script and the self-hosted plotly.js."""
    vendor = site_dir / VENDOR_PLOTLY
    vendor.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js_path(), vendor)
    embed_root = site_dir / EMBED_DIR
    embed_root.mkdir(parents=True, exist_ok=True)
    for name, text in files.shared_embed_files().items():
        (embed_root / name).write_text(text, encoding="utf-8")
    cache = image_cache(ctx)
    started = ctx.extra.pop(_PREFILL_KEY, None)
    if started is not None:  # MkDocs: started before the pages, from the same jobs
        started.wait()
    else:  # Zensical, `tinkernomics outputs`: nothing started earlier
        cache.prefill(_image_jobs(ctx))
    built, keys, page_pass = _charts(ctx), _image_keys(ctx), finish.site_pass(ctx)
    for chart_id, chart in built.items():  # each embed page written finished, once
        page = finish.finish_rendered(render_embed_page(chart, ctx.site_url), f"{EMBED_DIR}/"
                                      f"{chart_id}/index.html", str(site_dir), page_pass)
        files.write_chart_files(chart, embed_root / chart_id, ctx.site_url, page, cache,
                                keys[chart_id])
    if charts.COMPARISON_ID in built:
        comparison = built[charts.COMPARISON_ID]
        write_series_files(ctx, comparison, embed_root / charts.COMPARISON_ID / SERIES_DIR)
        card = site_dir / SITE_CARD
        card.parent.mkdir(parents=True, exist_ok=True)
        cache.place(images.svg_job(images.site_card_svg(comparison, SITE_TAGLINE, ctx.site_url),
                                   images.CARD_WIDTH_PX), card)
    cache.prune()
