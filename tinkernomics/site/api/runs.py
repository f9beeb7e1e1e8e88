"""Public twin of a published run's nested stage (pipeline step 7, the API).

A ``run`` entry (``catalog/runs/``) is published by the generic collection
(``generic.public_model``); its ``stages`` hold this model, each setting a public ``Figure``
(reported when the authors state it, unverified when the entry assumed it); its ``readings``
hold ``Reading``, a twin of the authoring model.
"""

from __future__ import annotations

from pydantic import Field

from tinkernomics.catalog.models import runs
from tinkernomics.site.api.provenance import ApiModel, Figure
from tinkernomics.site.api.twins import Twin


class Reading(Twin, of=runs.Reading, described={
        "stage": "The stage whose setting it replaces, counted from 1.",
        "value": "The setting's value under this reading, with its source."}):
    """Another value of one setting that the run's source also supports (a run with any is
    priced under each on the back-test and not scored)."""


class RunStage(ApiModel):
    """One stage of a published run: its settings, each stated or assumed."""

    label: str | None = Field(description="e.g. '8k context'; null if the run has one stage.")
    steps: Figure = Field(description="Optimiser steps.")
    prompts: Figure = Field(description="Prompts (tasks) per step.")
    group: Figure = Field(description="Completions per prompt (G).")
    prompt_tokens: Figure = Field(description="Mean prompt length.")
    mean_completion_tokens: Figure = Field(description="Mean length of one completion (one turn).")
    max_completion_tokens: Figure = Field(description="The cap on one completion.")
    turns: Figure | None = Field(description="Agentic runs: mean turns per episode.")
    observation_tokens: Figure | None = Field(
        description="Agentic runs: tokens a turn's tool output adds to the context.")
    env_seconds_per_turn: Figure | None = Field(
        description="Agentic runs: environment time per turn, in seconds.")
    rollout_gpus: Figure | None = Field(
        description="GPUs that sample when sampling has GPUs of its own; null if colocated.")
    rollout_tp: Figure | None = Field(
        description="GPUs one sampler engine spans (tensor parallel); null: not stated.")
    max_num_seqs: Figure | None = Field(
        description="Sequences one sampler engine decodes at once, at most; null: not stated.")
    attention_tp: Figure | None = Field(
        description="GPUs one sampler engine splits attention over, when fewer than its tensor "
                    "parallelism; null: not stated (all of them).")
    gpu_memory_utilization: Figure | None = Field(
        description="Share of a sampler GPU's memory the engine takes (vLLM's "
                    "gpu_memory_utilization); null: not stated.")
    oversampling: Figure | None = Field(
        description="Rollouts sampled per rollout trained on (1: dynamic sampling off); null: "
                    "the algorithm's typical setting.")
    gpus: Figure = Field(description="GPUs of the stage.")
