"""An asynchronous step under a staleness bound (derived/calculator/staleness.py) on toy entries:
each test fails on the model before it, which priced every asynchronous step as the full overlap
of sampling and training whatever the run said of how far its sampler may run ahead."""

from __future__ import annotations

import json

import pytest
from helpers_calc import _fig
from helpers_runs import run, stage, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.cli import main
from tinkernomics.derived.calculator import backtest, inputs
from tinkernomics.derived.calculator.estimate import Estimate

ASYNC = {"async": "1", "rg": "4", "maxout": "4000"}
"""Four of the toy run's eight GPUs sample, the rest train; the cap leaves a tail of 3,000."""


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def est(catalog: Catalog, **extra: str) -> Estimate:
    return toy_estimate(catalog, **{**ASYNC, **extra})


def _key(name: str) -> str:
    return inputs.key(name)


def parts(e: Estimate) -> tuple[float, float, float, float]:
    """S (streamed sampling), L (learning), F (refit) and the staleness-0 version's tail."""
    return e["time.rollout_s"], e["time.learn_s"], e["time.refit_s"], e["time.version_tail_s"]


def test_without_a_bound_the_step_is_the_full_overlap_as_before(toy: Catalog) -> None:
    plain, updates_only = est(toy), est(toy, **{_key("set.sync_updates"): "4"})
    s, learn, refit, _ = parts(plain)
    assert plain["time.step_s"] == pytest.approx(max(s, learn + refit))
    assert updates_only["time.step_s"] == plain["time.step_s"]


def test_a_staleness_0_version_waits_for_its_longest_completion_and_last_update(
        toy: Catalog) -> None:
    bound = est(toy, **{_key("set.staleness"): "0", _key("set.sync_updates"): "4"})
    s, learn, refit, tail = parts(bound)
    assert tail == pytest.approx(3000 * bound["time.tail_iteration_s"])
    assert bound["time.step_s"] == pytest.approx(
        max(s + tail + learn / 4 + refit, learn + refit + s / 4))
    assert bound["time.step_s"] > est(toy)["time.step_s"]


def test_a_large_bound_overlaps_fully(toy: Catalog) -> None:
    for gpus in ("4", "1"):  # training the longer, then sampling (one sampler GPU)
        bound = {_key("set.staleness"): "10", _key("set.sync_updates"): "4", "rg": gpus}
        assert est(toy, **bound)["time.step_s"] == pytest.approx(est(toy, rg=gpus)["time.step_s"])
    s, learn, refit, _ = parts(est(toy, rg="1"))
    assert s > learn + refit


def test_a_small_bound_waits_for_the_first_update_and_idles_the_sampler(toy: Catalog) -> None:
    small = est(toy, **{_key("set.staleness"): "0.1", _key("set.sync_updates"): "4"})
    s, learn, refit, _ = parts(small)
    trainer = learn + refit + s * (0.25 - 0.1)
    sampler = s + max(0.0, learn / 4 + refit - 0.1 * s)
    assert small["time.step_s"] == pytest.approx(max(trainer, sampler))
    one_update = est(toy, **{_key("set.staleness"): "0.5"})  # K = 1: half a batch to wait for
    assert one_update["time.step_s"] == pytest.approx(max(
        learn + refit + 0.5 * s, s + max(0.0, learn + refit - 0.5 * s)))


def test_the_step_shortens_as_the_bound_grows(toy: Catalog) -> None:
    steps = [est(toy, **{_key("set.staleness"): s, _key("set.sync_updates"): "4"})["time.step_s"]
             for s in ("0", "0.1", "0.3", "1")]
    assert steps[0] > steps[1] > steps[2]
    assert steps == sorted(steps, reverse=True)
    assert steps[-1] == pytest.approx(est(toy)["time.step_s"])


def test_a_synchronous_step_ignores_the_bound(toy: Catalog) -> None:
    sync = toy_estimate(toy, maxout="4000", rg="4")
    bound = toy_estimate(toy, maxout="4000", rg="4", **{_key("set.staleness"): "0",
                                                        _key("set.sync_updates"): "4"})
    assert bound["time.step_s"] == sync["time.step_s"]
    assert bound["self.gpu_hours"] == sync["self.gpu_hours"]


def test_the_backtest_reads_a_stages_bound_and_a_run_without_it_states_none(
        catalog: Catalog) -> None:
    bounded = stage(staleness=_fig(0, "ratio"), sync_updates=_fig(4, "count"))
    toy = with_runs(catalog, run("toy-plain", 10.0, stage(), mode="async"),
                    run("toy-bounded", 10.0, bounded, mode="async"))
    runs = toy.of("run")
    stated = backtest.query(runs["toy-bounded"], runs["toy-bounded"].stages[0])
    assert stated[_key("set.staleness")] == "0.0"
    assert stated[_key("set.sync_updates")] == "4"
    plain = backtest.query(runs["toy-plain"], runs["toy-plain"].stages[0])
    assert _key("set.staleness") not in plain and _key("set.sync_updates") not in plain



def test_the_command_line_sets_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    def step(*args: str) -> float:
        assert main(["estimate", "--json", "--async", "--gpus", "8", "--rollout-gpus", "4",
                     "--max-completion-tokens", "8192", *args]) == 0
        return float(json.loads(capsys.readouterr().out)["quantities"]["time.step_s"]["value"])
    free = step()
    assert step("--sync-updates", "4") == free
    assert step("--staleness", "0", "--sync-updates", "4") > free
