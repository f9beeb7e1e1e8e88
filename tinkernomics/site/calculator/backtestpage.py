"""The Back-test page (pipeline step 6): every published run's estimate beside what it used.

``backtest_page()`` (a macro of the calculator feature, called by ``docs/backtest.md``) renders
``derived/calculator/backtest.rows`` as a table: the run and its source, its GPU, the
calculator's estimate with a link to each stage's settings in the calculator, the GPU-hours the
run used, the ratio, which settings the entry assumed and the entry's notes (sanitised
markdown); the held-out runs' ratios at first sight beside today's (``heldout.py``); the
runs more than ``OUTSIDE`` (2×) off are named first, each linked to its notes,
which say why; a run whose source reads two ways is shown under each reading and named as not
scored; then the spread (its extremes, and the middle the calculator states beside
every self-hosted figure: ``spread.py``), the time model's constants with their basis, and
which basis the convergence cost uses. Each run's own section is left out of the search index
(the table names the runs): with every run saying "GPU-hours" twice, a catalog of runs would
otherwise outrank the page a reader searching the term wants. View values are plain strings
(the template escapes them) or sanitised HTML.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.runs import PublishedRun
from tinkernomics.derived.calculator import backtest, heldout, ids, spread, timing
from tinkernomics.derived.calculator.estimate import backtest_rows
from tinkernomics.site.api import backtest as backtest_api
from tinkernomics.site.calculator.formatting import fmt_number, fmt_value
from tinkernomics.site.pages.views import Links
from tinkernomics.site.pages.views.core import prose_inline
from tinkernomics.site.pages.views.kinds import entry_anchor, entry_page
from tinkernomics.site.paths import BACKTEST, backtest_anchor

PAGE = BACKTEST
CALCULATOR = "calculator/"
OUTSIDE = 2.0
"""A run whose estimate is more than this factor off its actual is named above the table."""


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def _settings(catalog: Catalog, run: PublishedRun) -> str:
    """The run's shape in reader terms (the model's and the algorithm's names, not their ids)."""
    first = run.stages[0]
    mode = "async" if run.mode.value == "async" else "sync"
    stages = f"{len(run.stages)} stages, " if len(run.stages) > 1 else ""
    mean, cap = first.mean_completion_tokens.value, first.max_completion_tokens.value
    model, algorithm = catalog.models[run.model].name, catalog.algorithms[run.algorithm].name
    return (f"{model}, {algorithm}; {stages}{fmt_number(first.prompts.value)} prompts "
            f"× G {fmt_number(first.group.value)}, mean {fmt_number(mean)} / cap "
            f"{fmt_number(cap)} tokens; {run.framework}, {mode}, "
            f"{'colocated' if run.colocated else 'separate samplers'}")


def row_view(catalog: Catalog, r: backtest.Row, links: Links) -> dict[str, Any]:
    run: PublishedRun = catalog.of("run")[r.run]
    hw = catalog.hardware[r.hardware]
    actual = run.actual_gpu_hours
    ref = catalog.references.get(actual.source)
    return {
        "name": run.name, "id": r.run, "anchor": backtest_anchor(r.run),
        "entry": links.to(entry_page("run", r.run), entry_anchor("run", r.run)),
        "hardware": hw.name, "settings": _settings(catalog, run),
        "estimate": fmt_value("hours", r.estimate_gpu_hours),
        "actual": fmt_value("hours", r.actual_gpu_hours),
        "actual_status": actual.status.value, "ratio": _ratio(r.ratio),
        "source": ref.title if ref else actual.source,
        "source_url": str(ref.url) if ref and ref.url else "",
        "locator": actual.locator or "",
        "assumed": ", ".join(r.assumed) or "nothing",
        "notes": prose_inline(run.notes) if run.notes else "",
        "outside": r.scored and outside(r.ratio),
        "scored": r.scored,
        "readings": [{"label": p.label, "why": prose_inline(p.why),
                      "estimate": fmt_value("hours", p.estimate_gpu_hours),
                      "ratio": _ratio(r.reading_ratio(p))} for p in r.readings],
        "stages": [{"label": s.label or f"stage {i + 1}",
                    "href": links.to(CALCULATOR) + "?" + urlencode(q, safe=":")}
                   for i, (s, q) in enumerate(zip(run.stages, r.stages, strict=True))],
    }


def outside(ratio: float | None) -> bool:
    """True when an estimate landed more than ``OUTSIDE`` times off its run's actual."""
    return ratio is not None and not 1 / OUTSIDE <= ratio <= OUTSIDE


def held_view(found: list[backtest.Row],
              records: tuple[heldout.FirstSight, ...] = heldout.FIRST_SIGHT) -> dict[str, Any]:
    """The held-out runs: each one's ratio at first sight beside today's, and how many of them
    landed within 2× at first sight."""
    held = heldout.held_out(found, records)
    s = heldout.summary(held)
    return {"held_out": [{"id": h.run, "anchor": backtest_anchor(h.run), "name": h.name,
                          "first": _ratio(h.first),
                          "now": _ratio(h.now), "commit": h.commit, "added": h.added,
                          "first_outside": not heldout.within(h.first)} for h in held],
            "held_within": s.within, "held_count": s.count,
            "held_mean": _ratio(s.geometric_mean), "held_low": _ratio(s.inner_low),
            "held_high": _ratio(s.inner_high),
            "held_band": (f"middle {spread.INNER:.0%} ({spread.LOW * 100:.0f}th to "
                          f"{spread.HIGH * 100:.0f}th percentile)")}


def view(catalog: Catalog,
         records: tuple[heldout.FirstSight, ...] = heldout.FIRST_SIGHT) -> dict[str, Any]:
    links = Links(PAGE)
    found = backtest_rows(catalog)
    s = backtest.summary(found)
    scalerl = next((r for r in found if r.run == ids.SCALERL_RUN), None)
    rows = [row_view(catalog, r, links) for r in found]
    return {
        "rows": rows, "outside": [r for r in rows if r["outside"]],
        "unscored": [r for r in rows if not r["scored"]],
        "count": s.count, "mean": _ratio(s.geometric_mean), "low": _ratio(s.low),
        "high": _ratio(s.high), "inner_low": _ratio(s.inner_low),
        "inner_high": _ratio(s.inner_high), "rule": spread.RULE,
        "constants": [{"key": c.key, "label": c.label, "value": f"{c.value:g}",
                       "basis": c.basis} for c in timing.CONSTANTS],
        "scalerl": _ratio(scalerl.ratio) if scalerl else "",
        "calculator": links.to(CALCULATOR),
        "data": backtest_api.PATH.removeprefix(PAGE),  # a file beside the page, not a page
        **held_view(found, records),
    }
