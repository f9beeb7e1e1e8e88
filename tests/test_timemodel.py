"""The time model (derived/calculator/timing.py) on toy entries: each physical effect the old
fixed-utilisation model lacked moves the estimate the way physics says (each test fails on the
old model, which had no time.* quantities and priced decode at a weights-only roofline)."""

from __future__ import annotations

import pytest
from helpers_runs import toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import timing


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


run = toy_estimate


def test_decode_reads_the_kv_cache_of_every_live_sequence(toy: Catalog) -> None:
    short, long = run(toy, **{"in": "100"}), run(toy, **{"in": "8000"})
    # the same tokens sampled; a longer context makes each decode iteration read more KV bytes
    assert short["tokens.sample"] == long["tokens.sample"]
    assert long["time.iteration_bytes"] > short["time.iteration_bytes"]
    assert long["self.decode.gpu_hours"] > short["self.decode.gpu_hours"]


def test_decode_batch_is_what_each_samplers_memory_leaves_for_kv(toy: Catalog) -> None:
    e = run(toy, **{"in": "30000", "out": "2000"})
    kv_room = 0.9 * 80e9 - 16e9  # 90% of one GPU, less the bf16 weights
    per_sequence = 131_072 * (30_000 + 2_000)
    assert e["time.batch"] == pytest.approx(kv_room / per_sequence)
    # more GPUs: fewer sequences each, never more than memory allows
    assert run(toy, gpus="64")["time.per_replica"] == 64 * 8 / 64


def test_a_synchronous_step_waits_for_its_longest_completion(toy: Catalog) -> None:
    mean, capped = run(toy), run(toy, maxout="8000")
    assert capped["self.gpu_hours"] > mean["self.gpu_hours"]
    assert capped["time.iterations"] - mean["time.iterations"] == 8000 - 1000
    # asynchronous sampling overlaps the tail: the cap no longer adds time
    assert run(toy, maxout="8000", **{"async": "1"})["time.iterations"] == \
        run(toy, **{"async": "1"})["time.iterations"]


def test_attention_flops_grow_with_context(toy: Catalog) -> None:
    short = run(toy, **{"in": "100"})
    long = run(toy, **{"in": "20000"})
    per_token = long["time.train_s"] / long["tokens.train"]
    assert per_token > short["time.train_s"] / short["tokens.train"]


def test_training_utilisation_grows_with_model_size(toy: Catalog) -> None:
    small = run(toy, x_params_b="1", gpus="8")
    large = run(toy, x_params_b="70", gpus="8")
    assert small["time.mfu_train"] < large["time.mfu_train"] < 0.5


def test_environment_time_per_turn_is_waited_for(toy: Catalog) -> None:
    plain, tools = run(toy, T="4", d="1000"), run(toy, T="4", d="1000", env="30")
    extra = 10 * 4 * 30 * 8 / 3600  # steps × turns × seconds × GPUs
    share = {c.key: c.value for c in timing.CONSTANTS}["run_overhead"]  # evaluation, restarts
    assert tools["self.gpu_hours"] - plain["self.gpu_hours"] == pytest.approx(extra * (1 + share))
    assert tools["self.environment.gpu_hours"] == pytest.approx(extra)


def test_a_measured_throughput_replaces_the_decode_physics(toy: Catalog) -> None:
    e = run(toy, tps="500")
    assert e["time.decode_s"] == pytest.approx(64 * 8 * 1000 / (8 * 500))


def test_gpu_count_sets_wall_clock(toy: Catalog) -> None:
    few, many = run(toy, gpus="8"), run(toy, gpus="16")
    assert many["time.gpus"] == 16 and many["wall_clock_hours"] < few["wall_clock_hours"]
    assert few["self.gpu_hours"] == pytest.approx(few["wall_clock_hours"] * 8)


def test_lines_add_up_to_the_time_model(toy: Catalog) -> None:
    e = run(toy)
    lines = sum(v for k, v in e.values.items()
                if k.startswith("self.") and k.endswith(".gpu_hours") and k != "self.gpu_hours"
                and "_" not in k.split(".")[-1].replace("gpu_hours", "") and v is not None)
    assert lines == pytest.approx(e["self.gpu_hours"])


def test_a_model_given_by_its_figures_has_no_tinker_price(toy: Catalog) -> None:
    e = run(toy, x_params_b="8", x_layers="32")
    assert e["tinker.total"] is None and e["self.gpu_hours"] is not None
    assert e.resolved.names["model_name"] == "a model given by its architecture figures"


def test_an_asynchronous_step_overlaps_sampling_and_training(toy: Catalog) -> None:
    sync, overlapped = run(toy), run(toy, **{"async": "1"})
    # the trainer's refit and fixed work overlap sampling too (here long answers on one sampler
    # GPU make sampling outlast training, so the step is shorter than the longer side plus
    # the refit, whichever side is longer)
    v = run(toy, **{"async": "1", "rg": "1", "out": "8000"}).values
    assert v["time.rollout_s"] > v["time.learn_s"] and v["time.refit_s"] > 0
    assert v["time.step_s"] == pytest.approx(
        max(v["time.rollout_s"], v["time.learn_s"] + v["time.refit_s"]))
    assert v["time.step_s"] < max(v["time.rollout_s"], v["time.learn_s"]) + v["time.refit_s"]
    s = sync.values
    assert s["time.step_s"] == pytest.approx(s["time.rollout_s"] + s["time.learn_s"]
                                             + s["time.refit_s"])
    assert overlapped["self.gpu_hours"] < sync["self.gpu_hours"]


def test_a_reference_model_takes_its_forward_pass(toy: Catalog) -> None:
    without, scored = run(toy, ref="0"), run(toy, ref="1")
    assert without["time.reference_s"] == 0 and scored["time.reference_s"] > 0
    assert scored["time.learn_s"] == pytest.approx(
        without["time.learn_s"] + scored["time.reference_s"])


def test_old_policy_log_probs_are_one_forward_a_batch_not_a_pass(toy: Catalog) -> None:
    once, twice = run(toy, K="1"), run(toy, K="2")
    # K passes repeat forward and backward; the old log-probs are computed once
    assert 1.5 < twice["time.train_s"] / once["time.train_s"] < 2.0


def test_refit_moves_the_weights_and_each_step_pays_fixed_seconds(toy: Catalog) -> None:
    from tinkernomics.derived.calculator import timing

    c = {k.key: k.value for k in timing.CONSTANTS}
    e = run(toy)
    assert e["time.refit_s"] == pytest.approx(
        e["time.weights"] / (c["refit_gb_s"] * 1e9) + e["time.optimizer_s"] + e["time.wake_s"]
        + c["step_seconds"])
    assert e["time.hours"] == pytest.approx(
        10 * e["time.step_s"] * (1 + c["run_overhead"]) / 3600)
