"""Compare feature (pipeline step 6): the ``compare()`` macro, the column files, the links.

``compare()`` (docs/compare.md) renders the selection form and a static comparison of the
featured algorithms (``view.featured``), complete without JavaScript. ``write_outputs`` writes
``compare/columns/<id>.html`` for every algorithm, made by the same template macros as the
page's cells; ``compare.js`` fetches those a link's ``?a=`` selection names and swaps the
table's columns (it holds no data and no rules). Every algorithm page gets a "Compare" line
(``pages.add_algorithm_section``, slot ``end``, left out of the search index).

A column file is read only by compare.js, never shown as it is, so it leaves out what the
script restores from the file itself (``compact``): the cells' labels (the heading holds the id
and name), a citation's hover text after its reference's first citation in the file (the
script copies it from that one), and ``data-search-exclude`` (the file is no page, so nothing
indexes it). Issue 47: one such file per algorithm, about an eighth of each is those repeats.
What two or more column files hold (a citation, a figure, a whole cell) is then held once, in
``compare/columns/shared.json``, each file keeping a reference in its place (``shared``).

Each column file is written once, as the site serves it: with the Content-Security-Policy a
file without ``<head>`` gets (``postbuild.csp.with_policy``), so the last pass over every HTML
file (``postbuild.finish``) reads it and finds nothing to change (issue 47: 1,000 files were
written twice).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import escape

from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.compare import shared, view
from tinkernomics.site.pages.feature import add_algorithm_section, md_text, site_index
from tinkernomics.site.pages.figures import PARTIALS, unmark
from tinkernomics.site.pages.rawhtml import raw_block
from tinkernomics.site.pages.views import Links
from tinkernomics.site.postbuild.csp import with_policy
from tinkernomics.site.postbuild.knownscripts import KnownScripts

SECTION_SLOT = "end"

ENV = Environment(
    loader=ChoiceLoader([PackageLoader("tinkernomics.site.compare", "templates"),
                         PackageLoader("tinkernomics.site.pages", "templates")]),
    autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
)
ENV.globals.update(PARTIALS)
ENV.filters["mdtext"] = md_text  # _partials.html's heading macro


def _index(ctx: SiteContext) -> view.SiteIndex:
    return site_index(ctx)


def compare_html(ctx: SiteContext) -> str:
    """The compare page's body: form, notices and the featured algorithms side by side."""
    index = _index(ctx)
    selected = view.featured(index)
    html = ENV.get_template("compare.html").render(
        columns=[view.column(index, a) for a in selected], selected=selected,
        choices=view.choices(index), rows=view.ROWS, columns_href=view.COLUMNS,
        shared_href=view.SHARED,
        min_columns=view.MIN_COLUMNS, max_columns=view.MAX_COLUMNS,
        caption="The algorithms side by side: one column each, one row per question.")
    return raw_block(html.strip()) + "\n"


def column_html(ctx: SiteContext, algo_id: str) -> str:
    """One algorithm's column file."""
    col = view.column(_index(ctx), algo_id)
    return compact(ENV.get_template("column.html").render(col=col, rows=view.ROWS).strip()) + "\n"


_CITE = re.compile(r'(<sup class="tn-cite"><a href="([^"]*)") title="[^"]*">')
"""A citation as ``figures.cite`` writes it (search mark dropped): its link and hover text."""


def compact(html: str) -> str:
    """A column file without what compare.js restores: each reference's citations after the
    first lose their hover text (the same text, as ``figures.cite`` writes it from the
    reference), and the search index's marks go."""
    seen: set[str] = set()

    def cite(match: re.Match[str]) -> str:
        href = match.group(2)
        if href in seen:
            return match.group(1) + ">"
        seen.add(href)
        return match.group(0)

    return _CITE.sub(cite, unmark(html))


NO_SCRIPTS = KnownScripts(frozenset())
"""A column file runs no script: its policy allows none (the one a file without ``<head>``
gets whatever the templates write)."""


def column_file(column: str) -> str:
    """A column file's text as it is written: ``column`` with its policy first."""
    return with_policy(column, NO_SCRIPTS).text


def compare_section(ctx: SiteContext, algo_id: str, links: Links) -> str:
    """The "Compare" section of an algorithm page: a link to it beside a featured algorithm
    (left out of the search index) and the other names of the field's terms its text uses."""
    index = _index(ctx)
    partner, href = view.compare_link(index, algo_id, links)
    name = index.algorithms[algo_id].name
    text = (f"Compare {name} with {partner}" if partner != name
            else f"Compare {name} with other algorithms")
    aka = "; ".join(f"{term}: {', '.join(names)}"
                    for term, names in view.also_known_as(index.algorithms[algo_id]))
    aka_line = f'<p class="tn-aka">Also known as: {escape(aka)}.</p>' if aka else ""
    return ("## Compare {#compare}\n\n<div class=\"tn-compare-section\">"
            f'<p class="tn-compare-link" data-search-exclude><a href="{escape(href)}">'
            f"{escape(text)}</a>: memory, clipping, KL, sampling, Tinker loss and convergence "
            f"side by side, up to four algorithms.</p>{aka_line}</div>")


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """``compare/columns/<id>.html`` for every algorithm, less the pieces two or more of them
    share, which go once into ``compare/columns/shared.json`` (``shared``), each with its
    policy (``column_file``)."""
    folder = site_dir / view.PAGE / view.COLUMNS
    folder.mkdir(parents=True, exist_ok=True)
    columns, pieces = shared.share({a: column_html(ctx, a) for a in _index(ctx).algorithms})
    for algo_id, text in columns.items():
        (folder / f"{algo_id}.html").write_text(column_file(text), encoding="utf-8")
    (site_dir / view.PAGE / view.SHARED).write_text(
        json.dumps(pieces, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """``compare()``; also adds the "Compare" line to every algorithm page."""
    add_algorithm_section(ctx, SECTION_SLOT, compare_section)

    def compare() -> str:
        """Two to four algorithms side by side (the featured ones without JavaScript)."""
        return compare_html(ctx)

    return {"compare": compare}
