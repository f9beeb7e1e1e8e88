"""Hugging Face transformers' fused experts (Qwen3-VL-MoE, issue 42): ``ae`` (a run's
``eval_all_experts``) prices the old-policy and reference log-prob passes as a forward over
every parameter at a dense model's utilisation; the update's micro-batches are a training GPU's
tokens over ``mbt`` (``micro_batch_tokens``). The fused experts' per-expert gradient passes
(the link's former ``fg``) are no longer charged: an old link that sets it prices as without.
Fixture catalog only: a toy mixture of experts (Toy-MoE) on the big toy GPU (helpers_runs)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers_calc import _fig
from helpers_runs import TOY_BIG, add, run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import backtest_rows

MOE = "toy-moe"
LAYERS, D, EXPERT_MLP, EXPERTS = 10, 1000, 500, 64


def _shape(**values: float) -> dict[str, Any]:
    return {k: {**_fig(v, "count"), "locator": "fixture"} for k, v in values.items()}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    found = with_runs(catalog,
                      run("fused", 1.0, stage(micro_batch_tokens=_fig(3000, "tokens")),
                          model=MOE, eval_all_experts=True, fused_expert_grads=True),
                      run("modules", 1.0, stage(), model=MOE))
    add(found, "model", {
        "id": MOE, "name": "Toy-MoE", "family": "Toy", "architecture": "moe",
        "total_params": _fig(10, "billion_parameters"),
        "active_params": _fig(1, "billion_parameters"), "d_model": _fig(D, "count"),
        "shape": _shape(layers=LAYERS, attention_heads=8, kv_heads=2, head_dim=128,
                        expert_mlp_size=EXPERT_MLP, experts=EXPERTS, experts_active=4,
                        vocab_size=32000)})
    return found


def _moe(toy: Catalog, **extra: str) -> dict[str, float]:
    e = toy_estimate(toy, m=MOE, hw=TOY_BIG, ref="1", el="1", **extra)
    found = {k: e[k] for k in ("time.train_s", "time.reference_s", "time.eval_forward_s",
                              "time.mfu_dense", "time.train_gpus",
                              "time.pass_micro_batches", "tokens.sequence_per_episode",
                              "self.gpu_hours", "run.K", "run.prompts", "run.G")}
    # a step's trained tokens: every sequence of the step, prompt and completion
    found["step_tokens"] = found["run.prompts"] * found["run.G"] * found[
        "tokens.sequence_per_episode"]
    return found


def test_log_prob_passes_run_every_parameter_at_the_dense_utilisation(toy: Catalog) -> None:
    routed, every = _moe(toy), _moe(toy, ae="1")
    tokens = every["step_tokens"]
    assert every["time.reference_s"] == pytest.approx(every["time.eval_forward_s"])
    # every parameter once a token (2 FLOPs each) plus attention, on the training GPUs
    flops = every["time.eval_forward_s"] * every["time.train_gpus"] * 1000e12 * every[
        "time.mfu_dense"]
    assert flops / tokens == pytest.approx(2.0 * 10e9, rel=0.05)
    # the old-policy pass moves from the expert loop's utilisation to the dense one
    assert routed["time.train_s"] - every["time.train_s"] == pytest.approx(
        routed["time.reference_s"] - every["time.eval_forward_s"])


def test_micro_batches_are_the_tokens_over_the_stated_cap(toy: Catalog) -> None:
    capped = _moe(toy, mbt="3000")
    assert capped["time.pass_micro_batches"] == pytest.approx(
        capped["step_tokens"] / (capped["time.train_gpus"] * 3000))
    # without a stated cap, one sequence a micro-batch
    one = _moe(toy)
    assert one["time.pass_micro_batches"] == pytest.approx(
        one["step_tokens"] / (one["time.train_gpus"] * one["tokens.sequence_per_episode"]))


def test_an_old_link_with_fused_gradients_prices_as_without(toy: Catalog) -> None:
    assert "fg" not in {i.key for i in inputs.INPUTS}
    assert _moe(toy, fg="1")["time.train_s"] == pytest.approx(_moe(toy)["time.train_s"])


def test_a_dense_model_has_no_fused_experts(toy: Catalog) -> None:
    dense = toy_estimate(toy, ref="1")
    both = toy_estimate(toy, ref="1", ae="1", mbt="3000")
    assert both["self.gpu_hours"] == pytest.approx(dense["self.gpu_hours"])


def test_a_run_states_them(toy: Catalog) -> None:
    runs = toy.of("run")
    fused = backtest.query(runs["fused"], runs["fused"].stages[0])
    assert fused[inputs.key("run.eval_all_experts")] == "1"
    assert fused[inputs.key("set.micro_batch_tokens")] == "3000"
    modules = backtest.query(runs["modules"], runs["modules"].stages[0])
    assert inputs.key("set.micro_batch_tokens") not in modules
    rows = {r.run: r for r in backtest_rows(toy)}
    assert all(rows[r].estimate_gpu_hours is not None for r in ("fused", "modules"))
