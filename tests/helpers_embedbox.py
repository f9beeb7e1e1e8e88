"""The embed box's snippets as text, built in Python: the reference charts.js must write in
the browser (``fillBox``; tests/test_embedbox_browser.py compares every snippet, per theme and
background). The site does not ship these: a page carries ``embedbox.box_data`` only."""

from __future__ import annotations

import re
from html import escape
from urllib.parse import urlsplit

import helpers_cite as cite

from tinkernomics.site.charts import embed, share
from tinkernomics.site.charts.share import VARIANTS, Variant
from tinkernomics.site.charts.spec import LICENCE_URL, Chart

BY_STEM = {v.stem: v for v in VARIANTS}
THEMES = ("auto", "light", "dark")
"""The snippet themes (the values of ``?theme=``)."""
NARROW_MEDIA = "(max-width: 600px)"
DARK_MEDIA = "(prefers-color-scheme: dark)"


def image_url(chart: Chart, base: str, variant: Variant) -> str:
    return f"{base}embed/{chart.id}/{variant.png()}"


def sources(chart: Chart, base: str, theme: str) -> list[tuple[str, str]]:
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
    sources = source_tags(chart, base, theme)
    img = (f'<img src="{escape(image_url(chart, base, wide))}" width="{size[0]}" '
           f'height="{size[1]}" alt="{escape(share.alt_text(chart))}" loading="lazy" '
           'style="max-width:100%;height:auto">')
    page = escape(cite.page_url(chart, base))
    return (f'<figure><a href="{page}"><picture>{sources}{img}</picture></a>'
            f"<figcaption>{html_caption(chart, base)}</figcaption></figure>")


def html_caption(chart: Chart, base: str) -> str:
    """The caption (``cite.caption_parts``) with the page and the licence as links."""
    title, source, licence, page = cite.caption_parts(chart, base)
    return (f"{escape(title)} {escape(source)} "
            f'<a href="{escape(LICENCE_URL)}">{escape(licence)}</a> '
            f'<a href="{escape(page)}">{escape(page)}</a>')


_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>]")


def markdown_text(text: str) -> str:
    """Catalog text in Markdown: every character Markdown reads as markup (or raw HTML: ``<``)
    backslash-escaped."""
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), text)


def markdown_snippet(chart: Chart, base: str, theme: str = "auto") -> str:
    """``[![alt](chart.png)](page)`` and the caption in italics: Markdown has one image,
    light unless ``theme`` is dark."""
    stem = "chart-dark" if theme == "dark" else "chart"
    url = image_url(chart, base, BY_STEM[stem])
    title, source, licence, page = cite.caption_parts(chart, base)
    caption = markdown_text(f"{title} {source} {licence}")
    return (f"[![{markdown_text(share.alt_text(chart))}]({url})]({page})\n"
            f"*{caption}* <{page}>")



def source_tags(chart: Chart, base: str, theme: str) -> str:
    """The ``<source>`` elements of the ``<picture>`` for ``theme``."""
    return "".join(
        f'<source media="{media}" srcset="{escape(image_url(chart, base, BY_STEM[stem]))}">'
        for media, stem in sources(chart, base, theme))

def strict_snippet(chart: Chart, base: str, theme: str = "auto") -> str:
    """For a host with a strict Content-Security-Policy: no inline style (a ``style-src 'self'``
    policy drops it), the height an attribute, the script from the site (``csp_line``)."""
    attributes = embed._frame_attributes(chart, base, theme, embed.one_height(chart))
    return f"<iframe {attributes}></iframe>\n{embed.resize_script(base)}"


def site_origin(base: str) -> str:
    """``https://host`` of the site URL ("" without one: charts.js fills it in the page)."""
    parts = urlsplit(base)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def csp_line(base: str) -> str:
    """What a host with a strict policy adds to it so the embed and resize.js load."""
    origin = site_origin(base) or SITE_ORIGIN_PLACEHOLDER
    return f"script-src {origin}; frame-src {origin}"


SITE_ORIGIN_PLACEHOLDER = "<this site's origin>"

def caption_text(chart: Chart, base: str) -> str:
    """The caption as one line of plain text (title, source, date, licence, URL)."""
    return " ".join(cite.caption_parts(chart, base))


