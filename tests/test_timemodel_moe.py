"""The time model's mixture-of-experts training utilisation (derived/calculator/timing.py,
``moe_train_factor``) on the toy model: a model whose active parameters are fewer than its total
trains at that share of a dense model's utilisation (fails on the model before it, which
trained a mixture of experts as fast per active FLOP as a dense model of its total size); a
learner that loops over the experts (``el``, a run's ``expert_loop``: ``expert_loop_factor``)
keeps a share of that (fails on the model before it, which had no such input); every MoE layer
of every forward pass waits for the host (``moe_sync_s``; fails on the model before it, which
priced a mixture of experts' training by its FLOPs alone)."""

from __future__ import annotations

import pytest
from helpers_runs import run, stage, time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import estimate


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
    # the same training FLOPs would take 1/factor as long; fewer active FLOPs take less (the
    # MoE layers' host synchronisations, moe_sync_s, are waits, not FLOPs)
    per_token = (moe["time.train_s"] - moe["time.moe_sync_s"]) / moe["tokens.train"]
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


def _forwards(e: dict[str, float]) -> float:
    """The forward passes a step makes over each sequence: the update's (twice with full
    recomputation), the old-policy log-probs' (none when the trainer takes the sampler's) and
    the reference's."""
    return (e["run.K"] * (2.0 if e["run.ac"] == 2 else 1.0) + 1.0 - e["run.rollout_logprobs"]
            + (1.0 if e["role.reference"] else 0.0))


def test_every_moe_layer_of_every_forward_pass_waits_for_the_host(toy: Catalog) -> None:
    moe = toy_estimate(toy, x_params_b="30", x_active_b="3")
    sync = time_constant("moe_sync_s")
    assert sync > 0
    per_gpu = moe["run.prompts"] * moe["run.G"] / moe["time.train_gpus"]
    assert moe["time.moe_sync_s"] == pytest.approx(
        per_gpu * _forwards(moe) * moe["model.layers"] * sync)
    assert moe["time.moe_sync_s"] > 0
    # the waits add to the training line; they fall with the GPUs that share the sequences
    more = toy_estimate(toy, x_params_b="30", x_active_b="3", gpus="16")
    assert more["time.moe_sync_s"] == pytest.approx(
        moe["time.moe_sync_s"] * moe["time.train_gpus"] / more["time.train_gpus"])


def test_a_dense_model_and_a_looping_learner_pay_no_moe_synchronisation(toy: Catalog) -> None:
    assert toy_estimate(toy, x_params_b="30")["time.moe_sync_s"] == 0
    # the expert loop's measured factor already holds its own per-layer waits
    looped = toy_estimate(toy, x_params_b="30", x_active_b="3", el="1")
    assert looped["time.moe_sync_s"] == 0


def test_a_stated_training_utilisation_holds_the_moe_synchronisation(toy: Catalog) -> None:
    moe = toy_estimate(toy, x_params_b="30", x_active_b="3")
    assert moe["time.train_s"] > moe["time.moe_sync_s"] > 0
    # a measured utilisation (a pilot run's) already holds the waits: none are added
    stated = toy_estimate(toy, x_params_b="30", x_active_b="3", mt="20")
    assert stated["time.moe_sync_s"] == 0


def _passes(e: dict[str, float], budget: float) -> float:
    """A training GPU's micro-batches in one pass over the step: its tokens over the budget,
    at least one whole sequence a micro-batch."""
    seq = e["tokens.sequence_per_episode"]
    return e["run.prompts"] * e["run.G"] * seq / (e["time.train_gpus"] * max(budget, seq))


def test_a_token_budget_packs_sequences_into_fewer_waits(toy: Catalog) -> None:
    one = toy_estimate(toy, x_params_b="30", x_active_b="3")
    seq = one["tokens.sequence_per_episode"]
    packed = toy_estimate(toy, x_params_b="30", x_active_b="3", mbt=str(round(4 * seq)))
    sync = time_constant("moe_sync_s")
    assert packed["time.pass_micro_batches"] == pytest.approx(_passes(packed, round(4 * seq)))
    assert packed["time.moe_sync_s"] == pytest.approx(
        packed["time.pass_micro_batches"] * _forwards(packed) * packed["model.layers"] * sync)
    # four sequences a micro-batch: a quarter of the forwards, so a quarter of the waits
    assert packed["time.moe_sync_s"] == pytest.approx(
        one["time.moe_sync_s"] * seq / round(4 * seq))
    # a budget below a sequence still holds that sequence: one a micro-batch, as without one
    short = toy_estimate(toy, x_params_b="30", x_active_b="3", mbt=str(round(seq / 2)))
    assert short["time.moe_sync_s"] == pytest.approx(one["time.moe_sync_s"])


def test_a_token_budget_adds_no_wait_where_there_is_none(toy: Catalog) -> None:
    budget = {"mbt": "100000"}
    assert toy_estimate(toy, x_params_b="30", **budget)["time.moe_sync_s"] == 0
    assert toy_estimate(toy, x_params_b="30", x_active_b="3", el="1",
                        **budget)["time.moe_sync_s"] == 0
    assert toy_estimate(toy, x_params_b="30", x_active_b="3", mt="20",
                        **budget)["time.moe_sync_s"] == 0


def test_a_runs_token_budget_reaches_the_shared_count(catalog: Catalog) -> None:
    budget = {"value": 100000, "unit": "tokens", "status": "reported", "source": "fixture",
              "locator": "fixture"}
    toy = with_runs(catalog, run("toy-one", 10.0),
                    run("toy-packed", 10.0, stage(micro_batch_tokens=budget)))
    runs = toy.of("run")
    found = {rid: backtest.query(runs[rid], runs[rid].stages[0])
             for rid in ("toy-one", "toy-packed")}
    assert found["toy-packed"][inputs.key("set.micro_batch_tokens")] == "100000"
    assert inputs.key("set.micro_batch_tokens") not in found["toy-one"]
    one, packed = (estimate(toy, found[rid]) for rid in ("toy-one", "toy-packed"))
    assert packed["time.pass_micro_batches"] == pytest.approx(_passes(packed, 100000))
    assert one["time.pass_micro_batches"] == pytest.approx(one["run.prompts"] * one["run.G"] /
                                                           one["time.train_gpus"])
