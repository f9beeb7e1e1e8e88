"""Ways to run, the comparisons (pipeline step 6, data for ``ways.feature``): one per run.

For each run the page prices (the calculator's default run and its presets), the side-by-side
rows ``derived.ways.compare`` computes at build time (total, basis, date, break-even against
Tinker, "not offered" with the service's reason, a missing price with why) and the
tinker-cookbook recipe ``derived.recipe.export`` writes for it, with the pinned commit. Only
formatting here: every number comes from ``derived/``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from markupsafe import Markup

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive, recipe
from tinkernomics.derived import ways as engine
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.markup.prose import to_inline_html
from tinkernomics.site.pages.views import Cite, Links, SiteIndex
from tinkernomics.site.pages.views.kinds import TINKER, entry_anchor

BASIS_LABELS = {"gpu_hours": "GPU-hours", "tokens": "trained tokens",
                "training_hours": "training hours", "free_tier": "free tier", "none": "no price"}
OFFER_LABELS = {"rented_gpus": "rented GPUs", "market_index": "market index",
                "managed_service": "managed service"}
RATE_UNITS = {"gpu_hours": "/GPU-hour", "tokens": "/1M tokens", "training_hours": "/hour"}
CALCULATOR = "calculator/"


@dataclass(frozen=True)
class RowView:
    key: str
    name: str
    href: str
    gpu: str
    offer: str
    basis: str
    rate: str
    amount: str
    total: str
    date: str
    dated: str
    status: str
    cite: Cite | None
    stale: str
    not_offered: str
    missing: str
    caveats: tuple[str, ...]
    versus_tinker: str
    free: str = ""
    """What a free tier covers ('' unless the row is one): shown beside its $0."""


@dataclass(frozen=True)
class RecipeView:
    repository: str
    commit: str
    commit_href: str
    module: str
    path: str
    command: str
    python: str
    sources: list[tuple[str, str]]
    warnings: tuple[Markup, ...]
    """Catalog Markdown and generated text, as the site's safe inline HTML."""


@dataclass(frozen=True)
class RunView:
    anchor: str
    label: str
    calculator_href: str
    algorithm: str
    model: str
    rows: list[RowView]
    recipe: RecipeView | None


def usd(value: float | None) -> str:
    """A catalog price as the source states it (``$6.225``, ``$2``)."""
    return "" if value is None else derive.format_money(value)


def total(value: float | None) -> str:
    """A computed total, always in cents (``$47.20``, never ``$47.2``)."""
    return "" if value is None else f"${value:,.2f}"


def _rate(row: engine.Row) -> str:
    if row.rate is None or row.basis not in RATE_UNITS:
        return ""
    high = f"–{usd(row.rate_high)}" if row.rate_high is not None else ""
    return f"{usd(row.rate)}{high}{RATE_UNITS.get(row.basis, '')}"


def _amount(row: engine.Row) -> str:
    if row.amount is None or row.basis not in RATE_UNITS:
        return ""
    return f"{derive.format_number(row.amount)} {BASIS_LABELS[row.basis]}"


def _versus_tinker(row: engine.Row) -> str:
    """This row's total against Tinker's bill, and the rate at which the two tie."""
    tie = row.break_even.get(engine.TINKER)
    if tie is None or tie.ratio is None:
        return ""
    text = f"{derive.format_number(tie.ratio)}× Tinker's bill"
    if tie.rate is not None and row.basis in RATE_UNITS:
        text += f"; ties at {total(tie.rate)}{RATE_UNITS[row.basis]}"
    return text


def _cite(index: SiteIndex, row: engine.Row, links: Links) -> tuple[Cite | None, str]:
    """The row's citation and where its name links (its offer, or Tinker's price list)."""
    if row.way == engine.TINKER:
        plist = row.source.removeprefix("price_list:")
        return None, links.to(TINKER, entry_anchor("price_list", plist))
    cite = index.cite(row.source, links) if row.source in index.references else None
    return cite, links.to(links.here, entry_anchor("way", row.way))


