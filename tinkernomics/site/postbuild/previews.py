"""Link previews (pipeline step 6, written after the pages): Open Graph, Twitter, oEmbed links.

Every built page gets ``og:*`` tags, ``twitter:card`` and ``twitter:image:alt`` and, when it
shows a chart, the chart's preview card and a ``<link rel="alternate"
type="application/json+oembed">``. No ``twitter:title``, ``twitter:description`` or
``twitter:image``: X's card processor reads ``og:title``, ``og:description`` and ``og:image``
when they are absent (developer.x.com/cards/markup, "Cards Markup Tag Reference": each Twitter
tag's OpenGraph fallback), so they would repeat the og: tags' text on every page; the card
type (``summary_large_image``, no og: equivalent) and the image's alt text (no fallback) stay.
They are added to the finished HTML by the outputs step (or, under MkDocs, by its hooks just
before a page is written: ``postbuild.finish``), not by a theme template, so the MkDocs and the
Zensical builds carry the same tags (Zensical's template engine lacks the string methods and
filters a template would need to find the page's chart and first paragraph). URLs are absolute, from
``site_url``, so a site under a sub-path stays right. Every image has its alt text (a chart's
card: the chart's finding, from its figure's summary) and every page names the site
(``og:site_name``). The oEmbed link is ``rel="alternate oembed"``: WordPress's discovery reads
the ``type`` and fetches the absolute ``href``, while Material's instant navigation, which
fetches a ``sitemap.xml`` beside every ``link[rel=alternate]`` (exact value), leaves it alone,
so a page served on another origin than its site URL fetches nothing from that URL. The
embed pages write their own tags (``embed_page_tags``). The same pass takes the theme's
indentation out of every page it tags (``whitespace.strip_theme_indentation``): the pages
are read and written once either way.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from tinkernomics.site.identity import CARD_HEIGHT_PX, CARD_WIDTH_PX, SITE_CARD, SITE_NAME
from tinkernomics.site.postbuild.glossarylinks import link_first_uses
from tinkernomics.site.postbuild.whitespace import strip_theme_indentation

DESCRIPTION_CHARS = 300
"""Longest og:description, in characters (previews cut longer text anyway)."""
CARD_SIZE_PX = (CARD_WIDTH_PX, CARD_HEIGHT_PX)
SITE_CARD_ALT = (f"{SITE_NAME}: the economics of RL post-training for LLMs, over a chart of "
                 "ScaleRL convergence fits by algorithm")
OEMBED_REL = "alternate oembed"
"""Not the bare ``alternate``: see the module docstring (Material's sitemap fetch)."""

_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_CANONICAL = re.compile(r'<link rel="canonical" href="([^"]+)"')
_CHART = re.compile(r'data-tn-chart="([a-z0-9_.-]+)"')
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_TAG = re.compile(r"<[^>]+>")
_META_DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)"')
_SUMMARY = re.compile(r'<p class="tn-chart__summary[^"]*"[^>]*>(.*?)</p>', re.S)
_SENTENCE_END = re.compile(r"[.!?…](?=\s|$)")
_MARKER = 'property="og:title"'
_OEMBED = "application/json+oembed"


@dataclass(frozen=True)
class Preview:
    """What a link to one page previews as."""

    title: str
    description: str
    url: str
    image: str
    chart: str | None
    oembed: bool = False
    """Whether to add the chart's oEmbed discovery link."""
    image_alt: str = SITE_CARD_ALT

    def tags(self, site_url: str) -> str:
        """The ``<head>`` tags, escaped."""
        esc = html.escape
        lines = [
            '<meta property="og:type" content="website">',
            f'<meta property="og:site_name" content="{SITE_NAME}">',
            f'<meta property="og:title" content="{esc(self.title)}">',
            f'<meta property="og:description" content="{esc(self.description)}">',
            f'<meta property="og:url" content="{esc(self.url)}">',
            f'<meta property="og:image" content="{esc(self.image)}">',
            f'<meta property="og:image:width" content="{CARD_SIZE_PX[0]}">',
            f'<meta property="og:image:height" content="{CARD_SIZE_PX[1]}">',
            f'<meta property="og:image:alt" content="{esc(self.image_alt)}">',
            '<meta name="twitter:card" content="summary_large_image">',
            f'<meta name="twitter:image:alt" content="{esc(self.image_alt)}">',
        ]
        if self.chart and self.oembed:
            lines.append(f'<link rel="{OEMBED_REL}" type="application/json+oembed" '
                         f'href="{esc(site_url)}embed/{self.chart}/oembed.json" '
                         f'title="{esc(self.title)}">')
        return "\n  ".join(lines)


