"""Public twins of a published run's nested models (pipeline step 7, the API).

A ``run`` entry (``catalog/runs/``) is published by the generic collection
(``generic.public_model``); its ``stages`` hold ``RunStage`` and its ``readings`` hold
``Reading``, both read off their authoring models (``api.twins``): the same fields, in the same
order, each stage setting a public ``Figure`` (reported when the authors state it, unverified
when the entry assumed it). A setting added to the authoring stage reaches the API with it; only
the descriptions are worded here, for readers of the API rather than contributors (what null
means instead of YAML units and defaults).
"""

from __future__ import annotations

from tinkernomics.catalog.models import runs
from tinkernomics.site.api.twins import Twin


class Reading(Twin, of=runs.Reading, described={
        "stage": "The stage whose setting it replaces, counted from 1.",
        "value": "The setting's value under this reading, with its source."}):
    """Another value of one setting that the run's source also supports (a run with any is
    priced under each on the back-test and not scored)."""


STAGE_DESCRIBED = {
    "label": "e.g. '8k context'; null if the run has one stage.",
    "steps": "Optimiser steps.",
    "prompts": "Prompts (tasks) per step.",
    "group": "Completions per prompt (G).",
    "prompt_tokens": "Mean prompt length.",
    "mean_completion_tokens": "Mean length of one completion (one turn).",
    "max_completion_tokens": "The cap on one completion.",
    "turns": "Agentic runs: mean turns per episode.",
    "observation_tokens": "Agentic runs: tokens a turn's tool output adds to the context.",
    "env_seconds_per_turn": "Agentic runs: environment time per turn, in seconds.",
    "rollout_gpus": "GPUs that sample when sampling has GPUs of its own; null if colocated.",
    "rollout_tp": "GPUs one sampler engine spans (tensor parallel); null: not stated.",
    "max_num_seqs": "Sequences one sampler engine decodes at once, at most; null: not stated.",
    "attention_tp": "GPUs one sampler engine splits attention over, when fewer than its tensor "
                    "parallelism; null: not stated (all of them).",
    "micro_batch_tokens": "Tokens one update micro-batch of a training GPU (of the GPUs that "
                          "split one copy of the model) holds at most (dynamic batching's cap); "
                          "null: one sequence a micro-batch.",
    "pipeline_parallel": "Pipeline stages the learner splits the model's layers into; null: "
                         "not stated (one, no pipeline).",
    "train_tensor_parallel": "GPUs the learner splits each layer over; null: not stated (one).",
    "context_parallel": "GPUs the learner splits each sequence over; null: not stated (one).",
    "duplicated_params": "Parameters (billions) the learner computes more than once a token: "
                         "layers its tensor-parallel GPUs each run whole, × (TP - 1); null: none.",
    "gpu_memory_utilization": "Share of a sampler GPU's memory the engine takes (vLLM's "
                              "gpu_memory_utilization); null: not stated.",
    "oversampling": "Rollouts sampled per rollout trained on (1: dynamic sampling off); null: "
                    "the algorithm's typical setting.",
    "staleness": "Asynchronous runs: samples the sampler may start beyond a weight sync's, as a "
                 "share of them (verl's staleness_threshold); null: not stated (unbounded).",
    "sync_updates": "Asynchronous runs: trainer updates between weight syncs; null: not stated.",
    "epochs": "Passes the learner makes over each step's rollouts (PPO epochs); null: not "
              "stated (one).",
    "optimizer_steps": "Optimizer steps the learner takes in one priced step (mini-batches times "
                       "epochs); null: not stated (one).",
    "gpus": "GPUs of the stage.",
}
"""The public wording of each stage setting (the authoring one names YAML units and defaults)."""


class RunStage(Twin, of=runs.RunStage, described=STAGE_DESCRIBED):
    """One stage of a published run: its settings, each stated or assumed."""
