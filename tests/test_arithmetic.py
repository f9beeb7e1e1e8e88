"""A derived figure's working adds up (``catalog.arithmetic``): one mutation of the valid fixture
per case, located exactly; hostile locators in bounded time; prose that is not arithmetic."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.catalog.arithmetic import statements

RUN = "runs/fx-run.yaml"
ACTUAL = ("actual_gpu_hours: {value: 10, unit: gpu_hours, status: reported, source: tinker_docs, "
          "locator: 'Fixture: \"row fx-run\"'}")
WHERE = "catalog/runs/fx-run.yaml:18:"


def _derived(value: str, working: str) -> str:
    return (f"actual_gpu_hours: {{value: {value}, unit: gpu_hours, status: derived, "
            f"source: tinker_docs, locator: 'Fixture: \"row fx-run\" on 8 GPUs; {working}'}}")


def _validate(tmp_path: Path, value: str, working: str) -> list[tuple[str, str, str | None]]:
    root = copy_valid(tmp_path)
    replace_in(root, RUN, ACTUAL, _derived(value, working))
    run = run_validate(tmp_path, "catalog")
    return [(p.where, p.message, p.hint) for p in run.problems]


def test_working_that_holds_passes(tmp_path: Path) -> None:
    assert _validate(tmp_path, "10.22", "4,600 s × 8 ÷ 3,600 = 10.22") == []


def test_wrong_product_is_reported_at_the_locator(tmp_path: Path) -> None:
    problems = _validate(tmp_path, "261", "27 × 8 = 261")
    assert [(where, message) for where, message, _ in problems] == [
        (f"{WHERE}96: actual_gpu_hours.locator",
         "27 × 8 = 261 does not hold: 27 × 8 is 216")]
    assert "check the numbers against the source" in (problems[0][2] or "")


def test_wrong_quotient_with_rounding(tmp_path: Path) -> None:
    """= 10.5 allows 10.45-10.55; 4,600 × 8 ÷ 3,600 is 10.222."""
    problems = _validate(tmp_path, "10.5", "4,600 s × 8 ÷ 3,600 = 10.5")
    assert [(where, message) for where, message, _ in problems] == [
        (f"{WHERE}97: actual_gpu_hours.locator",
         "4,600 s × 8 ÷ 3,600 = 10.5 does not hold: 4,600 s × 8 ÷ 3,600 is 10.222")]


def test_percent_result_shown_as_percent() -> None:
    [found] = statements("1 ÷ 8 = 11%")
    assert not found.holds and found.shown() == "12.5%"


def test_value_not_matching_its_working(tmp_path: Path) -> None:
    problems = _validate(tmp_path, "216000", "27 × 8 = 216")
    assert problems == [
        (f"{WHERE}27: actual_gpu_hours.value",
         "value 216,000 is not what its working gives: the locator ends with 27 × 8 = 216",
         "set value: to the working's result (216), or correct the working")]


def test_hostile_locator_in_the_catalog_validates(tmp_path: Path) -> None:
    """As long a locator as the catalog takes (4,000 characters): nesting past the parser's
    depth, an exponent it does not read; no exception, nothing reported, bounded time."""
    nested = "(" * 1_900 + "1" + ")" * 1_900 + " × 2 = 3; 1e999 × 2 = 3; 9^9^9 = 1"
    started = time.perf_counter()
    assert _validate(tmp_path, "10", nested) == []
    assert time.perf_counter() - started < 10.0


@pytest.mark.parametrize(("text", "concludes"), [
    ("27 × 8 = 216", True),
    ("27 × 8 = 216 GPU-hours.", True),
    ("27 × 8 = 216 (the paper rounds it to 200)", True),
    ("27 × 8 = 216 tokens a step, ÷ 2", False),
    ("27 × 8 = 216, the notebook's 452 steps", False),
])
def test_working_that_ends_the_locator(text: str, concludes: bool) -> None:
    [found] = statements(text)
    assert found.concludes is concludes


@pytest.mark.parametrize(("text", "holds"), [
    ("27 × 8 = 216", True),
    ("27 × 8 = 261", False),
    ("4,600 s × 8 ÷ 3,600 = 10.22", True),
    ("4,600 s × 8 ÷ 3,600 = 10.23", False),
    ("(16 + 8) × 8 = 192 GPUs", True),
    ("1520 − 1040 = 480", True),
    ("1+1+4+2 = 8", True),
    ("2 × 131,072 × 3,136 = 0.822B", True),
    ("20,881.81 tokens/s × 346.33 s ÷ 13,975 tokens ≈ 518", True),
    ("20,881.81 tokens/s × 346.33 s ÷ 13,975 tokens ≈ 530", False),
    ("17 h 22 min × 128 GPUs = 2,222.93", True),
    ("on 4 GPUs; 1:14:10 × 4 = 4.944 GPU-hours", True),
    ("2,000,000 ÷ 768 = 2,604", True),
    ("10% × 400 = 40", True),
    ("1 ÷ 4 = 25%", True),
    ("1 ÷ 4 = 25.1%", False),
])
def test_statements_checked(text: str, holds: bool) -> None:
    [found] = statements(text)
    assert found.holds is holds


@pytest.mark.parametrize("text", [
    "lines 71 and 76 = the two calls",
    "versions 2-5 = 4 releases",
    "released 2025-01-02 = 3 days later",
    "`layer_idx % 2 == 0`",
    'line 465 "trigger_parameter_sync_step: 512/128 = 5"',
    "`x = 3 * 4`",
    "default=1, max=2",
    "2.1 days = 50.4 hours",
    "v0.3.0 × 2 = 6",
    "H100 × 8 = 800",
    "4 attention layers of 3,136 × 96 × 128 = 0.154B",
    "356.6k tokens/s × 53.3 s (14.8 h ÷ 1,000 steps) = 19.00M tokens",
    "8x8 H100 GPUs = 64",
    "2 an update × 4 updates a priced step = 8",
    "1,2345 × 2 = 7",
    "9**9**9 = 1",
    "1e999 × 2 = 3",
    "8 ÷ 0 = 1",
])
def test_text_that_is_not_clearly_arithmetic_is_not_checked(text: str) -> None:
    assert [s.text for s in statements(text) if not s.holds] == []


@pytest.mark.parametrize("text", [
    "9**9**9 = 1; " + "9 × " * 2000 + "9 = 1",
    "1e999 × 1e999 = 1; " + "99999999999999999999 × " * 30 + "1 = 1",
    "(" * 10_000 + "1" + ")" * 10_000 + " × 2 = 3",
    "(" * 10_000 + "1 × 2 = 3",
    "1 × 2 = 3 " * 10_000,
    "1 " * 50_000 + "= 2",
    "(1 + " * 5_000 + "1" + ")" * 5_000 + " = 2",
    "“" * 50_000 + "1 × 2 = 3",
    "1 × 2 = 2" + " " * 50_000 + "x(",
    "1 × 2 = 2 (" + " " * 50_000 + "x",
    "9" * 5_000 + " h 22 min × 2 = 1; " + "9" * 5_000 + ":00:00 × 2 = 1; 1 × 2 = " + "9" * 5_000,
    '"' + "“x" * 40_000 + "`" + "1 × 2 = 3",
])
def test_hostile_locator_in_bounded_time(text: str) -> None:
    started = time.perf_counter()
    found = statements(text)
    assert time.perf_counter() - started < 2.0
    assert all(s.computed == s.computed for s in found)  # no NaN


def test_a_100_kb_locator_is_read_in_linear_time() -> None:
    text = "; 27 × 8 = 216" * 7_500
    assert len(text) > 100_000
    started = time.perf_counter()
    found = statements(text)
    assert time.perf_counter() - started < 2.0
    assert len(found) == 7_500 and all(s.holds for s in found)
