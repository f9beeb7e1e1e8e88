"""Algorithm views: the comparison table row, the page, the ScaleRL fit and the H100 factor."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import Status
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import inputs as calc_inputs
from tinkernomics.derived.calculator import semantics
from tinkernomics.derived.calculator.estimate import can_estimate, estimate
from tinkernomics.site.pages.views.core import (
    ALGORITHMS,
    DATA_QUALITY,
    HARDWARE,
    TINKER,
    Cite,
    Links,
    Origin,
    Shown,
    SiteIndex,
    algorithm_path,
    math,
    prose,
    yes_no,
)
from tinkernomics.site.pages.views.kinds import entry_anchor
from tinkernomics.site.pages.views.record import RecordView, record_view, semantics_view
from tinkernomics.site.pages.views.references import QualityItem, quality_items

# --------------------------------------------------------------------------- algorithms


@dataclass(frozen=True)
class FactorView:
    shown: Shown
    basis: str
    from_name: str
    to_name: str
    numerator: Shown
    denominator: Shown
    legacy: Shown | None
    href: str


SCALERL_LATEX = r"R(C) = R_0 + \frac{A - R_0}{1 + (C_{\text{mid}} / C)^{B}}"
"""The ScaleRL sigmoid (derive.scalerl_reward computes it), shown above every fit."""


@dataclass(frozen=True)
class ScaleRLView:
    formula: Markup
    model: str
    dataset: str
    A: Shown
    B: Shown
    C_mid: Shown
    R0: Shown | None
    h100: Shown
    legacy_h100: Shown | None
    factor: Shown | None
    """The factor's line and the formula and legacy hours: the algorithm's own page only (a row
    of the index or of the compare table shows A, B, C_mid and the H100-equivalent hours). The
    factor is its value, badge and citations: its inputs' values and the derivation are the
    Hardware page's conversion section, which the line links to (the same on every page)."""
    legacy_factor: Shown | None = None
    """The original site's factor (value, plain badge and citation: the legacy hours' badge
    links to its data-quality entry)."""
    factor_basis: str = ""
    shared_where: tuple[tuple[tuple[str, ...], str], ...] = ()
    """On its own page, each locator two or more parameters share (names, locator text): printed
    once under the list, and left off those parameters' figures."""


@dataclass(frozen=True)
class LossLink:
    id: str
    name: str
    href: str


@dataclass(frozen=True)
class AlgorithmRow:
    """One algorithm as a row of the comparison table and the head of its page."""

    id: str
    name: str
    full_name: str
    attribution: str
    year: int
    href: str
    models_in_memory: str
    needs_critic: str
    needs_reward_model: str
    memory_profile: str
    typical_k: Shown
    typical_g: Shown | None
    async_support: str
    rollouts: str
    losses: list[LossLink]
    scalerl: ScaleRLView | None
    compare_gb: str
    compare_usd: str
    """GPU memory at the peak and the Tinker bill at the comparison run (``compare``)."""
    compare_run: str

    filters: dict[str, str]
    """The row's ``data-*`` values the index table's script sorts and filters by."""


@dataclass(frozen=True)
class AlgorithmView:
    row: AlgorithmRow
    notes: Markup
    tinker_mapping: Markup | None
    claims: list[Shown]
    references: list[Cite]
    neighbours: list[tuple[str, str, str]]
    """("Previous" | "Next", name, href) of the algorithms beside it in name order."""
    index_href: str
    factor_href: str
    quality: list[QualityItem]
    """Its unverified values with what the sources report instead."""
    quality_href: str
    record: RecordView | None = None
    """The ScaleRL record: other fits the source reports, superseded values."""
    semantics: list[tuple[str, Shown]] | None = None
    """The run model's facts (label, sourced value)."""


def legacy_origin(index: SiteIndex) -> Origin:
    """The conversion's legacy factor, an unverified value with its data-quality entry."""
    return Origin("conversion", index.factor.id, ("legacy_factor",))


