"""Compare view models: one column per algorithm, one row per question a reader compares.

Every value comes from the algorithm views (``pages.views.algorithm_row``, provenance and all)
and the catalog fields behind them: the GB and $ of the site's comparison run are the ones the
Algorithms index shows (``AlgorithmRow.compare_gb``/``compare_usd``), the clipping bounds and
the KL coefficient the cookbook recipe's sourced settings (``catalog/cookbook``), whether a KL
term holds a reference the algorithm's ``semantics``. Only a question the catalog holds nothing
for says so ("not in the catalog").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.derived.recipe import recipe_for
from tinkernomics.site.pages.views import (
    AlgorithmRow,
    Cite,
    Links,
    Shown,
    SiteIndex,
    algorithm_path,
    algorithm_row,
    prose,
)

PAGE = "compare/"
"""The compare page (docs/compare.md)."""
SHARED = "shared.json"
"""The pieces the columns share (``compare.shared``), beside the page."""
FEATURED = ("grpo", "dapo", "ppo")
"""The algorithms the page compares before (or without) JavaScript, those the catalog has."""
MIN_COLUMNS, MAX_COLUMNS = 2, 4
CLIP_SETTINGS = ("clip_low_threshold", "clip_high_threshold")
"""The cookbook recipe's ratio bounds (``loss_config``): the clipping row."""
KL_SETTINGS = ("kl_penalty_coef",)
"""The cookbook recipe's KL coefficient (``settings``): the KL row, beside ``semantics``."""

ROWS: tuple[tuple[str, str], ...] = (
    ("profile", "Profile"),
    ("memory", "Models in memory"),
    ("clipping", "Clipping (ε low / high)"),
    ("kl", "KL penalty (coefficient)"),
    ("sampling", "G and sampling"),
    ("aggregation", "Loss aggregation"),
    ("tinker", "Tinker loss"),
    ("run", "GB and $ at the comparison run"),
    ("convergence", "Convergence (ScaleRL fit)"),
    ("claims", "Sourced claims"),
    ("references", "References"),
)
"""(key, label) of each row, in order; the column template has one cell per key."""


@dataclass(frozen=True)
class CompareColumn:
    id: str
    name: str
    href: str
    row: AlgorithmRow
    claims: list[Shown]
    references: list[Cite]
    run: tuple[str, str] | None
    """(peak GPU memory, Tinker bill) at the comparison run, as the Algorithms index shows."""
    tinker_mapping: Any | None
    clipping: list[tuple[str, Shown]]
    kl: list[tuple[str, Shown]]


def featured(index: SiteIndex) -> list[str]:
    """The featured ids the catalog has; else the first algorithms in name order."""
    ids = [a for a in FEATURED if a in index.algorithms]
    if len(ids) < MIN_COLUMNS:
        ids += [a for a in index.algorithm_order.ids if a not in ids]
    return ids[:max(MIN_COLUMNS, min(len(ids), len(FEATURED)))]


def column(index: SiteIndex, algo_id: str) -> CompareColumn:
    """One algorithm's column, its links relative to the compare page."""
    algo: m.Algorithm | None = index.algorithms.get(algo_id)
    if algo is None:
        raise KeyError(f"unknown algorithm id {algo_id!r} (known: {', '.join(index.algorithms)})")
    links = Links(PAGE)
    row = algorithm_row(index, algo, links)
    return CompareColumn(
        id=algo.id, name=algo.name, href=links.to(algorithm_path(algo.id)), row=row,
        claims=[index.claim(c, links) for c in algo.claims],
        references=index.cites(algo.references, links),
        run=(row.compare_gb, row.compare_usd) if row.compare_gb != "unknown" else None,
        tinker_mapping=prose(algo.tinker_mapping) if algo.tinker_mapping else None,
        clipping=recipe_settings(index, algo.id, CLIP_SETTINGS, links),
        kl=kl_facts(index, algo, links),
    )


def recipe_settings(index: SiteIndex, algo_id: str, names: tuple[str, ...],
                    links: Links) -> list[tuple[str, Shown]]:
    """(name, sourced value) of the cookbook recipe's settings named ``names``, in order."""
    rec = recipe_for(index.catalog, algo_id)
    if rec is None:
        return []
    found: dict[str, m.Figure] = {s.name: s.value for s in rec.loss_config}
    found.update({s.name: s.value for s in rec.settings})
    return [(name, index.figure(found[name], links)) for name in names if name in found]


def kl_facts(index: SiteIndex, algo: m.Algorithm, links: Links) -> list[tuple[str, Shown]]:
    """Whether the loss holds a KL term to a reference (``semantics``), and the recipe's
    coefficient where the cookbook pin sets one."""
    found = recipe_settings(index, algo.id, KL_SETTINGS, links)
    sem = algo.semantics
    if sem is not None:
        flag = sem.kl_reference
        found.insert(0, ("KL term to a frozen reference", index.shown(
            "yes" if flag.value else "no", flag.status, [flag.source], links, note=flag.note,
            reported_instead=flag.reported_instead, asserted_by=flag.asserted_by,
            locator=flag.locator)))
    return found


@dataclass(frozen=True)
class Choice:
    id: str
    name: str


def choices(index: SiteIndex) -> list[Choice]:
    """Every algorithm, in name order, for the page's selects."""
    return [Choice(a, index.algorithms[a].name) for a in index.algorithm_order.ids]


def compare_link(index: SiteIndex, algo_id: str, links: Links) -> tuple[str, str]:
    """(partner name, href) of the compare page showing ``algo_id`` beside a featured one."""
    partner = next((a for a in featured(index) if a != algo_id), algo_id)
    href = links.to(PAGE) + f"?a={algo_id}&a={partner}"
    return index.algorithms[partner].name, href


SYNONYMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("KL penalty", ("KL coefficient", "KL regularisation", "KL term")),
    ("clip-higher", ("clip higher", "decoupled clipping", "asymmetric clipping")),
    ("critic", ("value model", "value function")),
    ("value model", ("critic",)),
    ("group size", ("G", "rollouts per prompt")),
    ("reward model", ("RM", "learned reward")),
)
"""Terms of the field and their other names: an algorithm page whose own text (notes, claims,
Tinker mapping) uses a term lists the other names, so a search for any of them finds it."""


def also_known_as(algo: m.Algorithm) -> list[tuple[str, tuple[str, ...]]]:
    """The synonym groups whose term the algorithm's own text uses, in ``SYNONYMS`` order."""
    text = " ".join([algo.notes, algo.tinker_mapping or "", *(c.text for c in algo.claims)])
    folded = text.casefold()
    return [(term, names) for term, names in SYNONYMS if term.casefold() in folded]
