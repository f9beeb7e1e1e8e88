"""The calculator's comparison of every way to run, as layout blocks (pipeline step 6).

One table row per row of ``derived/calculator/waysgraph.py`` (Tinker; each way and GPU type, its
free tier, or the way itself), shown where its ``shown`` quantity holds and sorted by total
(cheapest first, rows without a total last, ties by key, as ``derived.ways.compare``): what the
total multiplies, the total, the price list's date with a stale label, and break-even against
Tinker's bill and the cheapest row. A service that cannot run the job says why, in its docs'
words. Catalog text enters the templates through ``literal`` (HTML-escaped, braces as
entities), never as template syntax.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from markupsafe import escape

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.hardware import default_rental
from tinkernomics.catalog.models.ways import Capability, WayToRun
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import limits, waysgraph
from tinkernomics.derived.calculator.tree import to_tree
from tinkernomics.derived.calculator.waysgraph import NEEDS, WayRow
from tinkernomics.markup.prose import to_inline_html
from tinkernomics.site.pages.views import Links
from tinkernomics.site.pages.views.kinds import TINKER, WAYS, entry_anchor

ROW = "1 - missing(price.prefill)"
UNITS = {"gpu_hours": "/GPU-hour", "training_hours": "/hour", "tokens": " per 1M tokens"}


def literal(text: str) -> str:
    """Catalog text as template text: HTML-escaped, ``{`` and ``}`` as entities."""
    return str(escape(text)).replace("{", "&#123;").replace("}", "&#125;")


def prose(text: str) -> str:
    """Catalog Markdown as template text: the site's safe inline HTML, braces as entities."""
    return to_inline_html(text).replace("{", "&#123;").replace("}", "&#125;")


def cases(*pairs: tuple[str, str]) -> list[list[Any]]:
    return [[to_tree(when) if when else None, template] for when, template in pairs]


def stale_label(why: str) -> str:
    return f' <span class="tn-stale" title="{why}">stale</span> <small>{why}</small>'


def date_cell(way: WayToRun, newest: dt.date, links: Links) -> dict[str, Any]:
    w = f"ways.{waysgraph.way_slot(way.id)}"
    day = way.effective.isoformat()
    text = (f'<time datetime="{day}" title="{literal(way.dated)}">{day}</time> · '
            f'<a href="{links.to(WAYS, entry_anchor("way", way.id))}">source</a>')
    old = f"over {ways.STALE_MONTHS} months old"
    return {"cases": cases((f"{w}.newer", text + stale_label(
        f"a newer list ({newest.isoformat()}) exists")), (f"{w}.old", text + stale_label(old)),
        ("", text))}


def tinker_date(newest: dt.date, links: Links) -> dict[str, Any]:
    text = f'<a href="{links.to(TINKER)}">{{price_list:text}}</a> price list'
    return {"cases": cases(
        ("ways.tinker.newer", text + stale_label(f"a newer list ({newest.isoformat()}) exists")),
        ("ways.tinker.old", text + stale_label(f"over {ways.STALE_MONTHS} months old")),
        ("", text))}


def reasons(catalog: Catalog, way: WayToRun) -> list[tuple[str, str]]:
    """(when, text) of each reason it cannot run the job, in ``ways.not_offered``'s order."""
    found = []
    if way.models is not None:
        note = literal(way.models_note or "not among the models this service trains")
        found.append((f"1 - offers.{waysgraph.way_slot(way.id)}",
                       f"<strong>not offered</strong>: {{model_name:text}}: {note}"))
    found += [(NEEDS[gap.needs], f"<strong>not offered</strong>: {literal(gap.reason)}")
              for gap in way.gaps]
    return found


def caveats(way: WayToRun) -> list[list[Any]]:
    """Needs its docs neither offer nor rule out (``ways.caveats``), each where the run has it."""
    if way.runs is None:
        return []
    stated = set(way.runs) | {g.needs for g in way.gaps}
    offered = f"(1 - ways.{waysgraph.way_slot(way.id)}.no)"  # a way that cannot run it: none
    return cases(*((f"({NEEDS[n]}) * {offered}", f"<br><small>its docs do not say whether it runs "
                    f"{limits.WORDS[n]}</small>")
                   for n in Capability if n not in stated | limits.ROW_LIMITS))


