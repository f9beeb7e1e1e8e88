"""A published run's stated sampling in the back-test (derived/calculator/backtest.py): a stage's
``oversampling`` (rollouts sampled per rollout trained on; 1 when dynamic sampling is off)
replaces the algorithm's typical setting in the estimate. Fails on the model before it, whose
runs could not state it (the field was unknown) and were always priced at the algorithm's."""

from __future__ import annotations

from pathlib import Path

from helpers_calc import _fig
from helpers_runs import RUN_YAML, SRC, check_run_file, run, stage, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import estimate


def _rows(catalog: Catalog) -> dict[str, backtest.Row]:
    stated = [run(f"toy-os-{n}", 10.0, stage(oversampling=_fig(n, "multiplier")))
              for n in (1, 3)]
    toy = with_runs(catalog, run("toy-plain", 10.0), *stated)
    return {r.run: r for r in backtest.rows(toy, estimate)}


def test_a_runs_stated_oversampling_reaches_its_estimate(catalog: Catalog) -> None:
    found = _rows(catalog)
    key = inputs.key("set.oversample")
    assert found["toy-os-3"].stages[0][key] == "3.0"
    assert key not in found["toy-plain"].stages[0]
    hours = {rid: r.estimate_gpu_hours for rid, r in found.items()}
    assert None not in hours.values()
    # GRPO samples what it trains on: stating 1 is the algorithm's setting; 3 samples thrice
    assert hours["toy-os-1"] == hours["toy-plain"]
    assert hours["toy-os-3"] > hours["toy-plain"]  # type: ignore[operator]


def test_a_stated_oversampling_below_one_is_refused(tmp_path: Path) -> None:
    line = f"    oversampling: {{value: 0.5, unit: multiplier, {SRC}}}\n"
    text = RUN_YAML.format(model="qwen3-8b", cap=1000, src=SRC, extra="")
    ok = text.replace("    gpus:", f"    oversampling: {{value: 1, unit: multiplier, {SRC}}}\n"
                                    "    gpus:")
    check_run_file(tmp_path / "ok", ok, None)
    check_run_file(tmp_path / "low", text.replace("    gpus:", line + "    gpus:"),
                   "oversampling")
