"""Every way to run the job, side by side (pipeline step 5): pure functions of run totals.

``run_totals`` reads what the calculator's estimate already computes for a link (tokens by
kind, GPU-hours on each GPU the catalog has specs for, the Tinker bill, what the algorithm
needs); ``compare`` prices those totals on every way to run (``catalog/ways/``) and on Tinker:
one row per way and GPU type with its total, its basis (tokens, GPU-hours, training hours),
its date, staleness, "not offered" with the service's own reason, and break-even against every
other row. No row is ever a price the catalog does not hold: a way without one says why.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.ways import Capability, Gap, WayToRun
from tinkernomics.derived.calculator import inputs, limits
from tinkernomics.derived.calculator.estimate import Estimate, estimate

STALE_MONTHS = 6
"""A list older than this many months is flagged stale (as the Tinker list is)."""
TINKER = "tinker"
"""Row id of Tinker's own bill."""


@dataclass(frozen=True)
class RunTotals:
    """What a run needs and consumes, read off the calculator's estimate."""

    algorithm: str
    model: str
    total_params_b: float
    needs: frozenset[Capability]
    tokens: dict[str, float | None]
    gpu_hours: dict[str, float | None]
    """GPU-hours of the run on each catalog GPU (same MFU, that GPU's peak)."""
    training_hours: float | None
    """Wall-clock hours on the fewest GPUs that hold the run (chosen GPU)."""
    tinker_total: float | None
    price_list: str
    price_list_date: dt.date
    context: float | None = None
    """Tokens of context a sequence needs (the whole episode: ``limits.CONTEXT``)."""
    served_context: float | None = None
    """The context Tinker's priced row serves (its ``:peft:`` variant), None if not stated."""
    row: str = ""
    """Tinker's priced row as the reader names it: the model's name and the variant."""
    short: dict[str, str] = field(default_factory=dict)
    """Why a GPU has no GPU-hours: its sampler engine cannot hold the weights (``sampler_fit``)."""


@dataclass(frozen=True)
class BreakEven:
    """Against another row: this total over the other's, and the rate that ties them."""

    ratio: float | None
    rate: float | None
    """This row's rate (in its own unit) at which its total equals the other's."""


@dataclass(frozen=True)
class Row:
    """One way to run, priced for the run."""

    key: str
    way: str
    name: str
    offer: str
    basis: str
    gpu: str = ""
    rate: float | None = None
    rate_high: float | None = None
    amount: float | None = None
    total: float | None = None
    effective: dt.date | None = None
    dated: str = ""
    status: str = "reported"
    source: str = ""
    stale: str = ""
    not_offered: str = ""
    missing: str = ""
    caveats: tuple[str, ...] = ()
    break_even: dict[str, BreakEven] = field(default_factory=dict)


def needs_of(online: bool, roles: Iterable[str], lora: bool = True,
             over_context: bool = False) -> frozenset[Capability]:
    """What a run needs from the way it runs on: online RL or offline data, each role, full
    fine-tuning when it trains every weight, and more context than the priced row serves."""
    found = {Capability.online_rl if online else Capability.offline}
    if not lora:
        found.add(Capability.full_finetune)
    if over_context:
        found.add(Capability.context_length)
    role_needs = {"teacher": Capability.teacher, "critic": Capability.critic,
                  "reward_model": Capability.reward_model, "reference": Capability.reference_kl}
    found |= {role_needs[r] for r in roles if r in role_needs}
    return frozenset(found)


def _other_gpu(query: Mapping[str, str], hw: str) -> dict[str, str]:
    """The same link on another GPU (its price and decode MFU cleared, as the page does)."""
    cleared = {inputs.key(name) for name in ("set.gpu_price", "set.mfu_decode")}
    return {**{k: v for k, v in query.items() if k not in cleared}, inputs.key("hardware"): hw}