def how(catalog: Catalog, row: WayRow) -> list[list[Any]]:
    """What the row's total multiplies (or why it has none)."""
    way = row.way
    if row.kind == "tinker":
        gaps = [(NEEDS[g.needs], f"<strong>not offered</strong>: {limits.gap_template(g)}")
                for g in ways.tinker_gaps(catalog)]  # Tinker's gaps, as any way's (issue 44)
        return cases(*gaps, (ROW, "tokens × the Tinker prices (the Tinker bill below)"),
                     ("", "{model_name:text} has no price in this list"))
    assert way is not None
    return cases(*reasons(catalog, way), *priced(catalog, row, way))


def priced(catalog: Catalog, row: WayRow, way: WayToRun) -> list[tuple[str, str]]:
    """(when, text) of what a priced row multiplies, or why it has no total."""
    r, unit = row.name, UNITS.get(row.kind, "")
    if row.kind == "free" and way.free_tier is not None:
        return [("", "free tier: free for models under "
                 f"{way.free_tier.below_params_b.value:g}B parameters")]
    if row.kind == "gpu_hours":
        gpu = literal(catalog.hardware[row.gpu].name)
        t = f"ways.{waysgraph.gpu_slot(row.gpu)}.time"  # sampler_fit: an engine too small
        return [(f"coalesce({t}.short, 0)", f"the sampler does not fit: the weights need "
                 f"{{{t}.min_engine_gpus:count}} × {gpu} in one engine, {{{t}.tp:count}} given"),
                (f"missing({r}.amount)", "no GPU-hours for this run"),
                ("", f"{{{r}.amount:number}} GPU-hours on {gpu} × {{{r}.rate:rate}}{unit}")]
    if row.kind == "tokens":
        return [(f"missing({r}.rate)", "no per-token price for a {model.total_b:number}B model"),
                ("", f"{{tokens.train:count}} trained tokens × {{{r}.rate:rate}}{unit}")]
    if row.kind == "training_hours":
        return [(f"missing({r}.amount)", "no training hours"),
                ("", f"{{{r}.amount:number}} training hours ({{mem.min_gpus:count}} × "
                 f"{{hw_name:text}}) × {{{r}.rate:rate}}{unit}")]
    if row.kind == "none":
        return [("", f"no price: {literal(way.price_note or 'no sourced price')}")]
    return []


def versus(row: WayRow) -> list[dict[str, Any]]:
    """Against Tinker's bill (ratio and tying rate) and against the cheapest row."""
    r = row.name
    cheapest = {"cases": cases(
        (f"{r}.total == ways.cheapest", "<strong>cheapest</strong>"),
        (f"{r}.total == 0", "free"), (f"missing({r}.vs_cheapest)", ""),
        ("", f"{{{r}.vs_cheapest:ratio}}"))}
    if row.kind == "tinker":
        return [{"cases": cases(("", "—"))}, cheapest]
    if row.kind in ("way", "none"):
        return [{"cases": cases(("", ""))}, {"cases": cases(("", ""))}]
    unit = UNITS.get(row.kind, "")
    tie = [] if row.kind == "free" else [(
        f"1 - missing({r}.tie_tinker)",
        f"{{{r}.vs_tinker:ratio}}<small>ties at {{{r}.tie_tinker:usd}}{unit}</small>")]
    free = [("", "free")] if row.kind == "free" else []
    tinker = {"cases": cases((f"missing({r}.vs_tinker)", ""), *tie, *free,
                             ("", f"{{{r}.vs_tinker:ratio}}"))}
    return [tinker, cheapest]


def label(row: WayRow) -> str:
    """The way's name (a GPU row names its GPU in the next cell)."""
    return "Tinker" if row.way is None else row.way.name


def table_row(catalog: Catalog, row: WayRow, newest: dict[str, dt.date], newest_list: dt.date,
              links: Links) -> dict[str, Any]:
    way = row.way
    date = (tinker_date(newest_list, links) if way is None
            else date_cell(way, newest[way.series], links))
    total = (f"{{{row.name}.total:usd}}" if row.kind not in ("way", "none") else "–")
    multiplies = {"cases": how(catalog, row),
                  "parts": caveats(way) if way is not None and row.kind != "way" else []}
    return {"key": row.key, "label": label(row), "cases": cases(("", total)), "parts": [],
            "cells": [*versus(row), multiplies, date],
            "when": to_tree(f"{row.name}.shown"),
            "order": f"{row.name}.{'order' if row.kind == 'free' else 'total'}"}


