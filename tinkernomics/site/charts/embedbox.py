"""What the "Embed this chart" box under a chart offers (pipeline step 6, a chart on a page):
one snippet per kind of host, side by side, and attribution as text.

- blog or CMS: the iframe with its height formula, and ``resize.js`` for exact heights (with
  the one policy line a host with a strict Content-Security-Policy adds: ``embed.csp_line``);
- a strict policy: the iframe with no inline style, its height an attribute;
- Notion, Medium and link previews: the embed page's plain URL;
- a newsletter: the image with its caption (HTML or Markdown, ``share``);
- the caption as text and "cite this chart" (plain text and BibTeX, ``cite``).

Every height is ``embed.one_height``. URLs are absolute when the site knows its URL;
otherwise they are relative to the page and charts.js makes them absolute in the browser.
"""

from __future__ import annotations

from typing import Any

from tinkernomics.site.charts import cite, embed, share
from tinkernomics.site.charts.spec import Chart


def box_texts(chart: Chart, site_url: str, base: str) -> dict[str, Any]:
    """Every text of the box; ``base`` is the site URL, or the page's root without one."""
    return {
        "snippet": embed.embed_snippet(chart, base),
        "strict": embed.strict_snippet(chart, base),
        "csp": embed.csp_line(site_url.rstrip("/") + "/" if site_url else ""),
        "url": embed.embed_src(chart, base),
        "images": share.image_snippets(chart, site_url, base),
        "caption": cite.caption_text(chart, base),
        "cite": cite.cite_text(chart, base),
        "bibtex": cite.bibtex(chart, base),
        "height": embed.one_height(chart),
    }
