"""Tinker views: primitives, token types, dated price lists, models, losses, setup cost.

The models table lists what a Tinker price list carries (``tinker_model_ids``); the catalog's
other models (priced self-hosted only) follow in a table of their own, never counted as offered.
Each list with an older one beside it shows, row by row, the change since that list (old -> new
and percent), so a price-change pull request is checked at a glance."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import Status
from tinkernomics.derived import derive
from tinkernomics.site.pages.views.architecture import ArchitectureView, architecture_views
from tinkernomics.site.pages.views.core import (
    TINKER,
    Cite,
    Links,
    Origin,
    Shown,
    SiteIndex,
    algorithm_path,
    math,
    money,
    prose,
    prose_inline,
    tinker_model_ids,
    yes_no,
)
from tinkernomics.site.pages.views.kinds import WAYS, entry_anchor

# --------------------------------------------------------------------------- Tinker


@dataclass(frozen=True)
class PrimitiveView:
    name: str
    client: str
    signature: str
    phase: str
    description: Markup
    cite: Cite


@dataclass(frozen=True)
class PriceRowView:
    model: str
    model_href: str
    variant: str
    prefill: str
    sample: str
    train: str
    hover: str
    note: str
    shown: Shown | None
    locator: Markup | None = None
    """Where in its source the row is, when the row says so itself."""
    change: tuple[str, ...] = ()
    """Change since the previous list, one line a price: ('sample $0.60 → $0.54 (−10%)',),
    ('unchanged',) or ('new row',); empty for the oldest list."""


@dataclass(frozen=True)
class PriceListView:
    id: str
    anchor: str
    title: str
    effective: str
    provenance: Shown
    storage: Shown | None
    cached_discount: Shown | None
    rows: list[PriceRowView]
    notes: Markup | None
    locator: Markup | None = None
    """Where in the source the prices are (shown beside the source link)."""
    superseded_by: str = ""
    """The effective date of the newer list that replaced this one ('' for the newest)."""
    previous: str = ""
    """The effective date of the list the change column compares with ('' for the oldest)."""


@dataclass(frozen=True)
class ModelView:
    id: str
    anchor: str
    name: str
    family: str
    architecture: str
    vision: str
    total: Shown
    active: Shown | None
    d_model: Shown | None
    notes: Markup | None


@dataclass(frozen=True)
class HyperparameterView:
    name: str
    description: Markup
    default: Shown | None


@dataclass(frozen=True)
class LossView:
    id: str
    anchor: str
    name: str
    builtin: bool
    math: Markup
    inputs: list[tuple[str, str, str]]
    outputs: list[str]
    hyperparameters: list[HyperparameterView]
    description: Markup
    claims: list[Shown]
    references: list[Cite]
    used_by: list[tuple[str, str]]


@dataclass(frozen=True)
class SetupCostView:
    duration: Shown
    hourly_rate: Shown
    hours_per_week: Shown
    total: Shown
    computed: Shown
    description: Markup


@dataclass(frozen=True)
class TinkerView:
    intro: Markup
    core: list[PrimitiveView]
    other_calls: list[PrimitiveView]
    phases: Markup
    token_types: list[tuple[str, str, Markup]]
    pricing_rationale: Markup
    price_lists: list[PriceListView]
    models: list[ModelView]
    architecture: list[ArchitectureView]
    ways_href: str
    absorbs: list[tuple[str, Markup]]
    setup_cost: SetupCostView
    losses: list[LossView]
    grpo_note: Markup
    spectrum_intro: Markup
    spectrum: list[dict[str, Any]]
    gpu_hours_hide: Markup
    gpu_hours_claims: list[Shown]
    general_purpose_note: Markup
    references: list[Cite]
    other_models: list[ModelView] = field(default_factory=list)
    """Catalog models no Tinker price list carries (not offered, not counted)."""


def _primitive(index: SiteIndex, p: m.Primitive, links: Links) -> PrimitiveView:
    return PrimitiveView(p.name, p.client, p.signature,
                         p.phase.value if p.phase else "—", prose_inline(p.description),
                         index.cite(p.source, links))


def _percent(old: float, new: float) -> str:
    """'+10%', '−10%' ('−0.4%' under one percent); a price that was 0 is 'from 0'."""
    if old == 0:
        return "from 0"
    change = (new - old) / old * 100
    text = f"{change:+.0f}%" if abs(change) >= 1 else f"{change:+.1f}%"
    return text.replace("-", "−")


def price_change(row: m.PriceRow, before: m.PriceRow | None) -> tuple[str, ...]:
    """('prefill $0.13 → $0.195 (+50%)', 'train $0.40 → $0.44 (+10%)'), ('unchanged',) or
    ('new row',)."""
    if before is None:
        return ("new row",)
    parts = tuple(f"{name} {money(old)} → {money(new)} ({_percent(old, new)})"
                  for name in ("prefill", "sample", "train")
                  if (old := getattr(before, name)) != (new := getattr(row, name)))
    return parts or ("unchanged",)


def price_list_view(index: SiteIndex, plist: m.PriceList, links: Links,
                    previous: m.PriceList | None = None) -> PriceListView:
    models = index.catalog.models
    before = {(r.model, r.variant or ""): r for r in previous.rows} if previous else {}

    def at(*loc: str | int) -> Origin:
        return Origin("price_list", plist.id, loc)

    provenance = index.shown(plist.status.value, plist.status, [plist.source], links,
                             reported_instead=plist.reported_instead, origin=at(),
                             asserted_by=plist.asserted_by)
    rows = []
    for i, row in enumerate(plist.rows):
        own = row.status is not None or row.source is not None
        status = row.status or plist.status
        source = row.source or plist.source
        shown = index.shown(status.value, status, [source], links,
                            reported_instead=row.reported_instead, asserted_by=row.asserted_by,
                            origin=at("rows", i)) if own else None
        hover = (shown or provenance).hover
        rows.append(PriceRowView(
            model=models[row.model].name, model_href=links.to(TINKER, entry_anchor("model",
                                                                                   row.model)),
            variant=row.variant or "", prefill=money(row.prefill), sample=money(row.sample),
            train=money(row.train), hover=hover, note=row.note or "", shown=shown,
            locator=_locator(row.locator),
            change=price_change(row, before.get((row.model, row.variant or "")))
            if previous else ()))
    return PriceListView(
        id=plist.id, anchor=entry_anchor("price_list", plist.id) or plist.id, title=plist.title,
        effective=plist.effective.isoformat(), provenance=provenance,
        storage=(index.figure(plist.storage_usd_per_gb_month, links,
                              at("storage_usd_per_gb_month"))
                 if plist.storage_usd_per_gb_month else None),
        cached_discount=(index.figure(plist.cached_prefill_discount, links,
                                      at("cached_prefill_discount"))
                         if plist.cached_prefill_discount else None),
        rows=rows, notes=prose(plist.notes) if plist.notes else None,
        locator=_locator(plist.locator),
        previous=previous.effective.isoformat() if previous else "",
    )


def _locator(text: str | None) -> Markup | None:
    return prose_inline(text) if text and text.strip() else None


def ordered_models(index: SiteIndex) -> list[m.LanguageModel]:
    """Models by family, then size (the order of the models table)."""
    return sorted(index.catalog.models.values(),
                  key=lambda x: (x.family.casefold(), derive.active_params_billion(x), x.id))


def model_views(index: SiteIndex, links: Links, *, offered: bool = True) -> list[ModelView]:
    """The models a Tinker list carries (``offered``), or the catalog's other models."""
    carried = tinker_model_ids(index.catalog)
    views = []
    for lm in ordered_models(index):
        if (lm.id in carried) != offered:
            continue
        def at(*loc: str, key: str = lm.id) -> Origin:
            return Origin("model", key, loc)

        views.append(ModelView(
            lm.id, entry_anchor("model", lm.id) or lm.id, lm.name, lm.family,
            "mixture of experts" if lm.architecture == m.Architecture.moe else "dense",
            yes_no(lm.vision), index.figure(lm.total_params, links, at("total_params")),
            index.figure(lm.active_params, links, at("active_params"))
            if lm.active_params else None,
            index.figure(lm.d_model, links, at("d_model")) if lm.d_model else None,
            prose_inline(lm.notes) if lm.notes else None))
    return views