INTRO = ('<p>This run on Tinker and on every other way to run it, cheapest first: rented GPUs '
         "(GPU-hours on each GPU type at the utilisation above), market indexes and managed "
         "services (per GPU-hour, per token or per training hour). Break-even: this total as a "
         "multiple of Tinker's bill and of the cheapest paid total, and the rate at which this "
         "way would cost what Tinker does. A list older than "
         "{months} months on {today} (the day the site was built) or replaced by a newer list is "
         "marked <strong>stale</strong>. ")
PINS = cases(("pin.any", "Showing the lists you pinned under “Ways to run compared” (the link "
              "keeps them).</p>"),
             ("", "Showing the newest list of each offer; pin others under “Ways to run "
              "compared”.</p>"))


def ways_block(catalog: Catalog, today: dt.date, links: Links) -> dict[str, Any]:
    """The comparison table (generic table block, rows sorted by total)."""
    all_ways = catalog.of("way")
    newest = ways.newest_dates(all_ways.values())
    newest_list = ways.newest_price_list(catalog)
    intro = INTRO.format(months=ways.STALE_MONTHS, today=today.isoformat())
    return {
        "type": "table", "id": "calc-ways", "class": "tn-calc__ways",
        "title": "Every way to run this job",
        "head": ["Way to run", "Total", "Against Tinker (ties at)", "Against the cheapest paid",
                 "What the total multiplies", "Prices as of"],
        "rows": [table_row(catalog, r, newest, newest_list, links)
                 for r in waysgraph.rows(catalog)],
        "total": [], "flags": [], "when": None, "sort": True,
        "before": [[[w, intro + t] for w, t in PINS]],
        "after": [cases(("", '<p class="tn-calc__note">Every list with its prices, source and '
                         f'locator: <a href="{links.to(WAYS)}">Ways to run</a>.</p>'))],
    }


def rental_date(text: str) -> dt.date | None:
    """A hardware rental price's date ('2026-03' or '2026-03-01'; of a range such as '2025-09 to
    2026-10', its end) as a day, else None ('mid-2026 or later': no day to judge)."""
    last = text.split(" to ")[-1].strip()
    for fmt in ("%Y-%m-%d", "%Y-%m"):
        try:
            return dt.datetime.strptime(last, fmt).date()
        except ValueError:
            continue
    return None


def stale_gpu_price_block(catalog: Catalog, today: dt.date, links: Links) -> dict[str, Any]:
    """Issue 44: the warning beside the headline when its self-hosted figures use a GPU's
    default price (``default_rental``: the row the estimate prices with) that is stale as the
    Ways to run page judges a list: over ``STALE_MONTHS`` months old on the build day (a
    range's end; an undated row is not judged). Shown only while
    the reader has not set a price of their own."""
    found = []
    for hw_id, hw in catalog.hardware.items():
        first = default_rental(hw)
        day = rental_date(first.date) if first is not None else None
        if first is None or day is None or not ways.staleness(day, day, today):
            continue
        when = f"missing(set.gpu_price) * gpus.{waysgraph.gpu_slot(hw_id)}.chosen"
        found.append((when, '<p class="tn-calc__stale tn-calc__stale--gpu" role="note">'
                      "<strong>Stale GPU price."
                      f"</strong> The self-hosted figures use {literal(first.provider)}'s "
                      f"price for the {literal(hw.name)} of {literal(first.date)}, over "
                      f"{ways.STALE_MONTHS} months before this site was built "
                      f"({today.isoformat()}): set your own under “Rented GPUs”, or compare "
                      f'current lists on <a href="{links.to(WAYS)}">Ways to run</a>.</p>'))
    return {"type": "text", "id": "", "title": "", "flags": [],
            "when": to_tree(" + ".join(w for w, _ in found) + " > 0") if found else to_tree("0"),
            "cases": cases(*found)}
