"""One chart's files in its embed folder (pipeline step 6, outputs of the charts feature).

``write_chart_files`` writes ``embed/<id>/``: the embed page (``index.html``), the data
(``data.csv``, ``data.json`` and, for a chart of several curves, ``data-wide.csv``), the
images in every variant (``share.VARIANTS``: ``chart.png``, ``chart-dark.png``,
``chart-narrow.png``, ``chart-narrow-dark.png``, and the same as SVG), the preview card
(``card.png``), the oEmbed response (``oembed.json``) and the Plotly spec.

Each image is one file at one address: none is written twice under another name. A dated
name was, until issue 47; GitHub Pages' artifact stores a hard-linked copy as a second file,
and the site is rebuilt from scratch, so the dated copy only ever held the current image and
was gone at the data's next change. The images print their data's date.

Nor does a folder hold what nobody reads (issue 47): the per-width oEmbed files (``embed``)
and an empty ``sitemap.xml`` went. That sitemap was kept for pages whose oEmbed link said
``rel="alternate"`` exactly, beside which Material's instant navigation fetches a sitemap; its
fetch treats a missing one as empty (the bundle's ``catchError``), and site pages now say
``rel="alternate oembed"``, which it does not match.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import embed, embedbox, images, plotlyspec, share
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg
from tinkernomics.site.postbuild import inplace

SPEC_FILE = "spec.json"
"""The chart's Plotly figure, beside its downloads: the page and the embed page fetch it when a
reader first interacts (one copy per chart, not one per page; an export inlines it whole). It
holds what is the chart's own: charts.js joins it with ``SPEC_BASE_FILE`` and the curve
points of ``data.json`` (``plotlyspec.file_figure``)."""
BOX_KEY = "box"
"""In ``spec.json``: the embed box's facts, which charts.js leaves out of the figure."""
SPEC_BASE_FILE = "spec-base.json"
"""In ``embed/``: what every chart's Plotly figure holds alike (``plotlyspec.shared_figure``)."""
DATA_JSON = "data.json"
THEME_JS = "theme.js"
THEME_CSS = "theme.css"
"""In ``embed/`` beside ``resize.js``: every embed page's theme script, and its colours and
chart SVG rules (``theme_css``), shared (``shared_embed_files``); an export inlines them."""
def template_text(name: str) -> str:
    return (resources.files("tinkernomics.site.charts") / "templates" / name).read_text("utf-8")


def theme_js() -> str:
    """The embed page's theme script (``templates/embed-theme.js``)."""
    return template_text("embed-theme.js").strip()


def theme_css() -> str:
    """The embed page's colours (``embed.embed_theme_css``), then the rules of its chart's
    SVG (``svg.page_css``), in the order the page had them when the SVG carried its own
    ``<style>`` (700 bytes in each embed page, issue 47)."""
    return embed.embed_theme_css() + chartsvg.page_css()


def shared_embed_files() -> dict[str, str]:
    """``embed/``'s own files: ``resize.js`` for host pages, the embed pages' theme script
    and colours, one copy each instead of 4 KB inline in every embed page, and what every
    chart's ``spec.json`` shares (``SPEC_BASE_FILE``; issue 47)."""
    return {"resize.js": template_text("resize.js"), THEME_JS: theme_js() + "\n",
            THEME_CSS: theme_css() + "\n", SPEC_BASE_FILE: json_text(plotlyspec.shared_figure())}


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def spec_file_text(chart: charts.Chart, site_url: str = "") -> str:
    """``spec.json``: the Plotly figure a page's or embed page's ``data-tn-spec`` names, less
    what ``embed/spec-base.json`` and the chart's ``data.json`` hold (``file_figure``), and the
    facts of its page's "Embed this chart" box (``box``: ``embedbox.file_facts``)."""
    figure = plotlyspec.file_figure(chart, f"../{SPEC_BASE_FILE}", DATA_JSON)
    return json_text({**figure, BOX_KEY: embedbox.file_facts(chart, site_url)})


def site_base(site_url: str) -> str:
    return site_url.rstrip("/") + "/" if site_url else ""


def place_images(chart: charts.Chart, folder: Path, site_url: str,
                 cache: images.ImageCache, key: str | None = None) -> tuple[int, int]:
    """Every variant and the card, keyed by ``key`` (``images.chart_key``, made here unless
    given); returns ``chart.png``'s size."""
    key = key or images.chart_key(chart, site_url)
    sizes = [cache.place(job, folder / variant.png(), measure=not index)
             for index, (variant, job) in enumerate(
                 zip(share.VARIANTS, images.variant_jobs(chart, site_url, key), strict=True))]
    cache.place(images.card_job(chart, site_url, key), folder / "card.png", measure=False)
    return sizes[0]


def write_text(path: Path | str, text: str) -> None:
    """``text`` as the UTF-8 file at ``path``, replacing its content (``\n`` kept as it is;
    ``inplace.write_over``: a rebuild's unchanged file is not written again): a chart's files
    are 5,500 writes at 1,000 algorithms, and a text-mode file object per write was a fifth of
    their CPU (issue 47)."""
    inplace.write_over(os.fspath(path), text.encode("utf-8"))


def write_chart_files(chart: charts.Chart, folder: Path, site_url: str, embed_page: str,
                      cache: images.ImageCache | None = None,
                      key: str | None = None) -> None:
    """The embed page (``embed_page``, rendered by the feature), data and image downloads,
    preview card and oEmbed of one chart; ``key``: its images'
    (``place_images``)."""
    cache = cache or images.ImageCache()
    folder.mkdir(parents=True, exist_ok=True)
    png_size = place_images(chart, folder, site_url, cache, key)
    texts = {
        "index.html": embed_page,
        "data.csv": chartdata.to_csv(chart, site_url),
        **({chartdata.CSV_FILES["wide"]: chartdata.to_wide_csv(chart, site_url)}
           if "wide" in chartdata.csv_files(chart) else {}),
        DATA_JSON: json_text(chartdata.to_json(chart, site_url)),
        **{v.svg: chartsvg.standalone_svg(chart, site_url, v.theme, v.layout) + "\n"
           for v in share.VARIANTS},
        SPEC_FILE: spec_file_text(chart, site_url),
        embed.OEMBED_FILE: json_text(embed.oembed(chart, site_base(site_url), png_size)),
    }
    for name, text in texts.items():
        write_text(folder / name, text)
