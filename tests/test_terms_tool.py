"""benchmarks/terms.py: the mean trained sequence a measured trainer time allows (issue 42's
check of a stated mean length against a source's measured update seconds). Synthetic values: no
catalog run's figures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from terms import allowed_sequence, flop_seconds, report

DENSE = {"tokens.sequence_per_episode": 2000.0, "time.learn_s": 400.0, "time.moe_sync_s": 0.0,
         "time.mfu_train": 0.5, "time.step_s": 420.0, "time.rollout_s": 300.0}
"""A dense stage whose trainer takes 400 s a step for 2,000-token sequences at half the peak."""


def test_half_the_time_allows_half_the_sequence() -> None:
    at_model, at_peak = allowed_sequence(DENSE, 200.0)
    assert at_model == pytest.approx(1000.0)
    assert at_peak == pytest.approx(2000.0)  # at the full peak: ÷ the utilisation


def test_host_waits_are_not_flops() -> None:
    moe = {**DENSE, "time.learn_s": 500.0, "time.moe_sync_s": 100.0}
    assert flop_seconds(moe) == pytest.approx(400.0)
    assert allowed_sequence(moe, 300.0)[0] == pytest.approx(1000.0)  # 300 - 100 waits of 400


def test_a_stage_without_a_trainer_allows_nothing() -> None:
    assert allowed_sequence({**DENSE, "time.learn_s": 0.0}, 100.0) == (0.0, 0.0)


def test_report_states_the_bound_only_when_asked() -> None:
    assert not any("allow" in line for line in report(DENSE, None))
    assert any("1,000 tokens" in line for line in report(DENSE, 200.0))
