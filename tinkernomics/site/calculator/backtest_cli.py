"""``tinkernomics backtest [--json]``: every published run's estimate beside what it used
(pipeline step 6).

The rows are ``derived/calculator/backtest.rows``: each ``catalog/runs/`` entry's stages priced
by the calculator's graph, summed, set beside the run's GPU-hours. The text table prints run,
GPU, estimate, actual, ratio and the settings the entry assumed; ``--json`` the same rows and
the summary (geometric mean, lowest and highest ratio) as data.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from tinkernomics.derived.calculator import backtest
from tinkernomics.derived.calculator.estimate import backtest_rows
from tinkernomics.site.calculator.estimate_cli import valid_catalog


def as_json(rows: list[backtest.Row]) -> dict[str, Any]:
    """The rows (with their ratio) and the summary, as plain data."""
    return {"runs": [{**asdict(r), "ratio": r.ratio} for r in rows],
            "summary": asdict(backtest.summary(rows))}


def _hours(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def print_table(rows: list[backtest.Row]) -> None:
    print(f"{'run':24} {'GPU':10} {'estimate':>10} {'actual':>10} {'ratio':>6}  assumed")
    for r in rows:
        ratio = "–" if r.ratio is None else f"{r.ratio:.2f}"
        print(f"{r.run:24} {r.hardware:10} {_hours(r.estimate_gpu_hours):>10} "
              f"{_hours(r.actual_gpu_hours):>10} {ratio:>6}  {len(r.assumed)} settings")
    s = backtest.summary(rows)
    if s.geometric_mean is not None:
        print(f"geometric mean {s.geometric_mean:.2f} over {s.count} runs; range "
              f"{s.low:.2f}-{s.high:.2f} (estimate ÷ actual GPU-hours)")


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