def loss_view(index: SiteIndex, loss: m.TinkerLoss, links: Links) -> LossView:
    def at(*loc: str | int) -> Origin:
        return Origin("loss", loss.id, loc)

    used_by = [(a.name, links.to(algorithm_path(a.id)))
               for a in sorted(index.algorithms.values(), key=lambda a: a.name.casefold())
               if loss.id in a.tinker_losses]
    return LossView(
        id=loss.id, anchor=entry_anchor("loss", loss.id) or loss.id, name=loss.name,
        builtin=loss.builtin, math=math(loss.latex, display=True),
        inputs=[(i.name, i.dtype, i.description) for i in loss.inputs],
        outputs=list(loss.outputs),
        hyperparameters=[HyperparameterView(
            h.name, prose_inline(h.description),
            index.figure(h.default, links, at("hyperparameters", i, "default"))
            if h.default else None) for i, h in enumerate(loss.hyperparameters)],
        description=prose(loss.description),
        claims=[index.claim(c, links, at("claims", i)) for i, c in enumerate(loss.claims)],
        references=index.cites(loss.references, links), used_by=used_by,
    )


def setup_cost_view(index: SiteIndex, setup: m.SetupCost, links: Links) -> SetupCostView:
    def at(name: str) -> Origin:
        return Origin("platform", "tinker", ("setup_cost", name))

    low, high = derive.setup_cost_usd(setup)
    text = f"${derive.format_number(low)}" + (f"–${derive.format_number(high)}" if high else "")
    inputs = (setup.duration, setup.hours_per_week, setup.hourly_rate)
    status = (Status.unverified if any(f.status == Status.unverified for f in inputs)
              else Status.derived)
    computed = index.shown(text, status, [f.source for f in inputs], links,
                           note="duration × hours per week × hourly rate")
    return SetupCostView(
        duration=index.figure(setup.duration, links, at("duration")),
        hourly_rate=index.figure(setup.hourly_rate, links, at("hourly_rate")),
        hours_per_week=index.figure(setup.hours_per_week, links, at("hours_per_week")),
        total=index.figure(setup.total, links, at("total")),
        computed=computed, description=prose(setup.description),
    )


