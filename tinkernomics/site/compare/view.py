"""Compare view models: one column per algorithm, one row per question a reader compares.

Every value comes from the algorithm views (``pages.views.algorithm_row``, provenance and all);
a question the catalog has no field for says so ("not in the catalog") instead of a value.
The GB and $ of the site's comparison run are read from the algorithm view model when it
carries them (``COMPARISON_RUN``), and say they are not computed yet when it does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog import models as m
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
COLUMNS = "columns/"
"""Folder of the per-algorithm column files, under the page."""
FEATURED = ("grpo", "dapo", "ppo")
"""The algorithms the page compares before (or without) JavaScript, those the catalog has."""
MIN_COLUMNS, MAX_COLUMNS = 2, 4
COMPARISON_RUN = "comparison_run"
"""Attribute of an ``AlgorithmRow`` holding the GB and $ of the site's comparison run (an
object with ``gb`` and ``usd``, each a ``Shown``), once the calculator work provides it."""

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
    run: Any | None
    tinker_mapping: Any | None


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
        run=getattr(row, COMPARISON_RUN, None),
        tinker_mapping=prose(algo.tinker_mapping) if algo.tinker_mapping else None,
    )


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
