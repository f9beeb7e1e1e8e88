"""Pages feature (pipeline step 6): the macros the docs pages call, and the algorithm page stub.

Each macro builds a view model (``views.py``, the only computing) and renders one Jinja
template from ``tinkernomics/templates`` (which only loops, branches and formats). Macros return
markdown: headings as markdown (so they reach the table of contents) around HTML blocks. Every
macro knows the page it belongs on, so its links are relative and the site works under any
sub-path. Unknown ids raise, which fails the build.

Other features add sections to every algorithm page without touching the template:
``add_algorithm_section(ctx, "chart", render)`` where ``render(ctx, algo_id, links)`` returns
markdown -- optionally a ``## Heading {#id}`` line, a blank line, then ONE HTML element that
starts at column 0 -- or ``""`` to add nothing. Slots: ``chart`` (right after the ScaleRL fit),
``cost`` (after that) and ``end`` (before the references).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.pages import views
from tinkernomics.site.pages.figures import PARTIALS, md_text, meanings, meanings_once, per_page
from tinkernomics.site.pages.rawhtml import raw_block
from tinkernomics.site.pages.views import Links, SiteIndex
from tinkernomics.site.pages.views.checks import reference_checks

SLOTS = ("chart", "cost", "end")
"""Places on an algorithm page where other features may add sections."""

ALGORITHM_SECTIONS = "algorithm_sections"
"""Key in ``SiteContext.extra``: the registered ``AlgorithmSection`` hooks."""

_INDEX = "views.index"

SectionRender = Callable[[SiteContext, str, Links], str]


@dataclass(frozen=True)
class AlgorithmSection:
    slot: str
    render: SectionRender


def add_algorithm_section(ctx: SiteContext, slot: str, render: SectionRender) -> None:
    """Register ``render`` to add a section in ``slot`` of every algorithm page."""
    if slot not in SLOTS:
        raise ValueError(f"unknown algorithm page slot {slot!r} (slots: {', '.join(SLOTS)})")
    ctx.extra.setdefault(ALGORITHM_SECTIONS, []).append(AlgorithmSection(slot, render))


def algorithm_stub(algo_id: str) -> str:
    """The exact text of ``docs/algorithms/<id>.md`` (the scaffold writes it; no title: the
    macro renders the heading)."""
    return f'{{{{ algorithm_page("{algo_id}") }}}}\n'


# --------------------------------------------------------------------------- rendering

ENV = Environment(
    loader=PackageLoader("tinkernomics.site.pages", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    auto_reload=False,  # the package's templates: no stat of each file at every page
)
ENV.filters["mdtext"] = md_text
ENV.filters["raw"] = lambda html: Markup(raw_block(str(html)) + "\n")
ENV.globals.update(PARTIALS)

__all__ = ["md_text"]  # re-exported: the other features' environments filter with it


def render(template: str, **values: Any) -> str:
    """Render a template; tidy blank lines so HTML blocks stay single markdown blocks (every
    run of blank lines one blank line: ``str.replace`` until none is left, a third of the
    cost of a regular expression over a whole page)."""
    text = ENV.get_template(template).render(**values)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip() + "\n"


def site_index(ctx: SiteContext) -> SiteIndex:
    """The per-build index (reference numbers, back-links, unverified values), built once."""
    index = ctx.extra.get(_INDEX)
    if index is None:
        index = views.build_index(ctx.catalog, ctx.factor)
        ctx.extra[_INDEX] = index
    return index


# --------------------------------------------------------------------------- page macros


def home_overview(ctx: SiteContext) -> str:
    return render("home.html", cards=views.home_cards(site_index(ctx)))


def algorithms_table(ctx: SiteContext) -> str:
    index = site_index(ctx)
    links = Links(views.ALGORITHMS)
    rows = views.algorithm_rows(index, links)
    return raw_block(render("algorithms_table.html", rows=rows, filters=views.filter_views(rows),
                            factor=views.factor_view(index, links),
                            quality_href=links.to(views.DATA_QUALITY))) + "\n"


def raw_section(markdown: str) -> str:
    """A section added by another feature (an optional ``## Heading`` line, a blank line, one
    HTML element) with its HTML marked to pass through Markdown unparsed."""
    text = markdown.strip()
    head, body = ("", text) if text.startswith("<") else text.partition("\n\n")[::2]
    if not body.startswith("<"):
        return text
    return f"{head}\n\n{raw_block(body)}" if head else raw_block(body)


def algorithm_page(ctx: SiteContext, algo_id: str) -> str:
    """An algorithm's page. Its References list gives each of its references in full, so
    their citations carry no hover text (``figures.per_page``); it says each status meaning
    its badges carry once, at its end (``figures.meanings_once``)."""
    view = views.algorithm_view(site_index(ctx), algo_id)
    links = Links(views.algorithm_path(algo_id))
    with per_page(c.ref_id for c in view.references), meanings_once() as defined:
        sections: dict[str, list[Markup]] = {slot: [] for slot in SLOTS}
        for hook in ctx.extra.get(ALGORITHM_SECTIONS, []):
            html = hook.render(ctx, algo_id, links)
            if html:
                sections[hook.slot].append(Markup(raw_section(html)))
        page = render("algorithm.md", view=view, sections=sections)
    why = meanings(defined)
    return f"{page.rstrip()}\n\n{raw_block(why)}\n" if why else page


def formulas_page(ctx: SiteContext) -> str:
    index = site_index(ctx)
    kinds = [("flops", "FLOP formulas"), ("vram", "VRAM formulas")]
    return render("formulas.md", kinds=kinds,
                  groups=views.formulas_by_kind(index, Links(views.FORMULAS)))


def hardware_page(ctx: SiteContext) -> str:
    index = site_index(ctx)
    links = Links(views.HARDWARE)
    return render("hardware.md", hardware=views.hardware_views(index, links),
                  conversion=views.conversion_view(index, links))


def tinker_page(ctx: SiteContext) -> str:
    view = views.tinker_view(site_index(ctx))
    with per_page(c.ref_id for c in view.references):  # its References list gives them in full
        return render("tinker.md", view=view)


def references_page(ctx: SiteContext) -> str:
    return render("references.md", groups=views.reference_groups(site_index(ctx)))


def further_reading_page(ctx: SiteContext) -> str:
    items = views.further_reading_views(site_index(ctx))
    return raw_block(render("further_reading.html", items=items)) + "\n"


def data_quality_page(ctx: SiteContext) -> str:
    """The Data quality page. Its run blocks (``views.generic``) carry a badge on most
    figures: each status meaning is said once, at the page's end (``figures.meanings_once``),
    not as a title on every badge (~300 B a published run)."""
    index = site_index(ctx)
    with meanings_once() as defined:
        page = render("data_quality.md", groups=views.quality_groups(index),
                      total=len(index.unverified), checks=reference_checks(index),
                      generic_kinds=views.generic_views(index))
    why = meanings(defined)
    return f"{page.rstrip()}\n\n{raw_block(why)}\n" if why else page


PAGE_MACROS: dict[str, Callable[..., str]] = {
    "home_overview": home_overview,
    "algorithms_table": algorithms_table,
    "algorithm_page": algorithm_page,
    "formulas_page": formulas_page,
    "hardware_page": hardware_page,
    "tinker_page": tinker_page,
    "references_page": references_page,
    "further_reading_page": further_reading_page,
    "data_quality_page": data_quality_page,
}


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """The page macros, bound to this build's context."""
    def bind(fn: Callable[..., str]) -> Macro:
        def macro(*args: Any, **kwargs: Any) -> str:
            with per_page():  # a reference's full line once per page (figures.per_page)
                return fn(ctx, *args, **kwargs)
        macro.__name__ = fn.__name__
        macro.__doc__ = fn.__doc__
        return macro

    return {name: bind(fn) for name, fn in PAGE_MACROS.items()}