def row_view(index: SiteIndex, row: engine.Row, links: Links) -> RowView:
    cite, href = _cite(index, row, links)
    hardware = index.catalog.hardware
    return RowView(
        key=row.key, name=row.name, href=href,
        gpu=hardware[row.gpu].name if row.gpu in hardware else row.gpu,
        offer=OFFER_LABELS.get(row.offer, row.offer), basis=BASIS_LABELS.get(row.basis, row.basis),
        rate=_rate(row), amount=_amount(row), total=total(row.total),
        date=row.effective.isoformat() if row.effective else "", dated=row.dated,
        status=row.status, cite=cite, stale=row.stale, not_offered=row.not_offered,
        missing=row.missing, caveats=row.caveats, versus_tinker=_versus_tinker(row),
        free=_free(row))


def _free(row: engine.Row) -> str:
    """A free tier's row: what it covers, so its $0 is not read as a price for any run."""
    if row.basis != "free_tier":
        return ""
    covers = next((c for c in row.caveats if c.startswith("free for")), "free tier")
    return f"{covers}; listed after every paid way"


READER_SOURCES = {
    "link key m": "the model this run uses", "link key tm": "the teacher this run uses",
    "link key r (or the calculator default)": "this run's LoRA rank (the calculator's default "
                                              "unless the link sets one)",
    "calculator input run.G": "this run's G (completions per prompt)",
    "calculator input run.prompts": "this run's prompts per step",
    "calculator input run.out": "this run's completion length in tokens",
    "calculator input run.steps": "this run's number of steps",
}
"""Where a recipe setting comes from (``derived.recipe``'s terse names, which the command line
prints) in the reader's words: no input keys or link keys on the page (issue 44)."""


def reader_source(where: str, catalog: Catalog) -> str:
    """One setting's origin for readers: a run input in words, a reference by its title, the
    cookbook's recipe by the algorithm's name."""
    if where in READER_SOURCES:
        return READER_SOURCES[where]
    if where in catalog.references:
        return f"{catalog.references[where].title} ({catalog.references[where].authors})"
    if where.startswith("cookbook pin (") and where.endswith(")"):
        algo = catalog.algorithms.get(where[len("cookbook pin ("):-1])
        return f"the cookbook's recipe for {algo.name if algo else 'this algorithm'}"
    return where


def recipe_view(rec: recipe.RecipeExport | None, catalog: Catalog) -> RecipeView | None:
    if rec is None:
        return None
    return RecipeView(
        repository=rec.repository, commit=rec.commit,
        commit_href=f"https://github.com/{rec.repository}/tree/{rec.commit}",
        module=rec.module, path=rec.path, command=rec.command(), python=rec.python(),
        sources=sorted((k, reader_source(v, catalog)) for k, v in rec.sources.items()),
        warnings=tuple(Markup(to_inline_html(w)) for w in rec.warnings))


def run_view(index: SiteIndex, number: int, label: str, query: Mapping[str, str],
             today: dt.date, links: Links) -> RunView:
    """One run: its comparison rows and its recipe, computed now (build time)."""
    catalog = index.catalog
    est = estimate(catalog, query)
    totals = engine.run_totals(catalog, query)
    rows = engine.compare(catalog, totals, today)
    return RunView(
        anchor=f"run-{number}", label=label,
        calculator_href=links.to(CALCULATOR) + "?" + urlencode(dict(query)),
        algorithm=catalog.algorithms[totals.algorithm].name,
        model=catalog.models[totals.model].name,
        rows=[row_view(index, r, links) for r in rows],
        recipe=recipe_view(recipe.export(catalog, est), catalog))


def run_views(index: SiteIndex, runs: Sequence[tuple[str, Mapping[str, str]]],
              today: dt.date, links: Links) -> list[RunView]:
    return [run_view(index, i + 1, label, query, today, links)
            for i, (label, query) in enumerate(runs)]
