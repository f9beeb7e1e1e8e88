"""`tinkernomics estimate` input checks and the memory defects issue 42 lists, on the fixture
catalog (bad input) and toy entries (memory): each fails on the old code."""

from __future__ import annotations

import json

import pytest
from helpers_catalog import estimate_reads_the_session_catalog
from helpers_runs import TOY_8B, TOY_BIG, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.cli import main
from tinkernomics.derived.calculator.estimate import estimate


@pytest.mark.parametrize(("args", "says"), [
    (["--gpus", "0"], "--gpus 0"),
    (["--completion-tokens", "500", "--max-completion-tokens", "100"], "below the mean"),
    (["--gpu", "no-such-gpu"], "--gpu 'no-such-gpu': unknown id"),
    (["--algorithm", "no-such"], "--algorithm 'no-such': unknown id"),
    (["--model", "no-such"], "--model 'no-such': unknown id"),
    (["--set", "zz=1"], "--set zz: unknown setting"),
    (["--G", "-5"], "--G '-5': not a whole number"),
    (["--arch", "params_b=-1"], "--arch params_b '-1': not a number"),
    (["--rollout-gpus", "8", "--gpus", "4"], "--rollout-gpus 8: must leave GPUs"),
    (["--turns", "0"], "--turns 0: must be between"),
    (["--arch", "zz=1"], "--arch zz: unknown setting"),
    (["--arch", "layers=0"], "--arch layers 0: must be between"),
    (["--rollout-gpus", "4", "--gpus", "4"], "--rollout-gpus 4: must leave GPUs to train on "
                                             "(--gpus 4)"),
    (["--max-num-seqs", "0"], "--max-num-seqs 0: must be between"),
    (["--rollout-tp", "16", "--gpus", "8"], "--rollout-tp 16: more GPUs than sample (8)"),
    (["--rollout-tp", "8", "--rollout-gpus", "4", "--gpus", "16"],
     "--rollout-tp 8: more GPUs than sample (4)"),
    (["--eager", "2"], "--eager 2: must be between"),
    (["--whole-batch", "2"], "--whole-batch 2: must be between"),
    (["--rollout-logprobs", "2"], "--rollout-logprobs 2: must be between"),
    (["--memory-utilization", "1.5"], "--memory-utilization 1.5: must be between"),
    (["--attention-tp", "0"], "--attention-tp 0: must be between"),
    (["--sync-updates", "0"], "--sync-updates 0: must be between"),
    (["--staleness", "-1"], "--staleness '-1': not a number"),
    (["--offload-optimizer", "-1"], "--offload-optimizer '-1': not a whole number"),
    (["--offload-params", "3"], "--offload-params 3: must be between"),
    (["--offload-grads", "2"], "--offload-grads 2: must be between"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch,
                                          catalog: Catalog) -> None:
    # the repository's catalog (the fixture catalog has no formulas to estimate with), loaded
    # once (the tests below load it as the command does); no figure of it is asserted
    estimate_reads_the_session_catalog(monkeypatch, catalog)
    assert main(["estimate", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_json_keeps_the_named_quantities(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--json", "--gpus", "4", "--max-completion-tokens", "4096"]) == 0
    out = json.loads(capsys.readouterr().out)
    q = out["quantities"]
    for key in ("self.gpu_hours", "tinker.total", "mem.peak", "time.gpus"):
        assert key in q, key
    assert q["time.gpus"]["value"] == 4 and q["time.cap"]["value"] == 4096
    assert out["lacks"] == []


def test_an_algorithm_without_typical_g_says_it_lacks_g(
        capsys: pytest.CaptureFixture[str], catalog: Catalog) -> None:
    from tinkernomics.derived.calculator import semantics

    no_g = next((a for a, algo in sorted(catalog.algorithms.items())
                 if algo.typical_g is None and semantics.rollouts(algo)), None)
    if no_g is None:
        pytest.skip("every algorithm has a typical G")
    assert main(["estimate", "--algorithm", no_g]) == 0
    assert "lacks G (--G)" in capsys.readouterr().out


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def run(catalog: Catalog, **extra: str) -> dict[str, float | None]:
    query = {"m": TOY_8B, "hw": TOY_BIG, "a": "grpo", "ft": "full", "steps": "1", "n": "1",
             "G": "1", "in": "10000", "out": "10000", "gpus": "1"}
    return estimate(catalog, {**query, **extra}).values


def test_no_recomputation_stores_no_attention_scores(toy: Catalog) -> None:
    """Flash attention: activations grow linearly with the sequence (old: 5·a·s²·b term)."""
    short, long = run(toy, ac="0", **{"in": "5000", "out": "5000"}), run(toy, ac="0")
    assert long["mem.activations"] == pytest.approx(2 * short["mem.activations"])
    assert long["mem.activations"] == run(toy, ac="1")["mem.activations"]


def test_logits_are_held_one_chunk_at_a_time(toy: Catalog) -> None:
    e = run(toy)
    assert e["mem.logits"] == 128_000 * 1 * 4096 * 4  # not 20,000 tokens' worth


def test_the_old_vram_formula_is_not_a_figure_of_the_run(toy: Catalog) -> None:
    e = estimate(toy, {"m": TOY_8B, "hw": TOY_BIG, "gpus": "1"})
    assert not any(k.startswith("vram.") for k in e.numbers)
    assert e.values["vram.total"] is not None  # kept, for the Formulas page


def test_each_gpu_holds_its_own_kv_pool(toy: Catalog) -> None:
    """The KV cache counts a decode batch on every GPU the reader gives (old: one batch of
    const.decode_sequences for the whole job)."""
    many = {"n": "64", "G": "16", "in": "500", "out": "500"}
    one, four = run(toy, **many), run(toy, **many, gpus="4")
    per_gpu = one["const.decode_sequences"]
    assert one["mem.decode_sequences"] == per_gpu
    assert four["mem.decode_sequences"] == 4 * per_gpu
    assert four["mem.kv_cache"] == pytest.approx(4 * one["mem.kv_cache"])
