"""The calculator in Chromium and ``tinkernomics estimate --json`` agree, to the byte and the
cent, on the run model's memory and the bills (issue 28). Each case is a set of command-line
options and the calculator link that says the same. The cases share one page
(test_calc_browser.calc_tab), navigated to each case's link."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_calc_browser import SharedTab, calc_tab, open_calculator  # noqa: F401

from tinkernomics.cli import main

pytestmark = pytest.mark.browser

CASES: dict[str, tuple[list[str], dict[str, str]]] = {
    "grpo-llama-gqa": (["--algorithm", "grpo", "--model", "llama-3.1-8b", "--G", "16"],
                       {"a": "grpo", "m": "llama-3.1-8b", "G": "16"}),
    "dapo-oversampling-microbatch": (
        ["--algorithm", "dapo", "--model", "qwen3-8b", "--G", "8", "--prompts", "32",
         "--completion-tokens", "8192", "--micro-batch", "4", "--recompute", "0"],
        {"a": "dapo", "m": "qwen3-8b", "G": "8", "n": "32", "out": "8192", "mb": "4", "ac": "0"}),
    "moe-full-ft": (["--algorithm", "ppo", "--model", "qwen3-30b-a3b", "--full", "--gpu",
                     "gb200", "--steps", "7"],
                    {"a": "ppo", "m": "qwen3-30b-a3b", "ft": "full", "hw": "gb200",
                     "steps": "7"}),
    "opd-teacher-dpo-offline": (["--algorithm", "opd", "--model", "qwen3-8b", "--lora-rank",
                                 "128", "--set", "rc=1"],
                                {"a": "opd", "m": "qwen3-8b", "r": "128", "rc": "1"}),
    "dpo-offline": (["--algorithm", "dpo", "--G", "2", "--full"],
                    {"a": "dpo", "G": "2", "ft": "full"}),
    # issue 42's inputs: GPU count, a cap beside the mean, async with samplers of their own
    "gpus-cap-async-samplers": (
        ["--gpus", "8", "--completion-tokens", "4000", "--max-completion-tokens", "16384",
         "--async", "--rollout-gpus", "2", "--gpu", "h200", "--full"],
        {"gpus": "8", "out": "4000", "maxout": "16384", "async": "1", "rg": "2", "hw": "h200",
         "ft": "full"}),
    # issue 42: PPO whose reward is a rule (no reward model); GRPO scored by a learned one
    "ppo-rule-reward": (["--algorithm", "ppo", "--full", "--score-reward-model", "0"],
                        {"a": "ppo", "ft": "full", "rw": "0"}),
    "grpo-learned-reward-no-reference": (
        ["--algorithm", "grpo", "--score-reward-model", "1", "--set", "ref=0"],
        {"a": "grpo", "rw": "1", "ref": "0"}),
    # a model by its architecture figures, a pilot's measured throughput, another GPU
    "arch-throughput": (
        ["--arch", "params_b=8", "--arch", "layers=32", "--arch", "heads=32",
         "--arch", "kv_heads=8", "--arch", "head_dim=128", "--arch", "d_model=4096",
         "--throughput", "1500", "--gpu", "a100-40gb", "--gpus", "4"],
        {"x_params_b": "8", "x_layers": "32", "x_heads": "32", "x_kv_heads": "8",
         "x_head_dim": "128", "x_d_model": "4096", "tps": "1500", "hw": "a100-40gb",
         "gpus": "4"}),
}


def cli_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["estimate", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["quantities"]


SWEPT = ("moe-full-ft", "opd-teacher-dpo-offline", "dpo-offline")
"""Cases whose inputs test_calc_browser's parity cases also set (a mixture of experts, a
teacher, offline DPO): `make test-sweep`'s (.ci/run runs it too), outside make test's 3 minutes."""


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.sweep) if c in SWEPT else c
                                  for c in CASES])
def test_browser_equals_estimate_json(calc_tab: SharedTab, site_server: str,  # noqa: F811
                                      capsys: pytest.CaptureFixture[str], case: str) -> None:
    args, query = CASES[case]
    cli = cli_json(args, capsys)
    page, errors = open_calculator(calc_tab, site_server, query)
    numbers = page.evaluate("window.tnCalculator.last().numbers")
    assert errors == []
    got = {k: None if v is None else float(v) for k, v in numbers.items()}
    shown = {k: v["value"] for k, v in cli.items() if v["shown"]}
    assert set(got) == set(shown)
    assert {k: (got[k], shown[k]) for k in shown if got[k] != shown[k]} == {}
    memory = [k for k in shown if k.startswith("mem.") and cli[k]["unit"] == "bytes"]
    assert "mem.kv_per_token" in memory and "mem.peak" in memory
    for key in memory:  # to the byte
        assert (got[key] is None) == (shown[key] is None), key
        if shown[key] is not None:
            assert round(got[key]) == round(shown[key]), key
    for key in ("tinker.total", "self.total"):  # to the cent
        assert (got[key] is None) == (shown[key] is None), key
        if shown[key] is not None:
            assert round(got[key], 2) == round(shown[key], 2), key
