"""The sampler engine in the time model (derived/calculator/timing.py) on toy entries: the
engine's cap on concurrent sequences, its tensor parallelism and decoding without CUDA graphs,
and a published run that states them (each test fails on the model before them, which sized
every engine by memory alone, always with CUDA graphs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_calc import _fig
from helpers_runs import (
    RUN_YAML,
    SRC,
    check_run_file,
    run,
    stage,
    time_constant,
    toy_estimate,
    with_runs,
)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import estimate

MANY = {"n": "1024", "G": "8", "in": "100", "out": "100"}
"""1,024 sequences a GPU, each short: memory would hold all of them at once."""


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


est = toy_estimate


constant = time_constant


def test_an_engine_decodes_at_most_its_sequence_cap(toy: Catalog) -> None:
    default = est(toy, **MANY)
    # memory leaves room for over 2,000 such sequences; vLLM's default cap holds 256
    assert default["time.kv_room"] / (131_072 * 200) > 2000
    assert default["time.batch"] == constant("max_num_seqs") == 256
    capped = est(toy, **MANY, seqs="32")
    assert capped["time.batch"] == 32
    # fewer sequences an iteration: more iterations, each reading the weights again
    assert capped["time.iterations"] > default["time.iterations"]
    assert capped["self.gpu_hours"] > default["self.gpu_hours"]


def test_a_wider_engine_has_fewer_replicas_each_with_more_sequences(toy: Catalog) -> None:
    one, four = est(toy, **MANY), est(toy, **MANY, rtp="4")
    assert (one["time.tp"], one["time.replicas"]) == (1, 8)
    assert (four["time.tp"], four["time.replicas"]) == (4, 2)
    assert four["time.per_replica"] == 4 * one["time.per_replica"]
    # the same sequence cap spread over four GPUs: decode takes longer
    assert four["time.decode_s"] > one["time.decode_s"]


def test_decoding_without_cuda_graphs_adds_each_layers_launches(toy: Catalog) -> None:
    graphs, eager = est(toy, **MANY, seqs="8"), est(toy, **MANY, seqs="8", eager="1")
    assert eager["time.floor_s"] - graphs["time.floor_s"] == pytest.approx(
        32 * constant("eager_layer_s"))
    assert eager["time.iteration_s"] > graphs["time.iteration_s"]
    assert eager["self.gpu_hours"] > graphs["self.gpu_hours"]


def test_a_deeper_model_has_a_longer_decode_floor(toy: Catalog) -> None:
    # fails on the model before graph_layer_s, whose floor was one figure for every depth
    shallow, deep = est(toy, **MANY, seqs="8"), est(toy, **MANY, seqs="8", x_layers="64")
    assert deep["time.floor_s"] - shallow["time.floor_s"] == pytest.approx(
        32 * constant("graph_layer_s"))
    full = est(toy, **MANY)  # a full batch: the engine's floor is decode_floor's
    assert full["time.floor_s"] == pytest.approx(
        constant("decode_floor") + 32 * constant("graph_layer_s"))


def test_the_backtest_reads_a_runs_stated_engine(catalog: Catalog) -> None:
    engine = {"max_num_seqs": _fig(16, "count"), "rollout_tp": _fig(2, "gpus")}
    plain = run("toy-plain", 10.0)
    stated = run("toy-engine", 10.0, stage(**engine), cuda_graphs=False)
    toy = with_runs(catalog, plain, stated)
    runs = toy.of("run")
    query = backtest.query(runs["toy-engine"], runs["toy-engine"].stages[0])
    assert query[inputs.key("set.max_seqs")] == "16"
    assert query[inputs.key("set.rollout_tp")] == "2"
    assert query[inputs.key("run.eager")] == "1"
    assert inputs.key("set.max_seqs") not in backtest.query(runs["toy-plain"],
                                                            runs["toy-plain"].stages[0])
    found = {r.run: r for r in backtest.rows(toy, estimate)}
    engine_hours, plain_hours = (found[r].estimate_gpu_hours for r in ("toy-engine", "toy-plain"))
    assert engine_hours is not None and plain_hours is not None and engine_hours > plain_hours


@pytest.mark.parametrize(("tp", "says"), [
    (8, None),
    (16, "rollout_tp: one engine spans more GPUs than sample (8)"),
])
def test_validate_checks_a_runs_engine_width(tmp_path: Path, tp: int, says: str | None) -> None:
    text = RUN_YAML.format(model="qwen3-8b", cap=1000, src=SRC, extra="").replace(
        "    gpus: {", f"    rollout_tp: {{value: {tp}, unit: gpus, {SRC}}}\n    gpus: {{", 1)
    check_run_file(tmp_path, text, says)
