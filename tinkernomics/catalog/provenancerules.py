"""Provenance rules (pipeline step 3, cross-entry rules): what a figure's status, unit and
range must agree with. Each rule is one function over the catalog; ``rules.RULES`` runs them."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import AssertedBy, Status, Unit
from tinkernomics.catalog.models.algorithms import SourcedFact
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import nested_models as _nested

PROVENANCE = (m.Figure, m.FigureList, m.Claim, m.Formula, m.Reference, m.PriceList, m.PriceRow,
              SourcedFact)
"""Models that carry a status and (maybe) reported_instead."""

EXPECTED_UNITS: dict[tuple[type[BaseModel], str], set[Unit]] = {
    (m.ScaleRLFit, "A"): {Unit.percent},
    (m.ScaleRLFit, "R0"): {Unit.percent},
    (m.ScaleRLFit, "B"): {Unit.dimensionless},
    (m.ScaleRLFit, "C_mid"): {Unit.gb200_hours},
    (m.Hardware, "bf16_dense_tflops"): {Unit.tflops},
    (m.Hardware, "memory_gb"): {Unit.gb},
    (m.Hardware, "bandwidth_tb_s"): {Unit.tb_per_second},
    (m.Hardware, "power_w"): {Unit.watts},
    (m.RentalPrice, "price"): {Unit.usd_per_gpu_hour},
    (m.LanguageModel, "total_params"): {Unit.billion_parameters},
    (m.LanguageModel, "active_params"): {Unit.billion_parameters},
    (m.PriceList, "storage_usd_per_gb_month"): {Unit.usd_per_gb_month},
    (m.PriceList, "cached_prefill_discount"): {Unit.percent},
    (m.Conversion, "legacy_factor"): {Unit.ratio},
    (m.SetupCost, "duration"): {Unit.weeks},
    (m.SetupCost, "hourly_rate"): {Unit.usd_per_hour},
    (m.SetupCost, "hours_per_week"): {Unit.hours},
    (m.SetupCost, "total"): {Unit.usd},
}
UPPER_BOUNDS: dict[Unit, float] = {Unit.percent: 100.0, Unit.fraction: 1.0}


def rule_unverified_says_what_sources_report(catalog: Catalog) -> Iterator[Problem]:
    """A figure marked `unverified` says, in `reported_instead`, what the sources report."""
    for entry, loc, obj, _, _ in _nested(catalog):
        if isinstance(obj, PROVENANCE) and obj.status == Status.unverified and \
                not obj.reported_instead:
            yield catalog.problem(entry.kind.name, entry.key, (*loc, "status"),
                                  "an unverified figure needs `reported_instead`",
                                  "say what the sources report instead, or where you looked")


def rule_asserted_by(catalog: Catalog) -> Iterator[Problem]:
    """An `unverified` value says who asserted it (`asserted_by`); any other status has none."""
    choices = ", ".join(a.value for a in AssertedBy)
    for entry, loc, obj, _, _ in _nested(catalog):
        if not isinstance(obj, PROVENANCE):
            continue
        unverified, given = obj.status == Status.unverified, obj.asserted_by
        if unverified and given is None:
            yield catalog.problem(entry.kind.name, entry.key, (*loc, "status"),
                                  "an unverified value needs `asserted_by`",
                                  f"add asserted_by: one of {choices} (who gave the figure)")
        elif not unverified and isinstance(given, AssertedBy):  # not a value that failed
            status = obj.status.value if obj.status else "inherited from the list"
            yield catalog.problem(entry.kind.name, entry.key, (*loc, "asserted_by"),
                                  f"`asserted_by` is only for unverified values (status: {status})",
                                  "remove asserted_by, or set status: unverified", key=True)


def rule_figure_ranges(catalog: Catalog) -> Iterator[Problem]:
    """Figures are non-negative, within their unit's bounds, and `high` is not below `value`."""
    for entry, loc, obj, _, _ in _nested(catalog):
        if not isinstance(obj, m.Figure):
            continue
        where = (entry.kind.name, entry.key)
        for name in ("value", "high"):
            number = getattr(obj, name)
            if number is None:
                continue
            if number < 0:
                yield catalog.problem(*where, (*loc, name), f"must not be negative (got {number})")
            bound = UPPER_BOUNDS.get(obj.unit)
            if bound is not None and number > bound:
                yield catalog.problem(*where, (*loc, name),
                                      f"{obj.unit.value} cannot exceed {bound:g} (got {number:g})")
        if obj.high is not None and obj.high < obj.value:
            yield catalog.problem(*where, (*loc, "high"),
                                  f"high ({obj.high:g}) is below value ({obj.value:g})")


def rule_expected_units(catalog: Catalog) -> Iterator[Problem]:
    """Figures in typed slots (ScaleRL A, hardware TFLOP/s, ...) use the unit the slot needs."""
    for entry, loc, obj, parent, field in _nested(catalog):
        if not isinstance(obj, m.Figure) or parent is None or field is None:
            continue
        allowed = EXPECTED_UNITS.get((type(parent), field))
        if allowed and obj.unit not in allowed:
            names = ", ".join(sorted(u.value for u in allowed))
            yield catalog.problem(entry.kind.name, entry.key, (*loc, "unit"),
                                  f"{field} must be in {names} (got {obj.unit.value})",
                                  f"unit: {names}")


def rule_scalerl_sane(catalog: Catalog) -> Iterator[Problem]:
    """A ScaleRL fit has B > 0, C_mid > 0 and R0 below A."""
    for key, algo in catalog.algorithms.items():
        fit = algo.scalerl
        if fit is None:
            continue
        for name in ("B", "C_mid"):
            if getattr(fit, name).value == 0:  # negatives: rule_figure_ranges says so already
                yield catalog.problem("algorithm", key, ("scalerl", name, "value"),
                                      f"{name} must be greater than 0")
        if fit.R0 is not None and fit.R0.value >= fit.A.value:
            yield catalog.problem("algorithm", key, ("scalerl", "R0", "value"),
                                  "R0 must be below the asymptote A")
