"""How the learner splits one copy of the model (``derived/calculator/learner_split.py``): a
pipelined learner waits its 1F1B bubble, (p - 1)/m of its passes, with m the micro-batches one
copy runs a pass (fails on the model before it, which priced a pipeline's passes by their FLOPs
alone); a mixture of experts' host waits count the micro-batches every GPU of a copy runs and
the layers its stage holds; a run's and a reader's split reach the estimate; a split wider than
the GPUs that train is refused by ``validate`` and ``tinkernomics estimate``. Arithmetic on the
fixture Toy-8B on the big toy GPU (helpers_runs): 64 prompts x 8 on 8 GPUs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import estimate_reads_the_session_catalog
from helpers_contrib import run_cli_in_process
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

CATALOG = str(Path(__file__).resolve().parent.parent / "catalog")


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def test_a_pipeline_waits_its_bubble_in_every_pass(toy: Catalog) -> None:
    plain = toy_estimate(toy)
    piped = toy_estimate(toy, pp="4")
    sequences = plain["run.prompts"] * plain["run.G"]
    m = sequences / (piped["time.train_gpus"] / 4)  # one sequence a micro-batch, 2 copies
    assert piped["time.pass_micro_batches"] == pytest.approx(m)
    assert piped["time.bubble"] == pytest.approx(1 + 3 / m)
    assert plain["time.bubble"] == 1
    # the policy's passes (update, old-policy log-probs, reference) last the bubble longer
    assert piped["time.train_s"] == pytest.approx(plain["time.train_s"] * (1 + 3 / m))
    assert piped["time.reference_s"] == pytest.approx(plain["time.reference_s"] * (1 + 3 / m))
    assert piped["self.gpu_hours"] > plain["self.gpu_hours"]


def test_fewer_micro_batches_make_a_larger_bubble(toy: Catalog) -> None:
    seq = toy_estimate(toy)["tokens.sequence_per_episode"]
    small = toy_estimate(toy, pp="8", n="8")
    packed = toy_estimate(toy, pp="8", n="8", mbt=str(round(4 * seq)))
    m = 8 * 8 / 1  # 64 sequences on one copy of 8 stages, one a micro-batch
    assert small["time.bubble"] == pytest.approx(1 + 7 / m)
    assert packed["time.pass_micro_batches"] == pytest.approx(m * seq / round(4 * seq))
    assert packed["time.bubble"] == pytest.approx(1 + 7 / packed["time.pass_micro_batches"])
    assert packed["time.bubble"] > small["time.bubble"]
    # a pass with fewer micro-batches than stages still fills and drains once
    lone = toy_estimate(toy, pp="8", n="1", G="1")
    assert lone["time.bubble"] == pytest.approx(8)


def test_a_stated_training_utilisation_holds_its_bubble(toy: Catalog) -> None:
    assert toy_estimate(toy, pp="4", mt="20")["time.bubble"] == 1


def test_tensor_and_context_parallel_make_fewer_copies_with_more_micro_batches(
        toy: Catalog) -> None:
    piped = toy_estimate(toy, pp="2", ttp="2", cp="2")
    assert piped["time.model_split"] == 8
    assert piped["time.train_replicas"] == 1
    sequences = piped["run.prompts"] * piped["run.G"]
    assert piped["time.pass_micro_batches"] == pytest.approx(sequences)
    assert piped["time.bubble"] == pytest.approx(1 + 1 / sequences)


def test_moe_waits_count_a_copys_micro_batches_and_a_stages_layers(toy: Catalog) -> None:
    moe = {"x_params_b": "30", "x_active_b": "3"}
    plain = toy_estimate(toy, **moe)
    split = toy_estimate(toy, ttp="2", **moe)
    staged = toy_estimate(toy, pp="4", **moe)
    assert plain["time.moe_sync_s"] > 0 and time_constant("moe_sync_s") > 0
    # each GPU of a tensor-parallel pair runs every micro-batch of its copy: twice the waits
    assert split["time.moe_sync_s"] == pytest.approx(2 * plain["time.moe_sync_s"])
    # four stages: each GPU holds a quarter of the layers and runs four times the micro-batches
    assert staged["time.moe_sync_s"] == pytest.approx(plain["time.moe_sync_s"])


def test_the_default_gpu_count_holds_one_copy(toy: Catalog) -> None:
    base = {"m": "toy-8b", "hw": "toy-big-gpu", "a": "grpo"}
    fewest = estimate(toy, base)["time.gpus"]
    assert fewest < 16
    assert estimate(toy, {**base, "pp": "16"})["time.gpus"] == 16
    assert estimate(toy, {**base, "pp": "4", "ttp": "2", "cp": "2"})["time.gpus"] == 16


def test_a_runs_split_reaches_the_estimate(catalog: Catalog) -> None:
    figure = {"unit": "gpus", "status": "reported", "source": "fixture", "locator": "fixture"}
    toy = with_runs(catalog, run("toy-flat", 10.0),
                    run("toy-piped", 10.0, stage(pipeline_parallel={"value": 4, **figure},
                                                 train_tensor_parallel={"value": 2, **figure})))
    runs = toy.of("run")
    found = {rid: backtest.query(runs[rid], runs[rid].stages[0]) for rid in runs}
    assert found["toy-piped"][inputs.key("set.pipeline_parallel")] == "4"
    assert found["toy-piped"][inputs.key("set.train_tp")] == "2"
    assert inputs.key("set.pipeline_parallel") not in found["toy-flat"]
    rows = {r.run: r for r in backtest.rows(toy, estimate)}
    flat, piped = (rows[r].estimate_gpu_hours for r in ("toy-flat", "toy-piped"))
    assert flat is not None and piped is not None and piped > flat


@pytest.mark.parametrize(("pp", "tp", "says"), [
    (4, 2, None),
    (4, 4, "one training copy of the model spans 16 GPUs (pipeline_parallel 4 × "
           "train_tensor_parallel 4), more than the 8 that train"),
])
def test_validate_checks_a_runs_split(tmp_path: Path, pp: int, tp: int,
                                      says: str | None) -> None:
    lines = (f"    pipeline_parallel: {{value: {pp}, unit: gpus, {SRC}}}\n"
             f"    train_tensor_parallel: {{value: {tp}, unit: gpus, {SRC}}}\n")
    text = RUN_YAML.format(model="qwen3-8b", cap=1000, src=SRC, extra="").replace(
        "    gpus: {", lines + "    gpus: {", 1)
    check_run_file(tmp_path, text, says)


def _estimate(*args: str) -> tuple[int, str]:
    done = run_cli_in_process("estimate", *args, cwd=Path(CATALOG).parent)
    return done.returncode, done.stderr


def test_the_command_line_refuses_a_split_wider_than_the_training_gpus(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    estimate_reads_the_session_catalog(monkeypatch, catalog)  # test_validate_checks... loads it
    status, err = _estimate(CATALOG, "--gpus", "16", "--rollout-gpus", "8",
                            "--pipeline-parallel", "4", "--context-parallel", "4")
    assert status == 2 and err.count("\n") == 1, err
    assert err.strip().endswith("--pipeline-parallel 4 × --context-parallel 4: one training "
                                "copy of the model spans 16 GPUs, more than the 8 that train")
    status, err = _estimate(CATALOG, "--gpus", "16", "--pipeline-parallel", "4",
                            "--context-parallel", "4")
    assert status == 0, err
