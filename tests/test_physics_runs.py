"""The compute floor under a published run's actual (``catalog.physics_runs``), on the valid
fixture catalog: an actual below its tokens' FLOPs at the GPU's peak is reported at its value,
LoRA's lighter backward lowers the floor, and a multi-stage run sums its stages."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.physics_runs import FULL_FLOPS, LORA_FLOPS, floor_gpu_hours

RUN = "runs/fx-run.yaml"
ACTUAL = "actual_gpu_hours: {value: 10,"


def fixture_floor(root: Path) -> float:
    catalog = load_valid_catalog(root)
    run = catalog.of("run")["fx-run"]
    floor = floor_gpu_hours(run, catalog.models[run.model], catalog.hardware[run.hardware])
    assert floor is not None
    return floor


def test_the_floor_is_the_tokens_training_flops_at_peak(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    catalog = load_valid_catalog(root)
    run = catalog.of("run")["fx-run"]
    stage, model = run.stages[0], catalog.models[run.model]
    tokens = (stage.steps.value * stage.prompts.value * stage.group.value
              * (stage.prompt_tokens.value + stage.mean_completion_tokens.value))
    active = (model.active_params or model.total_params).value * 1e9
    peak = catalog.hardware[run.hardware].bf16_dense_tflops.value * 1e12
    assert fixture_floor(root) == pytest.approx(tokens * FULL_FLOPS * active / peak / 3600)


def test_an_actual_below_the_floor_is_reported_at_its_value(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    floor = fixture_floor(root)
    replace_in(root, RUN, ACTUAL, f"actual_gpu_hours: {{value: {floor / 2:.6g},")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1, run.out
    assert run.wheres == ["catalog/runs/fx-run.yaml:18:27: "
                                              "actual_gpu_hours.value"], run.out
    problem = run.problems[0]
    assert "is below" in problem.message and "node" in (problem.hint or "")


def test_lora_lowers_the_floor_to_its_lighter_backward(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    floor = fixture_floor(root)
    between = floor * (LORA_FLOPS / FULL_FLOPS + 1) / 2  # above LoRA's floor, below full's
    replace_in(root, RUN, ACTUAL, f"actual_gpu_hours: {{value: {between:.6g},")
    assert run_validate(tmp_path, "catalog").code == 1
    replace_in(root, RUN, "colocated: true\n", "colocated: true\nlora: true\n")
    assert fixture_floor(root) == pytest.approx(floor * LORA_FLOPS / FULL_FLOPS)
    done = run_validate(tmp_path, "catalog")
    assert done.code == 0, done.out


def test_a_second_stage_adds_its_tokens(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    one = fixture_floor(root)
    text = (root / RUN).read_text(encoding="utf-8")
    stage = text[text.index("  - steps:"):text.index("actual_gpu_hours")]
    replace_in(root, RUN, "actual_gpu_hours", stage + "actual_gpu_hours")
    assert fixture_floor(root) == pytest.approx(2 * one)


WINDOW = ("shape:\n  context_limit: {{value: {window}, unit: tokens, status: reported, "
          "source: tinker_pricing_2026_07, locator: 'Fixture: \"context window\"'}}\n")
"""A context window, added to the fixture model's shape block."""


@pytest.mark.parametrize(("window", "reported"), [(1100, False), (1099, True)])
def test_a_stage_fits_its_models_context_window(tmp_path: Path, window: int,
                                                reported: bool) -> None:
    """The fixture run's 100-token prompt and 1,000-token cap fit a window of 1,100 tokens,
    not one of 1,099; a model without a window is not checked (the valid fixture)."""
    root = copy_valid(tmp_path)
    path = root / "models" / "qwen3-8b.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("shape:\n", WINDOW.format(
        window=window), 1), encoding="utf-8")
    done = run_validate(tmp_path, "catalog")
    if not reported:
        assert done.code == 0, done.out
        return
    assert done.wheres == ["catalog/runs/fx-run.yaml:16:28: stages[0].max_completion_tokens"]
    assert "context window (1,099 tokens)" in done.problems[0].message