def run_totals(catalog: Catalog, query: Mapping[str, str]) -> RunTotals:
    """The run totals of a calculator link, for every GPU the catalog has specs for."""
    est = estimate(catalog, query)
    each = {hw: est if hw == est.choice.hardware else estimate(catalog, _other_gpu(query, hw))
            for hw in catalog.hardware}
    gpu_hours = {hw: e.values.get("self.gpu_hours") for hw, e in each.items()}
    short = {hw: engine_short(e) for hw, e in each.items() if e.values.get("time.short")}
    return replace(totals_of(catalog, est, gpu_hours), short=short)


def engine_short(est: Estimate) -> str:
    """Why the run has no GPU-hours on the estimate's GPU: the sampler engine is too small."""
    need, tp = (est.values.get(k) or 0.0 for k in ("time.min_engine_gpus", "time.tp"))
    return (f"the sampler does not fit: the weights need {need:g} × "
            f"{est.resolved.names['hw_name']} in one engine, {tp:g} given")


def totals_of(catalog: Catalog, est: Estimate,
              gpu_hours: dict[str, float | None]) -> RunTotals:
    """``RunTotals`` from an evaluated estimate and its GPU-hours per GPU."""
    c = est.choice
    hours, gpus = est.values.get("self.gpu_hours"), est.values.get("mem.min_gpus")
    plist = catalog.price_lists[c.price_list]
    return RunTotals(
        algorithm=c.algorithm, model=c.model,
        total_params_b=catalog.models[c.model].total_params.value,
        needs=estimate_needs(est),
        tokens={k: est.values.get(f"tokens.{k}") for k in
                ("prefill", "prefill_cached", "sample", "train", "sequence")},
        gpu_hours=gpu_hours,
        training_hours=hours / gpus if hours is not None and gpus else None,
        tinker_total=est.values.get("tinker.total"),
        price_list=plist.id, price_list_date=plist.effective,
        context=est.values.get("tokens.context"),
        served_context=est.env.get("price.context"), row=row_name(est))


def estimate_needs(est: Estimate) -> frozenset[Capability]:
    """``needs_of`` an evaluated estimate (the context it needs against the row's)."""
    return needs_of(bool(est.env["run.online"]), est.resolved.roles, est.choice.lora,
                    limits.over(est.values.get("tokens.context"),
                                est.env.get("price.context")))


def row_name(est: Estimate) -> str:
    """Tinker's priced row as the reader names it ('Qwen3-8B:peft:131072')."""
    return est.resolved.names["model_name"] + est.resolved.names["variant"]


