"""``tinkernomics estimate``: the calculator's estimate on the command line (pipeline step 6).

The options are the calculator link's inputs (``derived/calculator/inputs.py``); the command
builds the same query a link would carry and evaluates the same graph the page and calculator.js
evaluate (``estimate.estimate``). ``--json`` prints every named quantity, shown or helper, with its
value and unit; without it, the shown quantities as the page formats them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tinkernomics.catalog.loader import load_catalog
from tinkernomics.derived.calculator.estimate import Estimate, estimate, graph_for
from tinkernomics.derived.calculator.graph import Graph
from tinkernomics.site.calculator.formatting import fmt_value

UNITS = {"gb": "bytes", "usd": "usd", "count": "count", "flops": "flop", "hours": "hours",
         "percent": "fraction", "ratio": "ratio", "number": "number"}
"""A quantity's unit in ``--json``, by its display format (``gb`` values are bytes)."""
UNIT_OVERRIDES = {"mem.kv_per_token": "bytes", "mem.lora_params": "parameters",
                  "mem.trainable": "parameters"}
OPTIONS: tuple[tuple[str, str, str], ...] = (
    # (option, link key, help)
    ("--algorithm", "a", "algorithm id (catalog/algorithms/)"),
    ("--model", "m", "model id (catalog/models/)"),
    ("--teacher", "tm", "teacher model id (distillation)"),
    ("--G", "G", "completions per prompt"),
    ("--K", "K", "optimisation passes per batch"),
    ("--prompts", "n", "prompts per step"),
    ("--prompt-tokens", "in", "prompt tokens per episode"),
    ("--completion-tokens", "out", "completion tokens per turn"),
    ("--steps", "steps", "training steps"),
    ("--lora-rank", "r", "LoRA rank"),
    ("--micro-batch", "mb", "training micro-batch (sequences)"),
    ("--recompute", "ac", "activation recomputation: 2 full, 1 selective, 0 none"),
    ("--gpu", "hw", "hardware id (catalog/hardware/)"),
    ("--price-list", "p", "Tinker price list id"),
    ("--oversample", "os", "rollouts sampled per rollout trained on"),
)


def query_of(args: argparse.Namespace) -> dict[str, str]:
    """The calculator-link query the options describe (``--set KEY=VALUE`` for any other key)."""
    query: dict[str, str] = {}
    for option, key, _ in OPTIONS:
        value = getattr(args, option.lstrip("-").replace("-", "_"))
        if value is not None:
            query[key] = str(value)
    if args.full:
        query["ft"] = "full"
    for item in args.set or ():
        key, _, value = item.partition("=")
        query[key] = value
    return query


def as_json(est: Estimate, graph: Graph) -> dict[str, Any]:
    """Every quantity with its value and unit, and the names the estimate resolved."""
    found = {q.key: {"value": est.values[q.key],
                     "unit": UNIT_OVERRIDES.get(q.key, UNITS[q.format]),
                     "label": q.label, "shown": q.shown} for q in graph.quantities}
    return {"names": dict(est.resolved.names), "roles": list(est.resolved.roles),
            "quantities": found}


def cmd_estimate(args: argparse.Namespace) -> int:
    catalog, problems = load_catalog(Path(args.catalog))
    if problems:
        for problem in problems:
            print(problem.format(), file=sys.stderr)
        return 1
    est = estimate(catalog, query_of(args))
    graph = graph_for(catalog)
    if args.json:
        print(json.dumps(as_json(est, graph), indent=1, allow_nan=False))
        return 0
    for q in graph.quantities:
        if q.shown and est.values[q.key] is not None:
            print(f"{q.key:32} {fmt_value(q.format, est.values[q.key]):>18}  {q.label}")
    if est.values.get("gpu_price") is None:  # a GPU without rental prices (they are optional)
        print(f"{'gpu_price':32} {'no price':>18}  The catalog lists no rental price for this "
              "GPU: give one with --set gp=<USD per GPU-hour> to price the self-hosted run")
    return 0


def add_estimate_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("estimate", help="price and size an RL run (the calculator's estimate)")
    p.add_argument("catalog", nargs="?", default="catalog", help="catalog folder")
    for option, key, text in OPTIONS:
        p.add_argument(option, default=None, help=f"{text} (link key {key})")
    p.add_argument("--full", action="store_true", help="full fine-tuning instead of LoRA")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="any other calculator-link key, e.g. --set T=8")
    p.add_argument("--json", action="store_true", help="every named quantity with its unit")
    p.set_defaults(func=cmd_estimate)
