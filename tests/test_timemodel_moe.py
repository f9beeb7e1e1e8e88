"""The time model's mixture-of-experts training utilisation (derived/calculator/timing.py,
``moe_train_factor``) on the toy model: a model whose active parameters are fewer than its total
trains at that share of a dense model's utilisation (fails on the model before it, which
trained a mixture of experts as fast per active FLOP as a dense model of its total size); a
learner that loops over the experts (``el``, a run's ``expert_loop``: ``expert_loop_factor``)
keeps a share of that (fails on the model before it, which had no such input)."""

from __future__ import annotations

import pytest
from helpers_runs import run, stage, time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def test_a_mixture_of_experts_trains_at_a_share_of_a_dense_models_utilisation(
        toy: Catalog) -> None:
    dense = toy_estimate(toy, x_params_b="30")
    moe = toy_estimate(toy, x_params_b="30", x_active_b="3")
    factor = time_constant("moe_train_factor")
    assert 0 < factor < 1
    assert moe["time.mfu_train"] == pytest.approx(dense["time.mfu_train"] * factor)
    # the same training FLOPs would take 1/factor as long; fewer active FLOPs take less
    per_token = moe["time.train_s"] / moe["tokens.train"]
    flops = moe["train.flops_per_token"] / (dense["train.flops_per_token"])
    assert per_token == pytest.approx(
        dense["time.train_s"] / dense["tokens.train"] * flops / factor, rel=0.2)


def test_a_stated_training_utilisation_is_not_scaled(toy: Catalog) -> None:
    moe = toy_estimate(toy, x_params_b="30", x_active_b="3", mt="20")
    assert moe["time.mfu_train"] == pytest.approx(0.2)


def test_a_learner_that_loops_over_the_experts_keeps_a_share_of_the_moe_utilisation(
        toy: Catalog) -> None:
    grouped = toy_estimate(toy, x_params_b="30", x_active_b="3")
    looped = toy_estimate(toy, x_params_b="30", x_active_b="3", el="1")
    factor = time_constant("expert_loop_factor")
    assert 0 < factor < 1
    assert looped["time.mfu_train"] == pytest.approx(grouped["time.mfu_train"] * factor)
    assert looped["time.reference_s"] == pytest.approx(grouped["time.reference_s"] / factor)
    assert looped["self.gpu_hours"] > grouped["self.gpu_hours"]
    # a dense model has no experts to loop over; a stated utilisation is the reader's
    dense, dense_looped = toy_estimate(toy, x_params_b="30"), toy_estimate(
        toy, x_params_b="30", el="1")
    assert dense_looped["time.mfu_train"] == pytest.approx(dense["time.mfu_train"])
    stated = toy_estimate(toy, x_params_b="30", x_active_b="3", mt="20", el="1")
    assert stated["time.mfu_train"] == pytest.approx(0.2)


def test_the_backtest_reads_a_runs_expert_loop(catalog: Catalog) -> None:
    toy = with_runs(catalog, run("toy-grouped", 10.0),
                    run("toy-looped", 10.0, stage(), expert_loop=True))
    runs = toy.of("run")
    looped = backtest.query(runs["toy-looped"], runs["toy-looped"].stages[0])
    assert looped[inputs.key("run.expert_loop")] == "1"
    grouped = backtest.query(runs["toy-grouped"], runs["toy-grouped"].stages[0])
    assert inputs.key("run.expert_loop") not in grouped
