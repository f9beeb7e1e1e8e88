"""Locator rules (pipeline step 3): where in its source a reported value can be checked.

Every figure, figure list, claim, price list (and price row that sets its own status) and way
to run's list, free tier and gap with status ``reported`` carries a ``locator`` (a
section, table, figure, file path and line, or the quoted sentence). ``rule_locator_required``
makes a missing one a validation error naming file, line and field, in every entry and field;
``missing_locators`` lists them (the Data quality page shows the list, which says so when it is
empty). The ScaleRL fit the charts draw also takes sourced figures only
(``rule_scalerl_sourced``); both run with the other cross-entry rules (``RULES``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.fields import AssertedBy, Status
from tinkernomics.catalog.models.algorithms import SourcedFact
from tinkernomics.catalog.models.tinker import PriceList, PriceRow
from tinkernomics.catalog.models.ways import FreeTier, Gap, WayToRun
from tinkernomics.catalog.problems import Problem, format_loc
from tinkernomics.catalog.walk import nested_models
from tinkernomics.catalog.yamlread import Loc

LOCATED = (m.Figure, m.FigureList, m.Claim, SourcedFact, PriceList, PriceRow, WayToRun, FreeTier,
           Gap)
"""Models that take a ``locator``: figures and claims, an algorithm's semantics facts, a price
list and a row that overrides its status, a way to run's list, free tier and gaps."""
ORIGINAL_SITE = "original_site"
LOCATOR_HINT = ("add locator: where in the source a reviewer finds it, e.g. 'Table 1 (appendix "
                "A.13)', 'Figure 5b', '§4.2' with the quoted sentence, or in a repository "
                "'configs/trainers/ppo_MATH.jsonnet line 92 `the words on that line`' (checked "
                "against catalog/sources/)")


@dataclass(frozen=True)
class MissingLocator:
    """A reported value without a locator: its entry and field path."""

    entry: Entry
    loc: Loc

    @property
    def field(self) -> str:
        return format_loc((*self.loc, "locator"))


def _missing(obj: object) -> bool:
    if not isinstance(obj, LOCATED) or obj.status != Status.reported:
        return False
    return not (obj.locator or "").strip()


def missing_locators(catalog: Catalog) -> list[MissingLocator]:
    """Every reported figure, figure list or claim without a locator, in catalog order."""
    return [MissingLocator(entry, loc) for entry, loc, obj, _, _ in nested_models(catalog)
            if _missing(obj)]


def rule_locator_required(catalog: Catalog) -> Iterator[Problem]:
    """Every reported value, in every entry and field, says where its source states it."""
    for item in missing_locators(catalog):
        yield catalog.problem(item.entry.kind.name, item.entry.key, (*item.loc, "status"),
                              "a reported value needs `locator` (where its source states it)",
                              LOCATOR_HINT)


def _unsourced(fig: m.Figure) -> bool:
    return (fig.status == Status.unverified or fig.source == ORIGINAL_SITE
            or fig.asserted_by == AssertedBy.original_site)


def rule_scalerl_sourced(catalog: Catalog) -> Iterator[Problem]:
    """The ScaleRL fit the charts draw has no unverified figure and none from the original site."""
    for key, algo in catalog.algorithms.items():
        fit = algo.scalerl
        if fit is None:
            continue
        for name in ("A", "B", "C_mid", "R0"):
            fig = getattr(fit, name)
            if isinstance(fig, m.Figure) and _unsourced(fig):
                yield catalog.problem(
                    "algorithm", key, ("scalerl", name, "source"),
                    f"the charted ScaleRL fit takes sourced figures only ({name} is "
                    f"{fig.status.value}, source {fig.source})",
                    "cite the paper that reports it (with a locator), or move the values to "
                    "scalerl_record.superseded and leave scalerl out")