def tinker_view(index: SiteIndex) -> TinkerView:
    links = Links(TINKER)
    platform = index.catalog.platform
    if platform is None:
        raise KeyError("the catalog has no Tinker platform entry (catalog/tinker/tinker.yaml)")

    def at(*loc: str | int) -> Origin:
        return Origin("platform", "tinker", loc)

    lists = sorted(index.catalog.price_lists.values(), key=lambda p: p.effective, reverse=True)
    views = [price_list_view(index, p, links, lists[i + 1] if i + 1 < len(lists) else None)
             for i, p in enumerate(lists)]
    views = [replace(v, superseded_by=views[i - 1].effective) if i else v
             for i, v in enumerate(views)]
    losses = sorted(index.losses.values(), key=lambda x: (not x.builtin, x.order, x.id))
    return TinkerView(
        intro=prose(platform.intro),
        core=[_primitive(index, p, links) for p in platform.primitives if p.core],
        other_calls=[_primitive(index, p, links) for p in platform.primitives if not p.core],
        phases=prose(platform.phases),
        token_types=[(t.id, t.name, prose_inline(t.description)) for t in platform.token_types],
        pricing_rationale=prose(platform.pricing_rationale),
        price_lists=views,
        models=model_views(index, links),
        architecture=architecture_views(index, ordered_models(index), links),
        ways_href=links.to(WAYS),
        absorbs=[(a.name, prose_inline(a.description)) for a in platform.absorbs],
        setup_cost=setup_cost_view(index, platform.setup_cost, links),
        losses=[loss_view(index, x, links) for x in losses],
        grpo_note=prose(platform.grpo_note),
        spectrum_intro=prose(platform.spectrum_intro),
        spectrum=[{"name": s.name, "examples": s.examples, "control": s.control,
                   "burden": s.burden, "description": prose_inline(s.description)}
                  for s in platform.spectrum],
        gpu_hours_hide=prose(platform.gpu_hours_hide),
        gpu_hours_claims=[index.claim(c, links, at("gpu_hours_claims", i))
                          for i, c in enumerate(platform.gpu_hours_claims)],
        general_purpose_note=prose(platform.general_purpose_note),
        references=index.cites(platform.references, links),
        other_models=model_views(index, links, offered=False),
    )


