"""Training utilisation as a GPU realises it (derived/calculator/roles_time.py ``on_gpu``, issue
42): a training step is a compute term at the GPU's peak and a memory-traffic term at its
bandwidth, so of two GPUs with the same peak the one with more bandwidth trains faster, by the
stated rule; the reader's ``mt`` is taken as realised, and a GPU without a bandwidth figure
trains at the ceiling's utilisation. Toy entries only (helpers_runs: Toy-8B on the big toy GPU,
1,000 TFLOP/s and 2 TB/s, plus two toy GPUs made here); each test fails on the model before,
whose utilisation did not depend on the GPU."""

from __future__ import annotations

import pytest
from helpers_calc import _fig
from helpers_runs import ENTRIES, TOY_BIG, add, time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator.estimate import Estimate

WIDE = "toy-wide-gpu"
BLIND = "toy-blind-gpu"
N = 8e9  # Toy-8B's parameters


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    found = with_runs(catalog)
    big = ENTRIES["hardware"]
    # the same peak and memory as the big toy GPU: four times its bandwidth, or none stated
    add(found, "hardware", {**big, "id": WIDE, "name": "Toy wide GPU",
                            "bandwidth_tb_s": _fig(8, "tb_per_second")})
    add(found, "hardware", {k: v for k, v in {**big, "id": BLIND,
                                              "name": "Toy blind GPU"}.items()
                            if k != "bandwidth_tb_s"})
    return found


def est(catalog: Catalog, hw: str, **extra: str) -> Estimate:
    return toy_estimate(catalog, hw=hw, **extra)


def ceiling() -> float:
    """``train_mfu``'s utilisation of Toy-8B: the ceiling scaled for its size."""
    return time_constant("train_mfu_max") * N / (N + time_constant("train_half_params"))


def realised(tflops: float, bandwidth_tb_s: float) -> float:
    """The rule: the ceiling over 1 + bytes per FLOP × the GPU's FLOPs per byte."""
    ridge = tflops * 1e12 / (bandwidth_tb_s * 1e12)
    return ceiling() / (1.0 + time_constant("train_bytes_per_flop") * ridge)


def test_more_bandwidth_for_the_same_peak_trains_faster(toy: Catalog) -> None:
    narrow, wide = est(toy, TOY_BIG), est(toy, WIDE)
    assert narrow["time.mfu_train"] == pytest.approx(realised(1000, 2))
    assert wide["time.mfu_train"] == pytest.approx(realised(1000, 8))
    assert wide["time.mfu_train"] > narrow["time.mfu_train"]
    # the same FLOPs at the same peak: the training seconds scale by the utilisations' ratio
    assert wide["time.train_s"] == pytest.approx(
        narrow["time.train_s"] * narrow["time.mfu_train"] / wide["time.mfu_train"])


def test_the_readers_utilisation_is_taken_as_realised(toy: Catalog) -> None:
    for hw in (TOY_BIG, WIDE):
        assert est(toy, hw, mt="30")["time.mfu_train"] == pytest.approx(0.3)


def test_a_gpu_without_a_bandwidth_figure_trains_at_the_ceiling(toy: Catalog) -> None:
    blind = est(toy, BLIND)
    assert blind["time.mfu_train"] == pytest.approx(ceiling())
    assert blind["time.train_s"] is not None

