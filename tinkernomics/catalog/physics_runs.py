"""A published run's actual against physics (pipeline step 3, cross-entry rules): no run trains
its tokens in fewer GPU-hours than its GPUs' peak allows.

Every token a step trains goes through the policy forward and backward at least once: 6 FLOPs
a token per active parameter for full training, 4 under LoRA, where the frozen weights' own
gradients are skipped but the activations' still flow back (Kaplan et al., "Scaling Laws for
Neural Language Models", arXiv 2001.08361, section 2.1: C ≈ 6N a token). At the GPU's dense BF16
peak that is a floor on the run's GPU-hours that ignores attention, sampling, log-prob passes and
every inefficiency, so published runs sit several times above it. An actual below it is a slip:
a node's hours entered as the GPUs', an actual that times fewer steps than the stage lists, a
length or batch typed too large.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import field_or_none, figure_value
from tinkernomics.catalog.problems import Problem

FULL_FLOPS = 6.0
"""Training FLOPs a token per active parameter, forward and backward (arXiv 2001.08361)."""
LORA_FLOPS = 4.0
"""The same under LoRA: the forward (2) and the activations' backward (2)."""
STAGE_FIGURES = ("steps", "prompts", "group", "prompt_tokens", "mean_completion_tokens")


def trained_tokens(run: Any) -> float | None:
    """Tokens the run's steps train, over every stage (None when a stage lacks a figure)."""
    total = 0.0
    for stage in field_or_none(run, "stages") or ():
        found = [figure_value(stage, name) for name in STAGE_FIGURES]
        figures = [f for f in found if f is not None]
        if len(figures) < len(found):
            return None
        steps, prompts, group, prompt, completion = figures
        total += steps * prompts * group * (prompt + completion)
    return total


def floor_gpu_hours(run: Any, model: Any, hardware: Any) -> float | None:
    """The run's training FLOPs at its GPU's dense BF16 peak, in GPU-hours."""
    tokens = trained_tokens(run)
    active = figure_value(model, "active_params") or figure_value(model, "total_params")
    peak = figure_value(hardware, "bf16_dense_tflops")
    if tokens is None or not active or not peak:
        return None
    per_token = (LORA_FLOPS if field_or_none(run, "lora") else FULL_FLOPS) * active * 1e9
    return tokens * per_token / (peak * 1e12) / 3600.0


def _count(tokens: float) -> str:
    """A token count in words: 368.6 million, 3.97 billion."""
    return f"{tokens / 1e9:,.3g} billion" if tokens >= 1e9 else f"{tokens / 1e6:,.4g} million"


def rule_actual_above_compute_floor(catalog: Catalog) -> Iterator[Problem]:
    """A run's actual GPU-hours are at least its trained tokens' FLOPs at its GPU's peak."""
    for key, run in catalog.of("run").items():
        model = catalog.models.get(str(field_or_none(run, "model")))
        hardware = catalog.hardware.get(str(field_or_none(run, "hardware")))
        actual = figure_value(run, "actual_gpu_hours")
        if model is None or hardware is None or actual is None:
            continue
        floor = floor_gpu_hours(run, model, hardware)
        if floor is None or actual >= floor:
            continue
        yield catalog.problem(
            "run", key, ("actual_gpu_hours", "value"),
            f"actual_gpu_hours {actual:,.4g} is below {floor:,.4g}, what the stages' "
            f"{_count(trained_tokens(run) or 0.0)} trained tokens need at the GPU's full dense "
            "BF16 peak",
            "no run beats its GPU's peak: a node's hours entered as the GPUs', an actual that "
            "times fewer steps than `steps` says, or a length or batch typed too large? The "
            "floor: "
            "tinkernomics/catalog/physics_runs.py")
