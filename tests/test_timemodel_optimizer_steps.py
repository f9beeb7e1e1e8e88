"""Optimizer steps a priced step (``ost``, a run's ``optimizer_steps``) in the time model
(derived/calculator/roles_time.py ``offload`` and ``step_work``) on toy entries: a step of several
mini-batches steps its optimizer after each, and a CPU optimizer (Megatron's
HybridDeviceOptimizer, DeepSpeed ZeRO-Offload) streams its Adam state through host memory and
sends gradients down and weights up each time. Each test fails on the model before it, which
timed one optimizer step a priced step whatever the run said."""

from __future__ import annotations

import pytest
from helpers_calc import _fig
from helpers_runs import run, stage, time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import Estimate

OST = inputs.key("set.optimizer_steps")


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def est(catalog: Catalog, **extra: str) -> Estimate:
    return toy_estimate(catalog, **extra)


def test_unstated_is_one_optimizer_step_as_before(toy: Catalog) -> None:
    for offload in ({}, {"oo": "1"}, {"oo": "1", "op": "1", "og": "1"}):
        plain, one = est(toy, **offload), est(toy, **offload, **{OST: "1"})
        assert plain["time.optimizer_steps"] == 1.0
        assert one["time.step_s"] == plain["time.step_s"]
        assert one["self.gpu_hours"] == plain["self.gpu_hours"]


def test_two_optimizer_steps_double_the_cpu_optimizers_step_and_crossings(toy: Catalog) -> None:
    one, two = est(toy, oo="1"), est(toy, oo="1", **{OST: "2"})
    assert two["time.cpu_optimizer_s"] == pytest.approx(2.0 * one["time.cpu_optimizer_s"])
    assert two["time.offload_link_s"] == pytest.approx(2.0 * one["time.offload_link_s"])
    assert two["time.cpu_optimizer_s"] == pytest.approx(
        2.0 * two["time.shard"] * time_constant("cpu_adam_bytes")
        / (time_constant("host_memory_gb_s") * 1e9))
    added = two["time.step_s"] - one["time.step_s"]
    assert added == pytest.approx(one["time.offload_s"] + one["time.optimizer_s"])
    assert two["self.gpu_hours"] > one["self.gpu_hours"]


def test_offloaded_weights_and_gradients_cross_once_a_phase(toy: Catalog) -> None:
    # params and grads offload between phases, not at every optimizer step: only the CPU
    # optimizer's own crossings (4 bytes a parameter a step) repeat
    full = {"oo": "1", "op": "1", "og": "1"}
    one, four = est(toy, **full), est(toy, **full, **{OST: "4"})
    per_byte = one["time.shard"] / (time_constant("host_link_gb_s") * 1e9)
    assert four["time.offload_link_s"] - one["time.offload_link_s"] == pytest.approx(
        3 * 4.0 * per_byte)
    weights = est(toy, op="1", og="1")
    assert est(toy, op="1", og="1", **{OST: "4"})["time.offload_s"] == weights["time.offload_s"]


def test_a_gpu_optimizers_extra_steps_are_a_small_change(toy: Catalog) -> None:
    one, two = est(toy), est(toy, **{OST: "2"})
    assert one["time.offload_s"] == two["time.offload_s"] == 0.0
    assert two["time.optimizer_s"] == pytest.approx(2.0 * one["time.optimizer_s"])
    added = two["time.step_s"] - one["time.step_s"]
    assert added == pytest.approx(one["time.optimizer_s"])
    assert added < 0.01 * one["time.step_s"]
    cpu_added = est(toy, oo="1", **{OST: "2"})["time.step_s"] - est(toy, oo="1")["time.step_s"]
    assert cpu_added > 10 * added


def test_the_backtest_reads_a_stages_optimizer_steps(catalog: Catalog) -> None:
    stated = run("toy-ost", 10.0, stage(optimizer_steps=_fig(8, "count")),
                 cpu_offload=["optimizer"])
    toy = with_runs(catalog, run("toy-plain", 10.0, cpu_offload=["optimizer"]), stated)
    runs = toy.of("run")
    assert backtest.query(runs["toy-ost"], runs["toy-ost"].stages[0])[OST] == "8"
    assert OST not in backtest.query(runs["toy-plain"], runs["toy-plain"].stages[0])
