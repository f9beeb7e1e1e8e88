"""Test helpers: attribution as text, the reference the embed box's script is held to (issue
47: charts-share.js writes these from the chart's facts; tests/test_embedbox_browser.py compares
each): the caption that goes under a chart's image in a post or newsletter, and "cite this
chart" as plain text and BibTeX.

Each names the chart's title, who publishes it, the sources its numbers rest on, the date the
data last changed (``Chart.date``, from the sources, never the build day), the data licence
and the chart's page. Catalog text reaches them (titles of charts and references): the HTML
and Markdown callers escape it for their format, and BibTeX gets its special characters
escaped here.
"""

from __future__ import annotations

import re

from tinkernomics.site.charts.spec import LICENCE, LICENCE_URL, PUBLISHER, Chart

SOURCES_NAMED = 2
"""Sources a caption names by title before "and N more" (the cite block names them all)."""


def page_url(chart: Chart, base: str) -> str:
    return f"{base}{chart.page}#chart-{chart.id}"


def _sources(chart: Chart, limit: int | None = SOURCES_NAMED) -> str:
    titles = [s.title for s in chart.sources]
    if limit is None or len(titles) <= limit:
        return "; ".join(titles)
    return f"{'; '.join(titles[:limit])} and {len(titles) - limit} more"


def caption_parts(chart: Chart, base: str) -> list[str]:
    """The caption's sentences, without markup: title; publisher, sources; date; licence."""
    dated = f" Data as of {chart.date}." if chart.date else ""
    return [f"{chart.title}.", f"Source: {PUBLISHER}, from {_sources(chart)}.{dated}",
            f"Data licence {LICENCE}.", page_url(chart, base)]


def _year(chart: Chart) -> str:
    return chart.date[:4] if chart.date else ""


def cite_text(chart: Chart, base: str) -> str:
    """"Cite this chart", plain text (author-date, as most styles start)."""
    year = f" ({_year(chart)})" if chart.date else ""
    dated = f" Data as of {chart.date}." if chart.date else ""
    return (f"{PUBLISHER}{year}. {chart.title} [chart]. Sources: {_sources(chart, None)}."
            f"{dated} Data licence {LICENCE} ({LICENCE_URL}). {page_url(chart, base)}")


_BIBTEX_SPECIAL = re.compile(r"[\\{}%&$#_^~]")
_BIBTEX_ESCAPES = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}


def bibtex_text(text: str) -> str:
    """Catalog text inside a BibTeX field: braces, backslashes and TeX specials escaped, so a
    title cannot close the field or run a macro."""
    return _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_ESCAPES.get(m.group(), "\\" + m.group()), text)


def bibtex(chart: Chart, base: str) -> str:
    """"Cite this chart" as a BibTeX ``@misc`` entry; its key is the chart id's letters."""
    key = re.sub(r"[^a-z0-9]+", "_", f"tinkernomics_{chart.id}".lower())
    fields = [("author", PUBLISHER), ("title", bibtex_text(chart.title))]
    if chart.date:
        fields.append(("year", _year(chart)))
    url = page_url(chart, base)
    url = url.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")  # cannot close
    note = f"Data as of {chart.date}. " if chart.date else ""
    fields += [("url", url),
               ("note", bibtex_text(f"{note}Sources: {_sources(chart, None)}. "
                                    f"Data licence {LICENCE}."))]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{key},\n{body}\n}}"
