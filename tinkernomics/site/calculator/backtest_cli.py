"""``tinkernomics backtest [--json]``: every published run's estimate beside what it used
(pipeline step 6).

The rows are ``derived/calculator/backtest.rows``: each ``catalog/runs/`` entry's stages priced
by the calculator's graph, summed, set beside the run's GPU-hours. The text table prints run,
GPU, estimate, actual, ratio and the settings the entry assumed, and under a run whose source
reads two ways, each other reading's estimate and ratio (such a run is not scored); ``--json``
the same rows and the summary (geometric mean, lowest and highest ratio) as data. Both end
with the held-out runs (``derived/calculator/heldout.py``): each one's ratio the day it was
added beside today's.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from tinkernomics.derived.calculator import backtest, heldout
from tinkernomics.derived.calculator.estimate import backtest_rows
from tinkernomics.site.calculator.estimate_cli import valid_catalog
from tinkernomics.site.calculator.formatting import fmt_value


def as_json(rows: list[backtest.Row]) -> dict[str, Any]:
    """The rows (with their ratio) and the summary, as plain data."""
    return {"runs": [{**asdict(r), "ratio": r.ratio, "scored": r.scored,
                      "reading_ratios": [r.reading_ratio(p) for p in r.readings]}
                     for r in rows],
            "summary": asdict(backtest.summary(rows)),
            "held_out": [asdict(h) for h in heldout.held_out(rows)]}


def _hours(value: float | None) -> str:
    """GPU-hours as the Back-test page writes them (about three significant digits below a
    hundred: a run of a fraction of an hour is not 0)."""
    return fmt_value("hours", value)


def print_table(rows: list[backtest.Row]) -> None:
    print(f"{'run':24} {'GPU':10} {'estimate':>10} {'actual':>10} {'ratio':>6}  assumed")
    for r in rows:
        ratio = "–" if r.ratio is None else f"{r.ratio:.2f}"
        scored = "" if r.scored else "; not scored: the source reads two ways"
        print(f"{r.run:24} {r.hardware:10} {_hours(r.estimate_gpu_hours):>10} "
              f"{_hours(r.actual_gpu_hours):>10} {ratio:>6}  {len(r.assumed)} settings{scored}")
        for p in r.readings:
            other = r.reading_ratio(p)
            print(f"  {'read as ' + p.label:33} {_hours(p.estimate_gpu_hours):>10} {'':>10} "
                  f"{'–' if other is None else f'{other:.2f}':>6}")
    s = backtest.summary(rows)
    unscored = sum(not r.scored for r in rows)
    if s.geometric_mean is not None:
        print(f"geometric mean {s.geometric_mean:.2f} over {s.count} scored runs; range "
              f"{s.low:.2f}-{s.high:.2f} (estimate ÷ actual GPU-hours)"
              + (f"; {unscored} not scored" if unscored else ""))
    print_held_out(rows)


def print_held_out(rows: list[backtest.Row]) -> None:
    """How the runs added to test the model landed the day they were added."""
    held = heldout.held_out(rows)
    s = heldout.summary(held)
    if s.geometric_mean is None:
        return
    print(f"held out: {s.within} of {s.count} within 2× at first sight (geometric mean "
          f"{s.geometric_mean:.2f}); " + ", ".join(
              f"{h.run} {h.first:.2f} → {'–' if h.now is None else f'{h.now:.2f}'}"
              for h in held))


def cmd_backtest(args: argparse.Namespace) -> int:
    catalog = valid_catalog(args.catalog)
    if catalog is None:
        return 1
    rows = backtest_rows(catalog)
    if args.json:
        print(json.dumps(as_json(rows), indent=1, allow_nan=False))
    else:
        print_table(rows)
    return 0


def add_backtest_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("backtest", help="every published run's estimate beside what it used")
    p.add_argument("catalog", nargs="?", default="catalog", help="catalog folder")
    p.add_argument("--json", action="store_true", help="the rows and their summary as JSON")
    p.set_defaults(func=cmd_backtest)
