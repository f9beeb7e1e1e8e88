"""Cross-entry rules of published runs (pipeline step 2): ``catalog/runs/`` entries name a
model, an algorithm and a GPU the catalog holds, and each stage's figures agree with each other
(a cap at least the mean completion length and within the model's window, GPUs left to train
on when some only sample, a sampler engine no wider than the GPUs that sample), and
each other reading of a setting names a stage and setting the run has, in its unit, with a value
of its own, so the back-test never meets a run it cannot price."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence

from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.models.runs import PublishedRun
from tinkernomics.catalog.partial import field_or_none, figure_value
from tinkernomics.catalog.problems import Problem

UnknownId = Callable[[Catalog, Entry, tuple[str | int, ...], str, str, str], Problem]


def run_problems(catalog: Catalog, unknown: UnknownId) -> Iterator[Problem]:
    """Every problem of every run entry (``rules.rule_runs_consistent`` passes ``unknown``)."""
    runs: dict[str, PublishedRun] = catalog.of("run")
    for key, run in runs.items():
        entry = catalog.entry("run", key)
        for field, kind in (("model", "model"), ("algorithm", "algorithm"),
                            ("hardware", "hardware"), ("critic_model", "model"),
                            ("reward_model", "model")):
            wanted = getattr(run, field)
            if wanted is not None and wanted not in catalog.known_ids(kind):
                yield unknown(catalog, entry, (field,), wanted, kind, kind)
        yield from _reading_problems(catalog, key, run)
        yield from _shape_problems(catalog, key, run)
        for i, stage in enumerate(run.stages):
            yield from _window_problems(catalog, key, run, i)
            if stage.max_completion_tokens.value < stage.mean_completion_tokens.value:
                yield catalog.problem("run", key, ("stages", i, "max_completion_tokens"),
                                      "the cap is below the mean completion length",
                                      "the cap is the longest a completion may be")
            sampling = stage.rollout_gpus if stage.rollout_gpus is not None else stage.gpus
            if stage.rollout_tp is not None and stage.rollout_tp.value > sampling.value:
                yield catalog.problem("run", key, ("stages", i, "rollout_tp"),
                                      f"one engine spans more GPUs than sample "
                                      f"({sampling.value:g})",
                                      "rollout_tp counts the GPUs of one sampler engine")
            yield from _split_problems(catalog, key, run, i)
            if stage.rollout_gpus is not None and stage.rollout_gpus.value >= stage.gpus.value:
                yield catalog.problem("run", key, ("stages", i, "rollout_gpus"),
                                      "every GPU samples: none is left to train on",
                                      "rollout_gpus counts the GPUs that only sample, part "
                                      "of gpus")


SPLITS = ("pipeline_parallel", "train_tensor_parallel", "context_parallel")
"""The axes a learner splits one copy of the model over; their product is its GPUs."""


def learner_overspan(splits: Sequence[float], gpus: float,
                     sampling_only: float) -> tuple[float, float] | None:
    """``(span, training GPUs)`` when one training copy of the model, split ``splits`` ways
    (pipeline × tensor × context parallel), spans more GPUs than train: ``gpus`` less the
    ``sampling_only`` GPUs; None when it fits. The one rule for a catalog run
    (``_split_problems``) and the reader's options (``site/calculator/checkargs``)."""
    span, training = math.prod(splits), gpus - sampling_only
    return (span, training) if splits and span > training else None


def _split_problems(catalog: Catalog, key: str, run: PublishedRun,
                    index: int) -> Iterator[Problem]:
    """One training copy of the model (pipeline × tensor × context parallel) spans at most the
    GPUs that train: all of them when colocated, else those that do not only sample."""
    stage = run.stages[index]
    given = [(name, getattr(stage, name)) for name in SPLITS if getattr(stage, name) is not None]
    if not given:
        return
    sampling_only = (stage.rollout_gpus.value if stage.rollout_gpus is not None
                     and not run.colocated else 0.0)
    over = learner_overspan([figure.value for _, figure in given], stage.gpus.value,
                            sampling_only)
    if over is not None:
        span, training = over
        names = " × ".join(f"{name} {figure.value:g}" for name, figure in given)
        yield catalog.problem("run", key, ("stages", index, given[0][0]),
                              f"one training copy of the model spans {span:g} GPUs ({names}), "
                              f"more than the {training:g} that train",
                              "pipeline, tensor and context parallelism split one copy of the "
                              "model over that many GPUs")


