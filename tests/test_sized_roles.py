"""A critic and a reward model at their own sizes (issue 42): the link's ``cm`` and ``rm`` (a
run's ``critic_model`` and ``reward_model``, the CLI's ``--critic-model`` and
``--reward-model``) price their passes and their memory at the named model's size; absent, the
policy's size, and the estimate says it assumed so. Fixture catalog: Toy-8B and a toy 1B model
of the same shape family, a PPO-like fixture algorithm (critic and learned reward model).
A reward from a rule or verifier (the link's ``rw``, a run's ``reward_model_scored``, the CLI's
``--score-reward-model``) keeps no reward model; ``rw=1`` adds one to any method."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers_calc import _fig
from helpers_catalog import estimate_reads_the_session_catalog
from helpers_runs import RUN_YAML, SRC, add, check_run_file, run, toy_estimate, with_runs

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.models.algorithms import Semantics
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.cli import main
from tinkernomics.derived.calculator import backtest
from tinkernomics.derived.calculator.estimate import HELD_BY_FLAG, backtest_rows, held_by_flags

TOY_1B = "toy-1b"
FX_PPO = "fx-ppo"


def _shape(**values: float) -> dict[str, Any]:
    return {k: {**_fig(v, "count"), "locator": "fixture"} for k, v in values.items()}


def _ppo(catalog: Catalog) -> m.Algorithm:
    flag = {"status": "reported", "source": "transformer_math"}
    semantics = Semantics.model_validate_json(json.dumps({
        "kl_reference": {"value": True, **flag}, "reward": {"value": "reward_model", **flag},
        "rollouts": {"value": True, **flag}}))
    roles = [m.ModelRole(r) for r in ("policy", "reference", "critic", "reward_model")]
    return catalog.algorithms["grpo"].model_copy(update={
        "id": FX_PPO, "name": FX_PPO, "semantics": semantics, "models_in_memory": roles})


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    found = with_runs(catalog, run("named", 1.0, algorithm=FX_PPO, critic_model=TOY_1B,
                                   reward_model=TOY_1B),
                      run("unnamed", 1.0, algorithm=FX_PPO))
    add(found, "model", {
        "id": TOY_1B, "name": "Toy-1B", "family": "Toy", "architecture": "dense",
        "total_params": _fig(1, "billion_parameters"), "d_model": _fig(2048, "count"),
        "shape": _shape(layers=16, attention_heads=16, kv_heads=8, head_dim=128,
                        mlp_size=8192, vocab_size=128000)})
    found.entries["algorithm"] = {**found.entries["algorithm"], FX_PPO: Entry(
        KINDS_BY_NAME["algorithm"], FX_PPO, _ppo(catalog), YamlDoc(path=f"toy/{FX_PPO}"))}
    return found


def test_named_critic_and_reward_model_take_their_own_size(toy: Catalog) -> None:
    own = toy_estimate(toy, a=FX_PPO, cm=TOY_1B, rm=TOY_1B)
    policy = toy_estimate(toy, a=FX_PPO)
    # full fine-tuning: a critic holds bf16 weights and gradients and 12 bytes of Adam state
    assert own["mem.critic"] == pytest.approx(1e9 * 16)
    assert own["mem.reward_model"] == pytest.approx(1e9 * 2)
    assert policy["mem.critic"] == pytest.approx(8e9 * 16)
    assert policy["mem.reward_model"] == pytest.approx(8e9 * 2)
    assert own["time.critic_s"] < policy["time.critic_s"] / 4
    assert own["time.reward_model_s"] < policy["time.reward_model_s"] / 4
    assert own["self.reward_model.per_token"] == pytest.approx(2 * 1e9)
    assert own["time.train_s"] == pytest.approx(policy["time.train_s"])


def test_a_run_states_them_and_the_back_test_says_what_it_assumed(toy: Catalog) -> None:
    rows = {r.run: r for r in backtest_rows(toy)}
    named, unnamed = rows["named"], rows["unnamed"]
    assert named.stages[0]["cm"] == TOY_1B and named.stages[0]["rm"] == TOY_1B
    assert named.estimate_gpu_hours is not None and unnamed.estimate_gpu_hours is not None
    assert named.estimate_gpu_hours < unnamed.estimate_gpu_hours
    assert "critic: as large as the policy" in unnamed.assumed
    assert "reward model: as large as the policy" in unnamed.assumed
    assert not any("as large as the policy" in a for a in named.assumed)
    assert backtest.sized_as_policy(toy, toy.of("run")["named"]) == []


def test_cli_names_the_assumption_and_refuses_an_unknown_model(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--critic-model", "no-such-model"]) == 2
    assert "--critic-model 'no-such-model': unknown id" in capsys.readouterr().err
    assert main(["estimate", "--algorithm", "ppo", "--full"]) == 0
    assert "critic is taken as large as the policy" in capsys.readouterr().out


def test_validation_names_an_unknown_critic_model(tmp_path: Path) -> None:
    text = RUN_YAML.format(model="llama-3.1-8b", cap=1000, src=SRC,
                           extra="critic_model: no-such-model\n")
    check_run_file(tmp_path, text, "no-such-model")


# A reward from a rule or verifier (issue 42): the link's ``rw`` (a run's
# ``reward_model_scored``, the CLI's ``--score-reward-model``) drops the reward model, or adds one.

def test_reward_flag_drops_the_reward_models_memory_and_time(toy: Catalog) -> None:
    rule = toy_estimate(toy, a=FX_PPO, rw="0")
    learned = toy_estimate(toy, a=FX_PPO, rw="1")
    default = toy_estimate(toy, a=FX_PPO)
    assert "reward_model" not in rule.resolved.roles and "critic" in rule.resolved.roles
    assert not rule["mem.reward_model"] and rule["time.reward_model_s"] == 0
    assert learned["mem.reward_model"] and learned["time.reward_model_s"] > 0
    assert rule["mem.critic"] == learned["mem.critic"]
    assert rule["time.step_s"] < learned["time.step_s"]
    assert {k: default[k] for k in ("mem.reward_model", "time.step_s", "time.gpu_hours")} == {
        k: learned[k] for k in ("mem.reward_model", "time.step_s", "time.gpu_hours")}
    assert "reward model" not in rule.resolved.names["not_covered"]


def test_reward_flag_adds_a_reward_model_to_a_verifier_method(toy: Catalog) -> None:
    plain, scored = toy_estimate(toy), toy_estimate(toy, rw="1")
    assert "reward_model" not in plain.resolved.roles and not plain["mem.reward_model"]
    assert "reward_model" in scored.resolved.roles and scored["time.reward_model_s"] > 0
    assert toy_estimate(toy, rw="0")["time.step_s"] == plain["time.step_s"]


def test_held_by_flags_covers_both_flags(toy: Catalog) -> None:
    by = held_by_flags(toy.algorithms[FX_PPO])
    assert set(by) == set(HELD_BY_FLAG) and all(set(v) == set(HELD_BY_FLAG) for v in by.values())
    assert by[""][""].reward_model and not by[""]["0"].reward_model
    assert not by["0"]["0"].reference and "reward_model" not in by["0"]["0"].roles
    assert by["1"]["1"].roles == by[""][""].roles


def test_a_run_with_a_rule_reward_keeps_no_reward_model(catalog: Catalog) -> None:
    found = with_runs(catalog, run("rule", 1.0, algorithm="grpo", reward_model_scored=False),
                      run("learned", 1.0, algorithm="grpo", reward_model_scored=True),
                      run("default", 1.0, algorithm="grpo"))
    rows = {r.run: r for r in backtest_rows(found)}
    assert rows["rule"].stages[0]["rw"] == "0" and rows["learned"].stages[0]["rw"] == "1"
    assert "rw" not in rows["default"].stages[0]
    assert "reward model: as large as the policy" in rows["learned"].assumed
    assert not any("reward model" in a for a in rows["rule"].assumed + rows["default"].assumed)
    hours = {k: r.estimate_gpu_hours for k, r in rows.items()}
    assert hours["rule"] == hours["default"] and hours["learned"] > hours["rule"]


def test_a_ppo_run_with_a_rule_reward_is_priced_without_one(toy: Catalog) -> None:
    found = with_runs(toy, run("rule", 1.0, algorithm=FX_PPO, reward_model_scored=False),
                      run("unnamed", 1.0, algorithm=FX_PPO))
    rows = {r.run: r for r in backtest_rows(found)}
    assert backtest.sized_as_policy(found, found.of("run")["rule"]) == [
        "critic: as large as the policy"]
    assert rows["rule"].estimate_gpu_hours is not None
    assert rows["unnamed"].estimate_gpu_hours is not None
    assert rows["rule"].estimate_gpu_hours < rows["unnamed"].estimate_gpu_hours


def test_cli_refuses_a_bad_reward_flag(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    estimate_reads_the_session_catalog(monkeypatch, catalog)  # the CLI test above loads it
    assert main(["estimate", "--score-reward-model", "yes"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--score-reward-model 'yes': one of 0, 1" in err
