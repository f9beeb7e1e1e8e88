"""A published run's activation recomputation in the back-test (derived/calculator/backtest.py):
a run's ``recompute`` (``full``, the default; ``selective``; ``none``: Megatron's
recompute_granularity null, verl's Megatron default) becomes the calculator's ``ac``, so a
learner that recomputes nothing is not charged the extra forward of full recomputation. Fails on
the model before it, whose runs could not state it (the field was unknown) and were all priced
with full recomputation."""

from __future__ import annotations

import pytest
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import estimate


def _rows(catalog: Catalog) -> dict[str, backtest.Row]:
    stated = [run(f"toy-rc-{mode}", 10.0, stage(), recompute=mode)
              for mode in ("full", "selective", "none")]
    toy = with_runs(catalog, run("toy-plain", 10.0), *stated)
    return {r.run: r for r in backtest.rows(toy, estimate)}


def test_a_runs_recompute_reaches_its_estimate(catalog: Catalog) -> None:
    found = _rows(catalog)
    key = inputs.key("run.ac")
    assert key not in found["toy-plain"].stages[0]  # full is the calculator's default
    assert key not in found["toy-rc-full"].stages[0]
    assert found["toy-rc-selective"].stages[0][key] == "1"
    assert found["toy-rc-none"].stages[0][key] == "0"
    hours = {rid: r.estimate_gpu_hours for rid, r in found.items()}
    assert None not in hours.values()
    assert hours["toy-rc-full"] == hours["toy-plain"]
    # selective recomputation's FLOPs are not charged: it prices as none
    assert hours["toy-rc-none"] == hours["toy-rc-selective"]
    assert hours["toy-rc-none"] < hours["toy-plain"]  # type: ignore[operator]


def test_full_recomputation_is_one_more_forward_of_the_update(catalog: Catalog) -> None:
    # without an old-policy or reference pass the trainer's seconds are the update's alone:
    # forward and backward (3 forwards) against forward, backward and a forward again (4)
    full = toy_estimate(catalog, rlp="1", ac="2")
    none = toy_estimate(catalog, rlp="1", ac="0")
    assert full["time.train_s"] == pytest.approx(none["time.train_s"] * 4.0 / 3.0)
