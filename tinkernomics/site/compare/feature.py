"""Compare feature (pipeline step 6): the ``compare()`` macro, the column parts, the links.

``compare()`` (docs/compare.md) renders the selection form and a static comparison of the
featured algorithms (``view.featured``), complete without JavaScript. ``columns`` renders every
algorithm's column, made by the same functions as the page's cells (``cells``); each is written as
the ``"column"`` of the algorithm's one fetched file (``site.algorithmfiles``:
``calculator/algorithms/<id>.json``, which the calculator reads too), and ``compare.js`` fetches
those a link's ``?a=`` selection names and swaps the table's columns (it holds no data and no
rules). Every algorithm page gets a "Compare" line (``pages.add_algorithm_section``, slot
``end``, left out of the search index).

A column is read only by compare.js, never shown as it is, so it leaves out what the script
restores from the column itself (``column_html``): the cells' labels (the heading holds the id and
name), a citation's hover text after its reference's first citation in the column (the script
copies it from that one), and ``data-search-exclude`` (the column is no page, so nothing indexes
it). What two or more columns hold (a citation, a figure, a whole cell) is then held once, in
``compare/shared.json`` (``write_outputs``), each column keeping a reference in its place
(``shared``).

Issue 47: the columns were 1,000 HTML files of their own (``compare/columns/<id>.html``), each
with a Content-Security-Policy and read again by the last pass over every HTML file; as a JSON
string inside the algorithm's file they are one file fewer per algorithm, served as data (no
policy needed: nothing opens them as a page).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import escape

from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES
from tinkernomics.site.compare import cells, shared, view
from tinkernomics.site.pages.feature import add_algorithm_section, md_text, site_index
from tinkernomics.site.pages.figures import PARTIALS, per_page, unmark
from tinkernomics.site.pages.rawhtml import raw_block
from tinkernomics.site.pages.views import Links

SECTION_SLOT = "end"

ENV = Environment(
    loader=ChoiceLoader([PackageLoader("tinkernomics.site.compare", "templates"),
                         PackageLoader("tinkernomics.site.pages", "templates")]),
    autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    auto_reload=False,  # the package's templates: no stat of each file at every column
)
ENV.globals.update(PARTIALS)
ENV.globals.update(cells.GLOBALS)
ENV.filters["mdtext"] = md_text  # _partials.html's heading macro


def _index(ctx: SiteContext) -> view.SiteIndex:
    return site_index(ctx)


def compare_html(ctx: SiteContext) -> str:
    """The compare page's body: form, notices and the featured algorithms side by side."""
    index = _index(ctx)
    selected = view.featured(index)
    html = ENV.get_template("compare.html").render(
        columns=[view.column(index, a) for a in selected], selected=selected,
        choices=view.choices(index), rows=view.ROWS,
        columns_href=Links(view.PAGE).to(ALGORITHM_FILES), shared_href=view.SHARED,
        min_columns=view.MIN_COLUMNS, max_columns=view.MAX_COLUMNS,
        caption="The algorithms side by side: one column each, one row per question.")
    return raw_block(html.strip()) + "\n"


def column_html(ctx: SiteContext, algo_id: str) -> str:
    """One algorithm's column as compare.js reads it: a reference's hover text on its first
    citation only (compare.js copies it to the others), no search marks (nothing indexes it)."""
    col = view.column(_index(ctx), algo_id)
    with per_page():  # a reference's hover text on its first citation only
        html = cells.column(col)
    return unmark(html) + "\n"


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


_COLUMNS_KEY = "compare_columns"


def columns(ctx: SiteContext) -> tuple[dict[str, str], list[str]]:
    """Every algorithm's column (id -> HTML) less the pieces two or more of them share, and
    those pieces (``shared.share``); rendered once a build, for ``write_outputs`` and the
    algorithm files (``site.algorithmfiles``)."""
    found: Any = ctx.extra.get(_COLUMNS_KEY)
    if found is None:
        found = ctx.extra[_COLUMNS_KEY] = shared.share(
            {a: column_html(ctx, a) for a in _index(ctx).algorithms})
    return found


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """``compare/shared.json``: the pieces the columns share (the columns themselves are
    written into the algorithm files, ``site.algorithmfiles``)."""
    folder = site_dir / view.PAGE
    folder.mkdir(parents=True, exist_ok=True)
    (folder / view.SHARED).write_text(
        json.dumps(columns(ctx)[1], ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """``compare()``; also adds the "Compare" line to every algorithm page."""
    add_algorithm_section(ctx, SECTION_SLOT, compare_section)

    def compare() -> str:
        """Two to four algorithms side by side (the featured ones without JavaScript)."""
        return compare_html(ctx)

    return {"compare": compare}
