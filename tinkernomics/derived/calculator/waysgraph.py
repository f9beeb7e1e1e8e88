"""Every way to run the job, as graph quantities (pipeline step 5): the calculator's comparison.

``derived/ways.py`` prices a run on every way to run in Python (the command line, the JSON API,
the Ways to run page); this module writes the same rules as quantities over the estimate's
graph, so the calculator page evaluates them in the browser with the same generic evaluator
(``calculator.js`` holds no rule). ``graph`` is the estimate's graph plus:

- the run's GPU-hours on every catalog GPU (``ways.g_<gpu>.hours``: each compute line's FLOPs
  over that GPU's peak at the same utilisation, its decode roofline, as ``run_totals`` re-runs
  the estimate per GPU) and its training hours on the fewest GPUs that hold it;
- per way (``ways.w_<id>.*``): not offered (a model it does not train, a need one of its gaps
  names), free (below its free tier's model size), stale (a newer list of its series, or older
  than ``STALE_MONTHS`` on the data date) and listed (pinned by the link's ``w``, else the
  newest list of its series);
- per row (``rows``: a way and GPU type, its free tier, or the way itself): rate, amount,
  total, shown, and break-even against Tinker's bill (ratio, tying rate) and the cheapest
  paid row (``ways.cheapest``: the lowest total above zero).

The extra inputs (``input_names``) are lookups and flags: each GPU's figures (``gpu_inputs``),
whether the chosen model is one a way trains (``model_flags``), the pins, the chosen price
list's date; calculator.js reads them off the tables the page ships. ``tests/test_calc_ways.py``
evaluates the graph in Python (``tests/helpers_calc.evaluate_ways``, the same inputs) and
checks it against ``ways.compare`` on fixture ways.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.ways import WayToRun
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import inputs, limits, timing
from tinkernomics.derived.calculator.constants import number
from tinkernomics.derived.calculator.estimate import (
    graph_for,
    hardware_inputs,
    prefixed,
)
from tinkernomics.derived.calculator.graph import Graph, Quantity

NONE = "1e300"
"""Stands for 'no total' in the minimum that finds the cheapest row (never a price)."""
FREE_ORDER = "1e299"
"""Where a free tier sorts in the page's table: after every paid total (``ways.order``)."""
NEEDS = limits.NEEDS
"""What a run needs, as a flag of the estimate (``ways.needs_of``)."""


@dataclass(frozen=True)
class WayRow:
    """One row the comparison may show: ``key`` as ``ways.Row.key``, ``name`` its quantities'
    prefix (``ways.<slot>``), ``kind`` how it is priced: ``tinker``, ``gpu_hours``, ``tokens``,
    ``training_hours``, ``none`` (no price), ``free`` (the free tier) or ``way`` (the way itself
    when it cannot run the job and has GPU prices)."""

    key: str
    slot: str
    kind: str
    way: WayToRun | None = None
    gpu: str = ""

    @property
    def name(self) -> str:
        return f"ways.{self.slot}"


def way_slot(way_id: str) -> str:
    return "w_" + inputs.slot(way_id)


def gpu_slot(hw_id: str) -> str:
    return "g_" + inputs.slot(hw_id)


def rows(catalog: Catalog) -> list[WayRow]:
    """Tinker and every row of every way, in key order (``ways.compare`` breaks ties by key)."""
    found = [WayRow(ways.TINKER, "tinker", "tinker")]
    for wid, way in catalog.of("way").items():
        s = way_slot(wid)
        if way.basis() == "gpu_hours":
            found.append(WayRow(wid, s, "way", way))
            found += [WayRow(f"{wid}:{gp.gpu}", f"{s}__{gpu_slot(gp.gpu)}", "gpu_hours", way,
                             gp.gpu) for gp in way.gpu_prices if gp.gpu in catalog.hardware]
        else:
            found.append(WayRow(wid, s, way.basis(), way))
        if way.free_tier is not None:
            found.append(WayRow(f"{wid}:free", f"{s}__free", "free", way))
    return sorted(found, key=lambda r: r.key)


# --------------------------------------------------------------------------- inputs


def model_flags(catalog: Catalog, model_id: str) -> dict[str, float]:
    """``offers.w_<id>``: 1 if a way with a models list trains this model (a lookup)."""
    return {f"offers.{way_slot(wid)}": 1.0 if model_id in way.models else 0.0
            for wid, way in catalog.of("way").items() if way.models is not None}