def months_before(day: dt.date, months: int) -> dt.date:
    """``day`` moved back by whole months (the last day of a shorter month)."""
    y, mth = divmod(day.year * 12 + day.month - 1 - months, 12)
    for d in (day.day, 30, 29, 28):
        try:
            return dt.date(y, mth + 1, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")  # pragma: no cover


def staleness(effective: dt.date, newest: dt.date, today: dt.date) -> str:
    """Why a list is stale ('' if it is not): a newer list exists, or it is over six months."""
    if newest > effective:
        return f"a newer list ({newest.isoformat()}) exists"
    if effective < months_before(today, STALE_MONTHS):
        return f"over {STALE_MONTHS} months old ({effective.isoformat()})"
    return ""


def newest_price_list(catalog: Catalog) -> dt.date:
    """The date of the catalog's newest Tinker price list (any older one is stale)."""
    return max(p.effective for p in catalog.price_lists.values())


def newest_dates(ways: Iterable[WayToRun]) -> dict[str, dt.date]:
    """The date of the newest list of each offer, by series."""
    return {s: w.effective for s, w in newest_by_series(ways).items()}


def newest_by_series(ways: Iterable[WayToRun]) -> dict[str, WayToRun]:
    """The newest list of each offer (same ``series``), by series."""
    found: dict[str, WayToRun] = {}
    for way in ways:
        best = found.get(way.series)
        if best is None or (way.effective, way.id) > (best.effective, best.id):
            found[way.series] = way
    return found


def not_offered(way: WayToRun, run: RunTotals, model_name: str) -> str:
    """The service's own reason it cannot run this run ('' if nothing says so)."""
    if way.models is not None and run.model not in way.models:
        return f"{model_name}: {way.models_note or 'not among the models this service trains'}"
    return gap_reason(way.gaps, run.needs, run)


def gap_reason(gaps: Iterable[Gap], needs: frozenset[Capability],
               run: RunTotals | None = None) -> str:
    """The first gap's reason that the run needs ('' if none): the same rule for Tinker's
    own gaps (``TinkerPlatform.gaps``) as for every way to run's; a context gap says, given
    the run, how much context it needs and how much the row serves."""
    gap = next((gap for gap in gaps if gap.needs in needs), None)
    if gap is None:
        return ""
    if (gap.needs == Capability.context_length and run is not None
            and run.context is not None and run.served_context is not None):
        return limits.context_reason(gap.reason, run.context, run.row, run.served_context)
    return gap.reason


tinker_gaps = limits.tinker_gaps


def caveats(way: WayToRun, run: RunTotals) -> tuple[str, ...]:
    """Needs the service's docs neither offer nor rule out."""
    if way.runs is None:
        return ()
    stated = set(way.runs) | {g.needs for g in way.gaps} | limits.ROW_LIMITS
    return tuple(f"its docs do not say whether it runs {limits.WORDS[n]}"
                 for n in sorted(run.needs - stated))


def _free(way: WayToRun, run: RunTotals, today: dt.date) -> bool:
    tier = way.free_tier
    return (tier is not None and run.total_params_b < tier.below_params_b.value
            and (tier.until is None or today <= tier.until))


def _base(way: WayToRun, newest: dt.date, today: dt.date) -> Row:
    return Row(key=way.id, way=way.id, name=way.name, offer=way.offer.value,
               basis=way.basis(), effective=way.effective, dated=way.dated,
               status=way.status.value, source=way.source,
               stale=staleness(way.effective, newest, today))


def _times(amount: float | None, rate: float | None, per: float = 1.0) -> float | None:
    return None if amount is None or rate is None else amount * rate / per


def _gpu_rows(way: WayToRun, run: RunTotals, base: Row) -> list[Row]:
    """One row per GPU type the catalog has GPU-hours for."""
    rows = []
    for gp in way.gpu_prices:
        if gp.gpu not in run.gpu_hours:
            continue
        amount = run.gpu_hours[gp.gpu]
        rows.append(replace(base, key=f"{way.id}:{gp.gpu}", gpu=gp.gpu, rate=gp.price.value,
                            rate_high=gp.price.high, amount=amount,
                            total=_times(amount, gp.price.value),
                            status=gp.price.status.value, source=gp.price.source,
                            missing="" if amount is not None else
                            run.short.get(gp.gpu, "no GPU-hours for this run")))
    return rows


def _token_row(way: WayToRun, run: RunTotals, base: Row) -> Row:
    """The per-token price of the run's model size (tokens trained × USD per 1M)."""
    for tp in way.token_prices:
        if tp.up_to_params_b is None or run.total_params_b <= tp.up_to_params_b:
            amount = run.tokens.get("train")
            return replace(base, rate=tp.train.value, amount=amount,
                           total=_times(amount, tp.train.value, 1e6), source=tp.train.source)
    return replace(base, missing=f"no per-token price for a {run.total_params_b:g}B model")


def _hour_row(way: WayToRun, run: RunTotals, base: Row) -> Row:
    rate = way.hour_price.value if way.hour_price is not None else None
    return replace(base, rate=rate, amount=run.training_hours,
                   total=_times(run.training_hours, rate),
                   missing="" if run.training_hours is not None else "no training hours")


def way_rows(way: WayToRun, run: RunTotals, model_name: str, newest: dt.date,
             today: dt.date) -> list[Row]:
    """The rows of one way: priced, free, not offered, or missing a price (with why)."""
    base = _base(way, newest, today)
    reason = not_offered(way, run, model_name)
    if reason:
        return [replace(base, not_offered=reason)]
    base = replace(base, caveats=caveats(way, run))
    if way.basis() == "gpu_hours":
        rows = _gpu_rows(way, run, base)
    elif way.basis() == "tokens":
        rows = [_token_row(way, run, base)]
    elif way.basis() == "training_hours":
        rows = [_hour_row(way, run, base)]
    else:
        rows = [replace(base, missing=way.price_note or "no sourced price")]
    if _free(way, run, today):
        below = way.free_tier.below_params_b.value  # type: ignore[union-attr]
        free = replace(base, key=f"{way.id}:free", basis="free_tier", total=0.0, rate=0.0,
                       caveats=(*base.caveats, f"free for models under {below:g}B parameters"))
        return [free]
    return rows


def tinker_row(run: RunTotals, newest_list: dt.date, today: dt.date,
               gaps: Iterable[Gap] = ()) -> Row:
    """Tinker's bill for the run from the estimate (tokens × the chosen price list), or "not
    offered" with Tinker's own gap's reason, exactly as for any way to run."""
    reason = gap_reason(gaps, run.needs, run)
    total = None if reason else run.tinker_total
    return Row(key=TINKER, way=TINKER, name=f"Tinker (prices {run.price_list})",
               offer="managed_service", basis="tokens", total=total,
               effective=run.price_list_date, dated=run.price_list,
               source=f"price_list:{run.price_list}", not_offered=reason,
               stale=staleness(run.price_list_date, newest_list, today),
               missing="" if reason or total is not None else "no Tinker price for this model")


def break_even(rows: list[Row]) -> list[Row]:
    """Each priced row against every other priced row: ratio of totals and the tying rate."""
    priced = [r for r in rows if r.total is not None]
    out = []
    for row in rows:
        total = row.total
        if total is None:
            out.append(row)
            continue
        table = {}
        for other in priced:
            if other.key == row.key or other.total is None:
                continue
            ratio = total / other.total if other.total else None
            rate = other.total / row.amount if row.amount else None
            table[other.key] = BreakEven(ratio, rate)
        out.append(replace(row, break_even=table))
    return out


def compare(catalog: Catalog, run: RunTotals, today: dt.date,
            pinned: Iterable[str] | None = None) -> list[Row]:
    """Tinker and every way to run (the newest list of each offer, or the pinned ids), priced
    for ``run``; cheapest first, then free tiers, then rows without a total (``order``)."""
    ways: dict[str, WayToRun] = catalog.of("way")
    newest = newest_dates(ways.values())
    chosen = ([ways[i] for i in pinned if i in ways] if pinned is not None
              else list(newest_by_series(ways.values()).values()))
    model_name = catalog.models[run.model].name
    rows = [tinker_row(run, newest_price_list(catalog), today, tinker_gaps(catalog))]
    for way in sorted(chosen, key=lambda w: w.id):
        rows += way_rows(way, run, model_name, newest[way.series], today)
    rows.sort(key=order)
    return break_even(rows)


def order(row: Row) -> tuple[bool, bool, float, str]:
    """Priced rows cheapest first, then free tiers (a $0 that covers only models below a size
    is no price to head the table with), then rows without a total."""
    return (row.total is None, row.basis == "free_tier",
            row.total if row.total is not None else 0.0, row.key)


def as_json(rows: list[Row]) -> list[dict[str, object]]:
    """Rows as plain JSON values (dates as YYYY-MM-DD)."""
    def one(r: Row) -> dict[str, object]:
        return {"key": r.key, "way": r.way, "name": r.name, "offer": r.offer, "basis": r.basis,
                "gpu": r.gpu or None, "rate": r.rate, "rate_high": r.rate_high,
                "amount": r.amount, "total": r.total,
                "effective": r.effective.isoformat() if r.effective else None,
                "dated": r.dated, "status": r.status, "source": r.source,
                "stale": r.stale or None, "not_offered": r.not_offered or None,
                "missing": r.missing or None, "caveats": list(r.caveats),
                "break_even": {k: {"ratio": b.ratio, "rate": b.rate}
                               for k, b in r.break_even.items()}}
    return [one(r) for r in rows]