def factor_view(index: SiteIndex, links: Links, *, home: bool = False) -> FactorView:
    """The GB200 -> H100 factor with its inputs; ``home`` when shown on the Hardware page."""
    f = index.factor
    hw = index.catalog.hardware
    numerator = index.figure(f.numerator, links)
    denominator = index.figure(f.denominator, links)
    shown = index.shown(f.text, f.status, [f.numerator.source, f.denominator.source], links,
                        note=f"{f.basis}: {derive.format_figure(f.numerator)} "
                             f"({hw[f.from_id].name}) / {derive.format_figure(f.denominator)} "
                             f"({hw[f.to_id].name})")
    legacy = None
    if f.legacy is not None:  # its badge links to its data-quality entry; its id is at home only
        legacy = index.figure(f.legacy, links, legacy_origin(index), anchor=home)
    return FactorView(shown, f.basis, f.from_name, f.to_name, numerator, denominator, legacy,
                      links.to(HARDWARE, entry_anchor("conversion", f.id)))


def _scalerl_view(index: SiteIndex, algo: m.Algorithm, links: Links,
                  home: bool) -> ScaleRLView | None:
    fit = algo.scalerl
    if fit is None:
        return None

    def at(name: str) -> Origin | None:
        return Origin("algorithm", algo.id, ("scalerl", name)) if home else None

    hours = derive.h100_equivalent_hours(fit.C_mid.value, index.factor)
    worst = (Status.unverified if Status.unverified in (fit.C_mid.status, index.factor.status)
             else Status.derived)
    sources = [fit.C_mid.source, index.factor.numerator.source, index.factor.denominator.source]
    label = f"{derive.format_number(hours)} H100-equivalent hours"
    h100 = index.shown(f"≈{label}", worst, sources, links,
                       note=f"C_mid × {index.factor.text} ({index.factor.basis})")
    params = {"A": fit.A, "B": fit.B, "C_mid": fit.C_mid, "R0": fit.R0}
    shown = {name: index.figure(fig, links, at(name))
             for name, fig in params.items() if fig is not None}
    shared: tuple[tuple[tuple[str, ...], str], ...] = ()
    if home:
        shown, shared = _shared_locators(shown, params)
    return ScaleRLView(
        math(SCALERL_LATEX) if home else Markup(""), fit.model, fit.dataset,
        shown["A"], shown["B"], shown["C_mid"], shown.get("R0"), h100,
        _legacy_hours(index, fit, links) if home else None,
        _factor(index, links) if home else None,
        _legacy_factor(index, links) if home else None, _lower_first(index.factor.basis), shared,
    )


def _shared_locators(
        shown: dict[str, Shown], params: dict[str, m.Figure | None],
) -> tuple[dict[str, Shown], tuple[tuple[tuple[str, ...], str], ...]]:
    """The fit's figures with a locator that two or more of them share (same source, same
    locator: a table row giving A, B and C_mid) left off, and those locators once each."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, s in shown.items():
        fig = params[name]
        if s.locator and fig is not None:
            groups.setdefault((fig.source, s.locator), []).append(name)
    shared = tuple((tuple(names), where) for (_, where), names in groups.items()
                   if len(names) > 1)
    bare = {name for names, _ in shared for name in names}
    return ({name: s.without_locator() if name in bare else s for name, s in shown.items()},
            shared)


def _lower_first(text: str) -> str:
    """A sentence's start made to follow an opening bracket ("Ratio of ..." -> "ratio of ...")
    unless it starts with a name or an acronym ("BF16 ...")."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _factor(index: SiteIndex, links: Links) -> Shown:
    """The factor as an algorithm page shows it: value, badge and its inputs' citations (the
    Hardware page, linked beside it, derives it from them with their values and locators)."""
    f = index.factor
    return index.shown(f.text, f.status, [f.numerator.source, f.denominator.source], links)