def gpu_inputs(catalog: Catalog, chosen: str) -> dict[str, float | None]:
    """Every catalog GPU's figures (``gpus.g_<id>.tflops`` ...) and which one is chosen."""
    found: dict[str, float | None] = {}
    for hw_id in catalog.hardware:
        g = f"gpus.{gpu_slot(hw_id)}"
        found.update(prefixed(g, hardware_inputs(catalog, hw_id)))
        found[f"{g}.chosen"] = 1.0 if hw_id == chosen else 0.0
    return found


def input_names(catalog: Catalog) -> tuple[str, ...]:
    names = [f"pin.{suffix}" for _, suffix in inputs.way_options(catalog)]
    names += ["pin.any", *model_flags(catalog, next(iter(catalog.models)))]
    names += list(gpu_inputs(catalog, ""))
    return (*names, "price.effective")


# --------------------------------------------------------------------------- quantities


def q(key: str, expression: str, *, fmt: str = "number", when: str = "") -> Quantity:
    return Quantity(key, expression, format=fmt, label=key, when=when, shown=False)


def gpu_hours(catalog: Catalog) -> list[Quantity]:
    """The run's GPU-hours on every catalog GPU: the chosen one's, else the time model
    (``timing``) written over that GPU's figures, as ``run_totals`` re-runs the estimate."""
    found = []
    for hw_id in catalog.hardware:
        g, gpu = f"ways.{gpu_slot(hw_id)}", f"gpus.{gpu_slot(hw_id)}"
        found += timing.quantities(f"{g}.time", gpu, shown=False)
        found.append(q(f"{g}.sum", f"{g}.time.gpu_hours", fmt="hours"))
        found.append(q(f"{g}.hours", f"self.gpu_hours if {gpu}.chosen else {g}.sum", fmt="hours"))
    found.append(q("ways.training_hours", "self.gpu_hours / mem.min_gpus", fmt="hours"))
    return found


def _ordinal(day: dt.date) -> str:
    return number(day.toordinal())


def not_offered(way: WayToRun) -> str:
    """1 where the service cannot run the job (``ways.not_offered``), else 0."""
    terms = [f"(1 - offers.{way_slot(way.id)})"] if way.models is not None else []
    terms += [NEEDS[gap.needs] for gap in way.gaps]
    return f"({' + '.join(terms)}) > 0" if terms else "0.0"


def free(way: WayToRun, today: dt.date) -> str:
    """1 where the run is free (``ways._free``): a model below the free tier's size, on a day
    the tier still holds."""
    tier = way.free_tier
    if tier is None or (tier.until is not None and today > tier.until):
        return "0.0"
    below = number(tier.below_params_b.value)
    return f"(1 - ways.{way_slot(way.id)}.no) * (model.total_b < {below})"


def way_quantities(way: WayToRun, newest: dt.date, today: dt.date) -> list[Quantity]:
    """Flags of one way: not offered, free, stale (and why), listed in the comparison."""
    w = f"ways.{way_slot(way.id)}"
    default = 1.0 if way.effective == newest else 0.0
    return [
        q(f"{w}.no", not_offered(way)),
        q(f"{w}.free", free(way, today)),
        q(f"{w}.newer", f"{_ordinal(way.effective)} < {_ordinal(newest)}"),
        q(f"{w}.old", f"{_ordinal(way.effective)} < ways.stale_before"),
        q(f"ways.listed.{way_slot(way.id)}",
          f"pin.{way_slot(way.id)} if pin.any else {number(default)}"),
    ]


def token_rate(way: WayToRun) -> tuple[str, str]:
    """(rate, when): the per-token price of the run's model size, the first that covers it."""
    rate, sizes = "", list[float]()
    for tp in reversed(way.token_prices):
        price = number(tp.train.value)
        if tp.up_to_params_b is None:
            rate, sizes = price, []
        else:
            rate = f"{price} if model.total_b <= {number(tp.up_to_params_b)} else ({rate})" \
                if rate else price
            sizes.append(tp.up_to_params_b)
    if any(tp.up_to_params_b is None for tp in way.token_prices):
        return rate, ""
    return rate, f"model.total_b <= {number(max(sizes))}"


def priced(row: WayRow) -> tuple[str, str, str, str]:
    """(amount, rate, per, when) of a row's total: amount × rate ÷ per."""
    way = row.way
    assert way is not None
    if row.kind == "gpu_hours":
        price = next(gp.price.value for gp in way.gpu_prices if gp.gpu == row.gpu)
        return f"ways.{gpu_slot(row.gpu)}.hours", number(price), "1.0", ""
    if row.kind == "tokens":
        rate, when = token_rate(way)
        return "tokens.train", rate, "1e6", when
    if row.kind == "training_hours":
        assert way.hour_price is not None
        return "ways.training_hours", number(way.hour_price.value), "1.0", ""
    return "", "", "", ""


