"""A published run's PPO epochs (issue 42): a stage's ``epochs`` (verl's ``ppo_epochs``,
OpenRLHF's ``max_epochs``, open-instruct's ``num_epochs``) reaches the estimate as K, the passes
the update makes over each step's rollouts, where the back-test had taken one pass for every run
(fails on the model before it: ``backtest.query`` wrote K = 1 whatever the run said).
Arithmetic on fixture runs of Toy-8B (helpers_runs), never on today's catalog."""

from __future__ import annotations

import pytest
from helpers_calc import _fig
from helpers_runs import run, stage, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import estimate


@pytest.fixture(scope="module")
def priced(catalog: Catalog) -> dict[str, dict[str, float | None]]:
    toy = with_runs(catalog, run("toy-one", 10.0),
                    run("toy-four", 10.0, stage(epochs=_fig(4, "count"))))
    runs = toy.of("run")
    return {rid: estimate(toy, backtest.query(runs[rid], runs[rid].stages[0]))
            for rid in runs}


def test_a_runs_epochs_are_the_passes_of_its_update(catalog: Catalog) -> None:
    toy = with_runs(catalog, run("toy-four", 10.0, stage(epochs=_fig(4, "count"))),
                    run("toy-unsaid", 10.0))
    runs = toy.of("run")
    found = {rid: backtest.query(runs[rid], runs[rid].stages[0]) for rid in runs}
    assert found["toy-four"][inputs.key("run.K")] == "4"
    assert found["toy-unsaid"][inputs.key("run.K")] == "1"


def test_the_update_runs_once_an_epoch_and_the_reference_once(
        priced: dict[str, dict[str, float | None]]) -> None:
    one, four = priced["toy-one"], priced["toy-four"]
    assert four["tokens.train"] == pytest.approx(4 * one["tokens.train"])
    # the update's passes grow fourfold; the old-policy forward in the same line does not, so
    # the training seconds grow by less than 4 and by more than 1
    assert one["time.train_s"] < four["time.train_s"] < 4 * one["time.train_s"]
    assert four["time.reference_s"] == pytest.approx(one["time.reference_s"])
    assert four["time.decode_s"] == pytest.approx(one["time.decode_s"])
    assert four["self.gpu_hours"] > one["self.gpu_hours"]