def _legacy_factor(index: SiteIndex, links: Links) -> Shown | None:
    legacy = index.factor.legacy
    return None if legacy is None else index.shown(
        derive.format_figure(legacy), legacy.status, [legacy.source], links,
        asserted_by=legacy.asserted_by)


def _legacy_hours(index: SiteIndex, fit: m.ScaleRLFit, links: Links) -> Shown | None:
    """C_mid in H100-equivalent hours with the original site's factor (unverified: its badge
    links to the factor's data-quality entry, which holds what the sources report instead)."""
    legacy_hours = derive.legacy_h100_equivalent_hours(fit.C_mid.value, index.factor)
    if legacy_hours is None or index.factor.legacy is None:
        return None
    return index.shown(
        f"{derive.format_number(legacy_hours)} H100-equivalent hours", Status.unverified,
        [fit.C_mid.source, index.factor.legacy.source], links,
        note=f"C_mid × {derive.format_figure(index.factor.legacy)}, the original site's factor",
        reported_instead=index.factor.legacy.reported_instead,
        asserted_by=index.factor.legacy.asserted_by,
        origin=legacy_origin(index), anchor=False,  # the factor's entry says it
    )


ROLE_LABELS = {m.ModelRole.reward_model: "reward model"}


def algorithm_row(index: SiteIndex, algo: m.Algorithm, links: Links, *,
                  home: bool = False) -> AlgorithmRow:
    """One algorithm's row (the index, a compare column) or, ``home``, the same facts on its
    own page, which shows no comparison run: it is not estimated there (an estimate per
    algorithm page was a fifth of the page's work; the GB, $ and sort keys stay unknown)."""
    def at(*loc: str) -> Origin | None:
        return Origin("algorithm", algo.id, loc) if home else None

    peak, usd = (None, None) if home else compare(index, algo.id)
    losses = [LossLink(lid, index.losses[lid].name,
                       links.to(TINKER, entry_anchor("loss", lid))) for lid in algo.tinker_losses]
    return AlgorithmRow(
        id=algo.id, name=algo.name, full_name=algo.full_name, attribution=algo.attribution,
        year=algo.year, href=links.to(algorithm_path(algo.id)),
        models_in_memory=", ".join(ROLE_LABELS.get(r, r.value) for r in algo.models_in_memory),
        needs_critic=yes_no(algo.needs_critic),
        needs_reward_model=yes_no(algo.needs_reward_model),
        memory_profile=algo.memory_profile.value,
        typical_k=index.figure_list(algo.typical_k, links, at("typical_k")),
        typical_g=(index.figure_list(algo.typical_g, links, at("typical_g"))
                   if algo.typical_g else None),
        async_support=yes_no(algo.async_support),
        rollouts="online" if semantics.rollouts(algo) else "offline (no rollouts)",
        losses=losses,
        scalerl=_scalerl_view(index, algo, links, home),
        **_compare_cells(peak, usd), compare_run=COMPARISON_RUN,
        filters={**_filters(algo), "gb": "" if peak is None else f"{peak:.0f}",
                 "usd": "" if usd is None else f"{usd:.2f}"},  # bytes, cents: what sorting needs
    )


COMPARISON_RUN = ("Comparison run, the same for every algorithm: Qwen3-8B with LoRA, 100 steps "
                  "× 64 prompts × G = 16, K = 1, 512 + 2,048 tokens, H100, the newest Tinker "
                  "prices.")


def compare(index: SiteIndex, algo_id: str) -> tuple[float | None, float | None]:
    """(peak GPU memory in bytes, Tinker bill in USD) of the comparison run (unknown in a
    catalog without the cost model's formulas)."""
    if not can_estimate(index.catalog):
        return None, None
    done = index.comparisons.get(algo_id)
    if done is None:  # the index table and the compare column show the same run: estimated once
        e = estimate(index.catalog, calc_inputs.comparison_query(index.catalog, algo_id))
        done = index.comparisons[algo_id] = (e["mem.peak"], e["tinker.total"])
    return done