def row_quantities(row: WayRow) -> list[Quantity]:
    """A way's row: when it is shown, and its rate, amount and total where it has one."""
    r = row.name
    w = f"ways.{way_slot(row.way.id)}" if row.way is not None else ""
    listed = f"ways.listed.{way_slot(row.way.id)}" if row.way is not None else "1.0"
    if row.kind == "free":  # sorted after every paid row (ways.order)
        return [q(f"{r}.shown", f"{listed} * {w}.free"), q(f"{r}.total", "0.0", fmt="usd"),
                q(f"{r}.order", FREE_ORDER)]
    if row.kind == "way":
        return [q(f"{r}.shown", f"{listed} * {w}.no")]
    applies = f"(1 - {w}.no) * (1 - {w}.free)"
    shown = f"{listed} * {w}.no + {listed} * {applies}"
    if row.kind == "gpu_hours":
        shown = f"{listed} * {applies}"
    found = [q(f"{r}.shown", shown)]
    amount, rate, per, when = priced(row)
    if amount:
        found += [q(f"{r}.rate", rate, fmt="number", when=when),
                  q(f"{r}.amount", amount, fmt="number", when=applies),
                  q(f"{r}.total", f"{r}.amount * {r}.rate / {per}", fmt="usd", when=applies)]
    return found


def break_even(found: list[WayRow]) -> list[Quantity]:
    """The cheapest shown total above zero (a free tier is no price to compare with), and each
    row against Tinker's bill and against it."""
    def term(row: WayRow) -> str:
        r = row.name
        return f"coalesce({r}.total if {r}.shown * ({r}.total > 0) else {NONE}, {NONE})"

    totals = [row for row in found if row.kind not in ("way", "none")]
    out = [q("ways.lowest", f"min({', '.join(term(r) for r in totals)})", fmt="usd"),
           q("ways.cheapest", "ways.lowest", fmt="usd", when=f"ways.lowest < {NONE}")]
    for row in totals:
        r = row.name
        out.append(q(f"{r}.vs_cheapest", f"{r}.total / ways.cheapest", fmt="ratio"))
        if row.kind == "tinker":
            continue
        out.append(q(f"{r}.vs_tinker", f"{r}.total / tinker.total", fmt="ratio"))
        if row.kind != "free":
            out.append(q(f"{r}.tie_tinker", f"tinker.total / {r}.amount", fmt="number",
                         when=f"1 - missing({r}.total)"))
    return out


def quantities(catalog: Catalog, today: dt.date) -> list[Quantity]:
    """Every quantity of the comparison, after the estimate's."""
    all_ways = catalog.of("way")
    newest = ways.newest_dates(all_ways.values())
    newest_list = ways.newest_price_list(catalog)
    found = [
        q("ways.stale_before", _ordinal(ways.months_before(today, ways.STALE_MONTHS))),
        q("ways.tinker.total", "tinker.total", fmt="usd"),
        q("ways.tinker.shown", "1.0"),
        q("ways.tinker.no", "tinker.no"),
        q("ways.tinker.newer", f"price.effective < {_ordinal(newest_list)}"),
        q("ways.tinker.old", "price.effective < ways.stale_before"),
        *gpu_hours(catalog),
    ]
    for way in all_ways.values():
        found += way_quantities(way, newest[way.series], today)
    table = rows(catalog)
    for row in table:
        if row.kind != "tinker":
            found += row_quantities(row)
    return found + break_even(table)


def catalog_day(catalog: Catalog) -> dt.date:
    """The newest date of any price list or way: the day to judge staleness on when the
    caller has none (the site passes its build day, ``site.freshness.staleness_day``)."""
    return max([p.effective for p in catalog.price_lists.values()]
               + [w.effective for w in catalog.of("way").values()])


_GRAPHS: dict[tuple[int, dt.date], tuple[Catalog, Graph]] = {}


def graph(catalog: Catalog, today: dt.date) -> Graph:
    """The estimate's graph with the comparison after it (built once per catalog and day)."""
    cached = _GRAPHS.get((id(catalog), today))
    if cached is None or cached[0] is not catalog:
        main = graph_for(catalog)
        extended = Graph(inputs=main.inputs + input_names(catalog))
        extended.add(*main.quantities)
        extended.lines += main.lines
        extended.add(*quantities(catalog, today))
        cached = _GRAPHS[(id(catalog), today)] = (catalog, extended)
    return cached[1]
