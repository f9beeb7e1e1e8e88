"""Training utilisation as a GPU realises it (derived/calculator/roles_time.py ``on_gpu``, issue
42): a training step is a compute term at the GPU's peak and a memory-traffic term at its
bandwidth, so of two GPUs with the same peak the one with more bandwidth trains faster, by the
stated rule; the reader's ``mt`` is taken as realised, and a GPU without a bandwidth figure
trains at the ceiling's utilisation. Toy entries only (helpers_runs: Toy-8B on the big toy GPU,
1,000 TFLOP/s and 2 TB/s, plus two toy GPUs made here); each test fails on the model before,
whose utilisation did not depend on the GPU."""

from __future__ import annotations

import helpers_figures
import pytest
from helpers_calc import _fig
from helpers_runs import ENTRIES, TOY_BIG, add, time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator.estimate import Estimate

WIDE = "toy-wide-gpu"
BLIND = "toy-blind-gpu"
SLOW, SLOW_WIDE = "toy-slow-gpu", "toy-slow-wide-gpu"
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
    # a hundredth of the peak: a full decode batch is compute-bound
    for hw, tb_s in ((SLOW, 2), (SLOW_WIDE, 8)):
        add(found, "hardware", {**big, "id": hw, "name": hw, "bf16_dense_tflops": _fig(
            10, "tflops"), "bandwidth_tb_s": _fig(tb_s, "tb_per_second")})
    return found


def est(catalog: Catalog, hw: str, **extra: str) -> Estimate:
    return toy_estimate(catalog, hw=hw, **extra)


def ceiling() -> float:
    """``train_mfu``'s utilisation of Toy-8B: the ceiling scaled for its size."""
    return time_constant("train_mfu_max") * N / (N + time_constant("train_half_params"))


def share(tflops: float, bandwidth_tb_s: float) -> float:
    """1 + bytes per FLOP × the GPU's FLOPs per byte."""
    return 1.0 + time_constant("train_bytes_per_flop") * tflops / bandwidth_tb_s


def realised(tflops: float, bandwidth_tb_s: float) -> float:
    """The rule: the ceiling over 1 + bytes per FLOP × the GPU's FLOPs per byte."""
    return ceiling() / share(tflops, bandwidth_tb_s)


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



def test_a_compute_bound_decode_iteration_follows_the_same_rule(toy: Catalog) -> None:
    narrow, wide = est(toy, SLOW), est(toy, SLOW_WIDE)
    for e, tb_s in ((narrow, 2), (wide, 8)):
        compute = 2.0 * N * e["time.batch"] / (e["time.tp"] * 10e12 * time_constant(
            "decode_mfu")) * share(10, tb_s)
        assert e["time.iteration_s"] == pytest.approx(compute)
    assert narrow["time.batch"] == wide["time.batch"]
    assert wide["time.iteration_s"] < narrow["time.iteration_s"]



def test_the_constants_are_listed_when_an_estimate_uses_them(toy: Catalog) -> None:
    def keys(hw: str, **extra: str) -> set[str]:
        return {f.key for f in helpers_figures.input_figures(toy, est(toy, hw, **extra))}

    term = "assumption:time:train_bytes_per_flop"
    assert term in keys(TOY_BIG)
    assert f"hardware:{TOY_BIG}:bandwidth" in keys(TOY_BIG, md="5")  # training reads it
    # the reader's training and decode utilisations replace both uses; no bandwidth, no term
    assert term not in keys(TOY_BIG, mt="30", md="5")
    assert term not in keys(BLIND)