def _compare_cells(peak: float | None, usd: float | None) -> dict[str, str]:
    return {"compare_gb": "unknown" if peak is None else f"{peak / 1e9:,.1f} GB",
            "compare_usd": "–" if usd is None else f"${usd:,.2f}"}


def _filters(algo: m.Algorithm) -> dict[str, str]:
    """What the index table sorts and filters by (``data-*`` attributes of the row)."""
    return {
        "name": algo.name.casefold(), "year": str(algo.year),
        "memory": algo.memory_profile.value, "critic": yes_no(algo.needs_critic).lower(),
        "reward": yes_no(algo.needs_reward_model).lower(),
        "loss": " ".join(algo.tinker_losses) or "none",
        "fit": "yes" if algo.scalerl else "no",
        "a": repr(float(algo.scalerl.A.value)) if algo.scalerl else "",
    }


@dataclass(frozen=True)
class FilterView:
    """One select of the index table's filter bar: a row ``data-*`` key and its values."""

    key: str
    label: str
    values: list[str]
    multi: bool = False
    """True when a row holds several space-separated values (Tinker losses)."""


FILTERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("year", "Year", ()), ("memory", "Memory", ("low", "medium", "high")),
    ("critic", "Critic", ("yes", "no")), ("reward", "Reward model", ("yes", "no")),
    ("loss", "Tinker loss", ()), ("fit", "ScaleRL fit", ("yes", "no")),
)
"""The filter bar (key, label, fixed order or none): rendered in the page, so showing it when
the script starts moves nothing (no layout shift); the script only wires it up."""


def filter_views(rows: list[AlgorithmRow]) -> list[FilterView]:
    """Each filter's values as the rows hold them: fixed order, years newest first, else A-Z
    with 'none' last."""
    views = []
    for key, label, order in FILTERS:
        multi = key == "loss"
        seen = {v for r in rows for v in (r.filters[key].split() if multi else [r.filters[key]])
                if v}
        if order:
            values = [v for v in order if v in seen]
        elif key == "year":
            values = sorted(seen, reverse=True)
        else:
            values = sorted(seen, key=lambda v: (v == "none", v))
        views.append(FilterView(key, label, values, multi=multi))
    return views


def algorithm_rows(index: SiteIndex, links: Links) -> list[AlgorithmRow]:
    algos = sorted(index.algorithms.values(), key=lambda a: (a.year, a.name.casefold()))
    return [algorithm_row(index, a, links) for a in algos]


def algorithm_view(index: SiteIndex, algo_id: str) -> AlgorithmView:
    """Everything the page ``algorithms/<id>/`` shows."""
    algo = index.algorithms.get(algo_id)
    if algo is None:
        known = ", ".join(sorted(index.algorithms))
        raise KeyError(f"unknown algorithm id {algo_id!r} (known: {known})")
    links = Links(algorithm_path(algo_id))
    order = index.algorithm_order
    at = order.position[algo_id]
    neighbours = [(label, index.algorithms[other].name, links.to(algorithm_path(other)))
                  for label, other in (("Previous", order.ids[at - 1] if at else None),
                                       ("Next", order.ids[at + 1] if at + 1 < len(order.ids)
                                        else None)) if other]
    return AlgorithmView(
        row=algorithm_row(index, algo, links, home=True),
        notes=prose(algo.notes),
        tinker_mapping=prose(algo.tinker_mapping) if algo.tinker_mapping else None,
        claims=[index.claim(c, links, Origin("algorithm", algo.id, ("claims", i)))
                for i, c in enumerate(algo.claims)],
        references=index.cites(algo.references, links),
        neighbours=neighbours,
        index_href=links.to(ALGORITHMS),
        factor_href=links.to(HARDWARE, entry_anchor("conversion", index.factor.id)),
        quality=quality_items(index, "algorithm", algo_id, links),
        quality_href=links.to(DATA_QUALITY, "algorithms"),
        record=record_view(index, algo, links),
        semantics=semantics_view(index, algo, links),
    )