def _text(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def as_sentence(text: str) -> str:
    """A paragraph that leads into a list (ends in ``:``) cut after its last full sentence;
    "" if it has none."""
    if not text.endswith(":"):
        return text
    ends = list(_SENTENCE_END.finditer(text))
    return text[:ends[-1].end()] if ends else ""


def _description(page: str) -> str:
    """The page's own summary: the first non-empty paragraph of its article that reads as a
    sentence, else the page's meta description (its front matter's, or the site's)."""
    start = page.find("<article")
    for match in _PARAGRAPH.finditer(page, start if start >= 0 else 0):
        text = as_sentence(_text(match.group(1)))
        if text:
            return text if len(text) <= DESCRIPTION_CHARS else text[:DESCRIPTION_CHARS - 1] + "…"
    return _text(m.group(1)) if (m := _META_DESCRIPTION.search(page)) else ""


def card_alt(chart_title: str, summary: str) -> str:
    """Alt text of a chart's preview card: the chart's summary, which says what chart it is
    ("Line chart: <its title>, ...") and what it shows, as the card does (issue 47: it was
    prefixed with "Preview card: <the page's title>", which the card's own text gives, in both
    tags of every page); the title alone when there is no summary."""
    return summary.strip() or f"Preview card: {chart_title}"


def preview(page: str, rel_url: str, site_url: str) -> Preview:
    """The preview of one built page (``rel_url``: its URL relative to the site root)."""
    title = _text(m.group(1)) if (m := _TITLE.search(page)) else ""
    canonical = m.group(1) if (m := _CANONICAL.search(page)) else site_url + rel_url
    chart = m.group(1) if (m := _CHART.search(page)) else None
    if not chart:  # the site's card: no chart summary or oEmbed link to look for
        return Preview(title, _description(page), canonical, site_url + SITE_CARD, None)
    image = site_url + f"embed/{chart}/card.png"
    announces_oembed = _OEMBED in page  # the embed pages link their oEmbed file themselves
    summary = _text(m.group(1)) if (m := _SUMMARY.search(page)) else ""
    return Preview(title, _description(page), canonical, image, chart,
                   oembed=not announces_oembed, image_alt=card_alt(title, summary))


def embed_page_tags(title: str, description: str, url: str, image: str, summary: str) -> str:
    """The og/twitter tags of a chart's embed page (it carries its own oEmbed link)."""
    return Preview(title, description, url, image, None,
                   image_alt=card_alt(title, summary)).tags("")


def page_url(site_dir: Path, path: Path) -> str:
    rel = path.relative_to(site_dir).as_posix()
    return rel[: -len("index.html")] if rel.endswith("index.html") else rel


def tag_page(page: str, rel_url: str, base: str) -> str:
    """``page`` with its preview tags, without the theme's indentation and with its glossary
    terms linked at first use (``glossarylinks``); unchanged when it
    carries its own tags (the embed pages) or has no ``<head>`` (redirects, fragments).
    ``base``: the site URL ending in ``/`` (or empty)."""
    if _MARKER in page or "</head>" not in page:
        return page
    tags = preview(page, rel_url, base).tags(base)
    page = strip_theme_indentation(page.replace("</head>", f"{tags}\n</head>", 1))
    return link_first_uses(page, rel_url)


def site_base(site_url: str) -> str:
    """The site URL ending in ``/`` (empty stays empty)."""
    return site_url if site_url.endswith("/") or not site_url else site_url + "/"
