"""The time model's terms of a published run's step, to set beside a source's measured splits.

    .venv/bin/python benchmarks/terms.py verl-async-qwen2.5-math-7b-h20-32-async
    .venv/bin/python benchmarks/terms.py verl-async --update 313.81

Prints, for every stage of each catalog run whose id starts with one of the arguments, the
seconds of one step the time model (``derived/calculator/timing.py``) gives each term: the
sampler's (decode, prefill, environment) and the trainer's (update with any old-policy
log-prob pass, reference, critic, teacher, reward model, the mixture of experts' host waits),
the refit and fixed work, how they make the step (synchronous: their sum; asynchronous: the
slower pool), the run overhead, and the estimate beside the run's actual GPU-hours. A source
that times its steps (verl's pages give generation, old log-probs and update seconds a step)
can be read against these lines term by term.

``--update SECONDS`` is a measured trainer time per step (what the trainer's FLOP-bound terms,
update with its old-policy pass, reference and other scorers, took): the tool prints the mean
trained sequence (prompt and completion tokens) that time allows, at the model's training
utilisation and at the GPU's full peak, in proportion to the stage's own (attention's growth
with the length is neglected, a few per cent at these lengths). A stated mean longer than the
peak's figure cannot have been trained in the measured time.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived.calculator import backtest, estimate

ROOT = Path(__file__).resolve().parents[1]

SAMPLER = ("decode_s", "prefill_s", "env_s")
TRAINER = ("train_s", "moe_sync_s", "reference_s", "critic_s", "teacher_s", "reward_model_s")
SETUP = ("gpus", "rollout_gpus", "train_gpus", "tp", "replicas", "batch", "iteration_s",
         "iterations", "tail_iterations", "mfu_train")
"""Quantities ``time.<name>`` printed: the GPUs and sampler shape, then each pool's seconds
(``train_s`` holds ``moe_sync_s``: the waits are shown apart, not added twice)."""


def _line(values: Mapping[str, float | None], names: tuple[str, ...]) -> str:
    def shown(name: str) -> str:
        value = values.get(f"time.{name}")
        return f"{name} {value:,.3f}" if value is not None else f"{name} -"
    return "  ".join(shown(n) for n in names)


def flop_seconds(values: Mapping[str, float | None]) -> float:
    """The trainer's FLOP-bound seconds a step: its terms without the host waits."""
    learn = values.get("time.learn_s") or 0.0
    return learn - (values.get("time.moe_sync_s") or 0.0)


def allowed_sequence(values: Mapping[str, float | None], measured: float) -> tuple[float, float]:
    """The mean trained sequence ``measured`` trainer seconds allow: at the model's training
    utilisation, and at the GPU's peak (that ÷ the utilisation)."""
    sequence = values.get("tokens.sequence_per_episode") or 0.0
    busy = flop_seconds(values)
    waits = values.get("time.moe_sync_s") or 0.0
    at_model = sequence * max(0.0, measured - waits) / busy if busy > 0 else 0.0
    return at_model, at_model / (values.get("time.mfu_train") or 1.0)


def report(values: Mapping[str, float | None], update: float | None) -> list[str]:
    """The lines of one stage."""
    step = values.get("time.step_s") or 0.0
    found = [
        "  " + _line(values, SETUP),
        "  sampler: " + _line(values, SAMPLER) + f"  = {values.get('time.rollout_s') or 0.0:,.1f}",
        "  trainer: " + _line(values, TRAINER) + f"  = {values.get('time.learn_s') or 0.0:,.1f}",
        "  " + _line(values, ("refit_s", "optimizer_s", "wake_s", "offload_s")),
        f"  step {step:,.1f} s (busy {values.get('time.busy_s') or 0.0:,.1f}); hours "
        f"{values.get('time.hours') or 0.0:,.2f} with the run overhead",
    ]
    if update is not None:
        at_model, at_peak = allowed_sequence(values, update)
        found.append(f"  {update:,.1f} s of training allow a mean sequence of {at_model:,.0f} "
                     f"tokens at the model's utilisation, {at_peak:,.0f} at the GPU's peak "
                     f"(stated: {values.get('tokens.sequence_per_episode') or 0.0:,.0f})")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="run ids or id prefixes")
    parser.add_argument("--update", type=float, help="measured trainer seconds a step")
    args = parser.parse_args()
    catalog = load_valid_catalog(ROOT / "catalog")
    runs = catalog.of("run")
    for rid in sorted(r for r in runs if any(r.startswith(p) for p in args.runs)):
        run = runs[rid]
        row = backtest.row(catalog, run, estimate.estimate)
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}"
        print(f"{rid}: estimate {row.estimate_gpu_hours or 0.0:,.0f} GPU-hours, actual "
              f"{row.actual_gpu_hours:,.0f} ({ratio})")
        for stage in run.stages:
            values = estimate.estimate(catalog, backtest.query(run, stage)).values
            print("\n".join(report(values, args.update)))


if __name__ == "__main__":
    main()
