"""CPU offload, whole-batch asynchronous samplers, the sampler's log-probs taken as the old
policy's, a stated memory share and latent (MLA) caches held per tensor-parallel GPU in the time
model (derived/calculator/timing.py) on toy entries: each test fails on the model before them,
which had no host link, no CPU optimizer step, always ran an old-policy log-prob pass, let every
asynchronous step overlap its tail, took vLLM's memory share always and split every cache over
the engine's GPUs."""

from __future__ import annotations

import pytest
from helpers_runs import run, stage, time_constant, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import Estimate


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def est(catalog: Catalog, **extra: str) -> Estimate:
    return toy_estimate(catalog, **{"maxout": "4000", **extra})


constant = time_constant


def test_an_offloaded_optimizer_crosses_the_host_link_and_steps_on_the_cpu(toy: Catalog) -> None:
    plain, cpu = est(toy), est(toy, oo="1")
    shard = cpu["time.shard"]
    assert shard == pytest.approx(cpu["time.weights"] / 2.0 / 8)
    # bf16 gradients down and weights up, 4 bytes a parameter of the GPU's shard
    assert cpu["time.offload_link_s"] == pytest.approx(
        shard * 4.0 / (constant("host_link_gb_s") * 1e9))
    assert cpu["time.cpu_optimizer_s"] == pytest.approx(
        shard * constant("cpu_adam_bytes") / (constant("host_memory_gb_s") * 1e9))
    assert plain["time.offload_s"] == 0.0
    assert cpu["time.step_s"] - plain["time.step_s"] == pytest.approx(cpu["time.offload_s"])
    assert cpu["self.gpu_hours"] > plain["self.gpu_hours"]


def test_offloaded_weights_and_gradients_only_cross_the_link(toy: Catalog) -> None:
    weights, grads = est(toy, op="1"), est(toy, og="1")
    assert weights["time.cpu_optimizer_s"] == grads["time.cpu_optimizer_s"] == 0.0
    # the reference's weights travel too when it scores (GRPO's toy keeps one)
    per_param = 4.0 * (1.0 + weights["role.reference"])
    assert weights["time.offload_s"] == pytest.approx(
        weights["time.shard"] * per_param / (constant("host_link_gb_s") * 1e9))
    assert grads["time.offload_s"] > 0.0


def test_a_whole_batch_async_step_waits_for_its_tail(toy: Catalog) -> None:
    streamed, whole = est(toy, **{"async": "1"}), est(toy, **{"async": "1", "wb": "1"})
    sync = est(toy)
    assert whole["time.iterations"] - streamed["time.iterations"] == pytest.approx(3000)
    assert whole["time.iterations"] == sync["time.iterations"]
    assert whole["time.decode_s"] > streamed["time.decode_s"]


def test_a_trainer_taking_the_samplers_log_probs_runs_no_old_policy_pass(toy: Catalog) -> None:
    own, sampler = est(toy), est(toy, rlp="1")
    assert own["role.reference"] == 1.0  # the toy's reference pass is the same forward
    assert own["time.train_s"] - sampler["time.train_s"] == pytest.approx(
        own["time.reference_s"])
    assert sampler["self.gpu_hours"] < own["self.gpu_hours"]


def test_the_backtest_reads_a_runs_offload_and_whole_batches(catalog: Catalog) -> None:
    stated = run("toy-offload", 10.0, stage(), mode="async", whole_batch_rollout=True,
                 cpu_offload=["optimizer", "grads"], rollout_log_probs=True)
    toy = with_runs(catalog, run("toy-plain", 10.0), stated)
    runs = toy.of("run")
    query = backtest.query(runs["toy-offload"], runs["toy-offload"].stages[0])
    assert query[inputs.key("run.whole_batch")] == "1"
    assert query[inputs.key("run.offload_optimizer")] == "1"
    assert query[inputs.key("run.offload_grads")] == "1"
    assert inputs.key("run.offload_params") not in query
    assert query[inputs.key("run.rollout_logprobs")] == "1"
    plain = backtest.query(runs["toy-plain"], runs["toy-plain"].stages[0])
    assert inputs.key("run.rollout_logprobs") not in plain


LONG = {"n": "1024", "G": "8", "in": "500", "out": "1000", "maxout": "1000"}
"""1,024 sequences a GPU of 1,500 tokens: the KV cache, not the sequence cap, bounds a batch
once the engine takes a smaller share of memory."""


def test_a_stated_memory_share_leaves_less_room_for_the_kv_cache(toy: Catalog) -> None:
    default, half = est(toy, **LONG), est(toy, **LONG, mu="0.5")
    assert default["time.mem_util"] == constant("memory_utilisation")
    assert half["time.kv_room"] == pytest.approx(0.5 * 80e9 - 16e9)
    assert half["time.batch"] < default["time.batch"]
    assert half["time.decode_s"] > default["time.decode_s"]


def test_every_tensor_parallel_gpu_holds_a_whole_latent_cache(catalog: Catalog) -> None:
    from helpers_calc import _fig
    from helpers_runs import _shape, add

    toy = with_runs(catalog)
    add(toy, "model", {"id": "toy-mla", "name": "Toy-MLA", "family": "Toy",
                       "architecture": "dense", "total_params": _fig(8, "billion_parameters"),
                       "d_model": _fig(4096, "count"),
                       "shape": _shape(layers=32, attention_heads=32, kv_latent_dim=576,
                                       head_dim=128, mlp_size=14336, vocab_size=128000)})
    mla = {**LONG, "m": "toy-mla", "rtp": "4", "seqs": "100000"}
    whole, split = est(toy, **mla), est(toy, **mla, atp="1")
    assert (whole["time.kv_copies"], split["time.kv_copies"]) == (4, 1)
    # four copies of each sequence's latent (1,500 tokens of it) fill the engine's memory
    assert whole["time.batch"] == pytest.approx(
        whole["time.kv_room"] / (whole["mem.kv_per_token"] * 1500 * 4))
    assert split["time.batch"] > 3 * whole["time.batch"]
    # a model with KV heads splits its cache over the engine's GPUs, whatever atp says
    assert est(toy, **LONG, rtp="4")["time.kv_copies"] == 1