TIMED_SHAPE = (("shape.layers", ("layers",)),
               ("shape.kv_heads and shape.head_dim (or shape.kv_latent_dim)",
                ("kv_heads head_dim", "kv_latent_dim")),
               ("shape.attention_heads and shape.head_dim (or d_model)",
                ("attention_heads head_dim", "d_model")))
"""What the time model reads of a model's architecture, as (what to add, the groups of figures
any one of which gives it): its layers, its KV cache a token (KV heads × head size, else a
latent per layer) and its attention width (heads × head size, else the hidden size)."""


def missing_shape(model: object) -> list[str]:
    """What ``model`` lacks of ``TIMED_SHAPE`` for the time model, in order; empty when it
    can be timed."""
    shape = field_or_none(model, "shape")

    def given(group: str) -> bool:
        return all((figure_value(model, name) if name == "d_model" else
                    figure_value(shape, name)) is not None for name in group.split())

    return [label for label, groups in TIMED_SHAPE if not any(map(given, groups))]


def _shape_problems(catalog: Catalog, key: str, run: PublishedRun) -> Iterator[Problem]:
    """A published run is timed from its model's architecture (the back-test prices it): a
    model the catalog gives by its size alone cannot time it."""
    model = catalog.models.get(run.model)
    missing = missing_shape(model) if model is not None else []
    if missing:
        yield catalog.problem("run", key, ("model",),
                              f"the model {run.model!r} lacks {'; '.join(missing)}, which the "
                              "back-test's time model reads (its KV cache and attention)",
                              f"add them to catalog/models/{run.model}.yaml from the model's "
                              "config.json (num_hidden_layers, num_key_value_heads, head_dim, "
                              "num_attention_heads)")


def _window_problems(catalog: Catalog, key: str, run: PublishedRun,
                     index: int) -> Iterator[Problem]:
    """A stage's prompt and longest completion fit the model's context window, where the
    model gives one (``shape.context_limit``)."""
    model = catalog.models.get(run.model)
    window = figure_value(field_or_none(model, "shape"), "context_limit")
    stage = run.stages[index]
    longest = stage.prompt_tokens.value + stage.max_completion_tokens.value
    if window is not None and longest > window:
        yield catalog.problem("run", key, ("stages", index, "max_completion_tokens"),
                              f"prompt_tokens + max_completion_tokens ({longest:,g}) exceed "
                              f"{run.model}'s context window ({window:,g} tokens)",
                              "a sequence cannot outgrow the model's window: check the cap "
                              "for a digit typed twice (or a cap in characters, not tokens)")


def _reading_problems(catalog: Catalog, key: str, run: PublishedRun) -> Iterator[Problem]:
    """A reading names a stage the run has and a setting that stage gives, in the same unit,
    with another value."""
    for i, reading in enumerate(run.readings):
        if reading.stage > len(run.stages):
            yield catalog.problem("run", key, ("readings", i, "stage"),
                                  f"the run has {len(run.stages)} stage(s)",
                                  "stages are counted from 1")
            continue
        entered = getattr(run.stages[reading.stage - 1], reading.setting.value)
        if entered is None:
            yield catalog.problem("run", key, ("readings", i, "setting"),
                                  f"stage {reading.stage} gives no {reading.setting.value}",
                                  "a reading replaces a setting the stage states")
        elif entered.unit != reading.value.unit:
            yield catalog.problem("run", key, ("readings", i, "value", "unit"),
                                  f"the setting's unit is '{entered.unit.value}'",
                                  "give the value in the setting's unit")
        elif entered.value == reading.value.value:
            yield catalog.problem("run", key, ("readings", i, "value"),
                                  "the same value as the stage's",
                                  "a reading gives the other value the source supports")
