"""Ways to run, the offers (pipeline step 6, data for ``ways.feature``): one view per dated list.

Every entry of kind ``way`` (``catalog/ways/``) as the page lists it: its prices per GPU-hour,
per token or per training hour, each a figure with badge, citation and locator; the date and
how the source dates it; the free tier and what the service cannot run (its ``gaps``, with the
reason); and a stale label when a newer list of the same series exists or the list is over six
months older than the build day (``derived.ways.staleness``, ``freshness.staleness_day``).
Catalog text goes through the sanitiser (``prose_inline``) or is escaped by the template.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from markupsafe import Markup

from tinkernomics.catalog.models.ways import WayToRun
from tinkernomics.derived import derive
from tinkernomics.derived import ways as engine
from tinkernomics.site.pages.views import Links, Origin, Shown, SiteIndex, prose, prose_inline
from tinkernomics.site.pages.views.kinds import entry_anchor

OFFER_LABELS = {"rented_gpus": "rented GPUs", "market_index": "market index",
                "managed_service": "managed service"}
NEED_LABELS = {"online_rl": "online RL (rollouts from the policy)",
               "offline": "offline training on a fixed dataset",
               "teacher": "a teacher model", "critic": "a critic (value model)",
               "reward_model": "a learned reward model",
               "reference_kl": "a KL term to a reference model"}


@dataclass(frozen=True)
class PriceView:
    """One price: what it is for (a GPU, a model size, training time) and the figure."""

    label: str
    value: Shown
    locator: Markup | None


@dataclass(frozen=True)
class SourcedLine:
    """A free tier or a gap: its text, its provenance and where in the source it is stated."""

    text: str
    provenance: Shown
    locator: Markup | None


@dataclass(frozen=True)
class OfferView:
    id: str
    anchor: str
    name: str
    provider: str
    offer: str
    effective: str
    dated: str
    stale: str
    provenance: Shown
    locator: Markup | None
    prices: list[PriceView]
    price_note: str
    free_tier: SourcedLine | None
    free_figure: PriceView | None
    runs: list[str]
    gaps: list[SourcedLine]
    models: list[str] | None
    models_note: str
    notes: Markup | None


def _locator(text: str | None) -> Markup | None:
    return prose_inline(text) if text and text.strip() else None


def _prices(index: SiteIndex, way: WayToRun, links: Links) -> list[PriceView]:
    def at(*loc: str | int) -> Origin:
        return Origin("way", way.id, loc)

    hardware = index.catalog.hardware
    # the prices table prints each locator in a column of its own, not beside the figure
    found = [PriceView(hardware[g.gpu].name if g.gpu in hardware else gpu_label(g.gpu),
                       index.figure(g.price, links, at("gpu_prices", i, "price")).without_locator(),
                       _locator(g.price.locator)) for i, g in enumerate(way.gpu_prices)]
    for i, t in enumerate(way.token_prices):
        size = (f"models up to {derive.format_number(t.up_to_params_b)}B parameters"
                if t.up_to_params_b is not None else "any model size")
        found.append(PriceView(f"Training tokens, {size}",
                               index.figure(t.train, links, at("token_prices", i, "train"))
                               .without_locator(),
                               _locator(t.train.locator)))
    if way.hour_price is not None:
        found.append(PriceView("Training time (wall clock)",
                               index.figure(way.hour_price, links, at("hour_price"))
                               .without_locator(),
                               _locator(way.hour_price.locator)))
    return found


def _free_tier(index: SiteIndex, way: WayToRun,
               links: Links) -> tuple[SourcedLine | None, PriceView | None]:
    tier = way.free_tier
    if tier is None:
        return None, None
    at = Origin("way", way.id, ("free_tier",))
    until = f", until {tier.until.isoformat()}" if tier.until else ""
    line = SourcedLine(f"Free for models below the size shown{until}",
                       index.shown(tier.status.value, tier.status, [tier.source], links,
                                   reported_instead=tier.reported_instead, origin=at,
                                   asserted_by=tier.asserted_by),
                       _locator(tier.locator))
    figure = PriceView("Free below", index.figure(
        tier.below_params_b, links, Origin("way", way.id, ("free_tier", "below_params_b"))),
        _locator(tier.below_params_b.locator))
    return line, figure


def _gaps(index: SiteIndex, way: WayToRun, links: Links) -> list[SourcedLine]:
    return [SourcedLine(
        f"{NEED_LABELS.get(g.needs.value, g.needs.value)}: {g.reason}",
        index.shown(g.status.value, g.status, [g.source], links,
                    reported_instead=g.reported_instead, origin=Origin("way", way.id, ("gaps", i)),
                    asserted_by=g.asserted_by),
        _locator(g.locator)) for i, g in enumerate(way.gaps)]


def offer_view(index: SiteIndex, way: WayToRun, newest: dt.date, today: dt.date,
               links: Links) -> OfferView:
    """One dated list as the page shows it."""
    models = index.catalog.models
    tier, tier_figure = _free_tier(index, way, links)
    return OfferView(
        id=way.id, anchor=entry_anchor("way", way.id) or way.id, name=way.name,
        provider=way.provider, offer=OFFER_LABELS.get(way.offer.value, way.offer.value),
        effective=way.effective.isoformat(), dated=way.dated,
        stale=engine.staleness(way.effective, newest, today),
        provenance=index.shown(way.status.value, way.status, [way.source], links,
                               reported_instead=way.reported_instead,
                               origin=Origin("way", way.id, ()), asserted_by=way.asserted_by),
        locator=_locator(way.locator), prices=_prices(index, way, links),
        price_note=way.price_note or "", free_tier=tier, free_figure=tier_figure,
        runs=[NEED_LABELS.get(r.value, r.value) for r in way.runs or ()],
        gaps=_gaps(index, way, links),
        models=([models[i].name if i in models else i for i in way.models]
                if way.models is not None else None),
        models_note=way.models_note or "", notes=prose(way.notes) if way.notes else None)


def offer_views(index: SiteIndex, today: dt.date, links: Links) -> list[OfferView]:
    """Every way to run, by series, newest list first within a series."""
    ways: dict[str, WayToRun] = index.catalog.of("way")
    newest = engine.newest_dates(ways.values())
    ordered = sorted(ways.values(), key=lambda w: (w.series, -w.effective.toordinal(), w.id))
    return [offer_view(index, w, newest[w.series], today, links) for w in ordered]


def gpu_label(gpu_id: str) -> str:
    """A GPU the catalog has no specs for, by its name rather than its id: ``a100`` ->
    ``A100 (no specs in the catalog: not priced for a run)``."""
    return f"{gpu_id.upper()} (no specs in the catalog: not priced for a run)"
