"""What the "Embed this chart" box under a chart offers (pipeline step 6, a chart on a page):
one snippet per kind of host, side by side, and attribution as text.

- blog or CMS: the iframe with its height formula, and ``resize.js`` for exact heights (with
  the one policy line a host with a strict Content-Security-Policy adds, naming the site);
- a strict policy: the iframe with no inline style, its height an attribute;
- Notion, Medium and link previews: the embed page's plain URL;
- a newsletter: the image with its caption (HTML or Markdown, ``share``);
- the caption as text and "cite this chart" (plain text and BibTeX, written by charts-share.js
  from the facts; tests/helpers_cite.py is the reference).

The page carries only, for a reader without JavaScript, the plain embed address as a link.
The chart's facts (``box_data``) are in its ``spec.json`` (key ``box``, ``file_facts``), which
charts-share.js fetches when a reader opens the box (until issue 47 every page carried them
inline, 2.3 KB a chart). charts.js (``fillBox``) writes the box's hosts, theme menu and every
snippet from those facts, per theme and background. The snippets it writes equal
``embed.embed_snippet`` (the oEmbed html), ``embed.embed_src`` and the reference builders in
tests/helpers_embedbox.py (tests/test_embedbox_browser.py holds the two sides to that). Every
height is ``embed.one_height``. URLs are absolute when the site knows its URL; otherwise they are
relative to the file (``FILE_ROOT``) and charts.js makes them absolute in the browser.
"""

from __future__ import annotations

from typing import Any

from tinkernomics.site.charts import embed, share
from tinkernomics.site.charts.spec import LICENCE_URL, Chart


def box_data(chart: Chart, site_url: str, base: str) -> dict[str, Any]:
    """The facts charts.js builds the box's snippets from; ``base`` is the site URL, or the
    page's root without one."""
    width, height = share.png_size(chart, site_url)
    return {
        "id": chart.id, "base": base, "page": chart.page, "title": chart.title,
        "alt": share.alt_text(chart), "png": [width, height],
        "height": embed.one_height(chart),
        "narrow": embed.secant_terms(chart, embed.NARROW_NODES),
        "wide": embed.secant_terms(chart, embed.WIDE_NODES),
        "date": chart.date, "sources": [s.title for s in chart.sources],
        "licence": LICENCE_URL,
    }



FILE_ROOT = "../../"
"""The site root from a chart's embed folder, where ``file_facts`` are (``embed/<id>/``)."""
def file_facts(chart: Chart, site_url: str) -> dict[str, Any]:
    """The facts in the chart's ``spec.json``: ``box_data``, their base the site URL, else the
    root relative to the file."""
    return box_data(chart, site_url, site_url.rstrip("/") + "/" if site_url else FILE_ROOT)


def box_texts(chart: Chart, base: str) -> dict[str, Any]:
    """What figure.html prints in the box: the plain embed address (the no-script fallback)."""
    return {"url": embed.embed_src(chart, base)}
