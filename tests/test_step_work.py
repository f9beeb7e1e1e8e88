"""A step's work besides its phases, from physics (issue 42): the optimizer step streams each
training GPU's shard of the Adam state through its memory, and a sampler sharing the training
GPUs reloads its weights over the host link each step; only the remainder (``step_seconds``)
is a fixed, fitted time. Fixture catalog only (helpers_runs: Toy-8B, full fine-tuning, on the
big toy GPU: 80 GB at 2 TB/s); constants are read, never restated."""

from __future__ import annotations

import pytest
from helpers_runs import time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def test_optimizer_step_streams_the_shard_of_adam_state(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="8")
    bandwidth = 2e12 * time_constant("bandwidth_efficiency")
    assert e["time.optimizer_s"] == pytest.approx(
        8e9 / e["time.train_gpus"] * time_constant("cpu_adam_bytes") / bandwidth)
    assert toy_estimate(toy, gpus="32")["time.optimizer_s"] == pytest.approx(
        e["time.optimizer_s"] / 4)


def test_a_colocated_sampler_wakes_over_the_host_link(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="8")
    assert e["time.wake_s"] == pytest.approx(
        8e9 * 2 / e["time.tp"] / (time_constant("host_link_gb_s") * 1e9))
    assert toy_estimate(toy, gpus="8", rg="4")["time.wake_s"] == 0


def test_the_fixed_remainder_is_all_that_is_flat(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="8")
    assert e["time.refit_s"] == pytest.approx(
        e["time.weights"] / (time_constant("refit_gb_s") * 1e9) + e["time.optimizer_s"]
        + e["time.wake_s"] + time_constant("step_seconds") + e["time.offload_s"])
    assert e["time.optimizer_s"] + e["time.wake_s"] > 0
