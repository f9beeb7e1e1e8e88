"""The time model's mixture-of-experts training utilisation (derived/calculator/timing.py,
``moe_train_factor``) on the toy model: a model whose active parameters are fewer than its total
trains at that share of a dense model's utilisation (fails on the model before it, which
trained a mixture of experts as fast per active FLOP as a dense model of its total size)."""

from __future__ import annotations

import pytest
from helpers_runs import time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog


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
