"""Published runs (pipeline step 2): RL runs whose authors state both settings and resources.

A ``PublishedRun`` is what the back-test compares the calculator with (``derived/calculator/
backtest.py``): the run's shape (model, algorithm, prompts per step, G, steps, prompt and
completion lengths, turns), its stack (framework, synchronous or asynchronous, colocated or
not), its GPUs, and the resources it used, each a figure with its source and locator. A setting
the authors state is ``reported``; one the entry had to assume is ``unverified`` with
``asserted_by`` and ``reported_instead`` (what the sources say instead), so a reader sees which
settings were stated and which were guessed. A run in stages (a longer context after some
steps, more GPUs) lists each stage.

A setting the source states in words that read two ways (a paper's "2048 prompts" where its own
batch sizes count completions) gets a ``Reading``: the other value, quoted from the source. The
back-test prices the run under every reading and scores it under none, since no estimate can be
judged against a run whose shape is known only up to that factor.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from tinkernomics.catalog.fields import Id, Prose, ShortText
from tinkernomics.catalog.models.base import StrictModel
from tinkernomics.catalog.models.provenance import Figure
from tinkernomics.catalog.numbers import FigureRange

STEPS = FigureRange(ge=1, le=1e7, hint="optimiser steps of the stage (allowed 1 to 1e7)")
COUNT = FigureRange(ge=1, le=1e7, hint="a count per step, e.g. 128 prompts (allowed 1 to 1e7)")
TOKENS = FigureRange(ge=0, le=1e7, hint="tokens per sequence, e.g. 3,000 (allowed 0 to 1e7)")
GPUS = FigureRange(ge=1, le=1e6, hint="GPUs the stage ran on, e.g. 8 (allowed 1 to 1e6)")
SECONDS = FigureRange(ge=0, le=1e5, hint="seconds per turn (allowed 0 to 1e5)")
TP = FigureRange(ge=1, le=1e3, hint="GPUs one sampler engine spans, e.g. 4 (allowed 1 to 1e3)")
SHARE = FigureRange(ge=0.05, le=1, hint="a share of GPU memory, e.g. 0.6 (allowed 0.05 to 1)")
OVERSAMPLE = FigureRange(ge=1, le=100, hint="rollouts sampled per rollout trained on, e.g. 1 "
                                           "(allowed 1 to 100)")
STALENESS = FigureRange(ge=0, le=1e3, hint="samples a sampler may start beyond a weight sync's, "
                                           "as a share of them, e.g. 0.5 (allowed 0 to 1e3)")
SPLIT = FigureRange(ge=1, le=1e3, hint="GPUs one training copy of the model is split over on "
                                     "this axis, e.g. 8 (allowed 1 to 1e3)")
DUPLICATED = FigureRange(ge=0, le=1e5, hint="parameters in billions a token passes through more "
                                          "than once, e.g. 16.7 (allowed 0 to 1e5)")
GPU_HOURS = FigureRange(gt=0, le=1e9, hint="GPU-hours the run used (allowed above 0 to 1e9)")


class RunMode(StrEnum):
    """How rollouts and training share time."""

    sync = "sync"
    """Each step samples, then trains: the step lasts as long as its longest completion."""
    async_ = "async"
    """Sampling runs ahead of training (off-policy by a step or more): the two overlap."""


class Offloaded(StrEnum):
    """What a learner keeps in host (CPU) memory between uses, moved over the host link."""

    optimizer = "optimizer"
    """The optimizer's state lives on the host and its step runs on the CPU (ZeRO-Offload,
    Megatron's optimizer_cpu_offload): gradients go down and parameters come back every step."""
    params = "params"
    """The learner's (and reference's) weights leave the GPU while sampling and come back."""
    grads = "grads"
    """The gradient buffers leave the GPU between steps and come back."""


class Recompute(StrEnum):
    """What the learner recomputes in the backward pass instead of keeping activations."""

    full = "full"
    """Every layer's forward runs again (verl FSDP's enable_gradient_checkpointing, its default;
    Megatron's recompute_granularity full): one more forward a step."""
    selective = "selective"
    """Only the memory-hungry, cheap parts (attention's core, activations): no forward's FLOPs."""
    none = "none"
    """Nothing (Megatron's recompute_granularity null, verl's Megatron default)."""


class ActualCovers(StrEnum):
    """What a run's actual GPU-hours time."""

    run = "run"
    """The run's wall-clock as its source times it, evaluations, checkpoints and restarts in."""
    steps = "steps"
    """Training steps only (a benchmark's mean or typical step, a sum of step times): whatever a
    step's own timer encloses, and nothing of the run around them."""


class RunStage(StrictModel):
    """One stage of a published run: its settings, each stated or assumed."""

    label: ShortText | None = Field(default=None, description="e.g. '8k context'.")
    steps: Annotated[Figure, STEPS] = Field(description="Optimiser steps, unit `steps`.")
    prompts: Annotated[Figure, COUNT] = Field(
        description="Prompts (tasks) per step, unit `count`.")
    group: Annotated[Figure, COUNT] = Field(
        description="Completions per prompt (G), unit `count`.")
    prompt_tokens: Annotated[Figure, TOKENS] = Field(
        description="Mean prompt length, unit `tokens`.")
    mean_completion_tokens: Annotated[Figure, TOKENS] = Field(
        description="Mean length of one completion (of one turn, in an agentic run), unit "
                    "`tokens`.")
    max_completion_tokens: Annotated[Figure, TOKENS] = Field(
        description="The cap on one completion (the sampler's max tokens), unit `tokens`.")
    turns: Annotated[Figure, COUNT] | None = Field(
        default=None, description="Agentic runs: mean turns per episode, unit `count`.")
    observation_tokens: Annotated[Figure, TOKENS] | None = Field(
        default=None, description="Agentic runs: mean tokens a turn's tool output adds to the "
                                  "context, unit `tokens`.")
    env_seconds_per_turn: Annotated[Figure, SECONDS] | None = Field(
        default=None, description="Agentic runs: environment (tool, test) time per turn, "
                                  "unit `seconds`.")
    rollout_gpus: Annotated[Figure, GPUS] | None = Field(
        default=None, description="GPUs that only sample, when sampling has GPUs of its own "
                                  "(not colocated), unit `gpus`; part of `gpus`.")
    rollout_tp: Annotated[Figure, TP] | None = Field(
        default=None, description="GPUs one sampler engine spans (its tensor parallelism), "
                                  "unit `gpus`; default: the fewest whose memory holds the "
                                  "weights in half of it.")
    max_num_seqs: Annotated[Figure, COUNT] | None = Field(
        default=None, description="Sequences one sampler engine decodes at once, at most "
                                  "(vLLM's `max_num_seqs`), unit `count`; default: vLLM's "
                                  "256.")
    attention_tp: Annotated[Figure, TP] | None = Field(
        default=None, description="GPUs one sampler engine splits attention over, when fewer "
                                  "than its tensor parallelism (data-parallel attention), unit "
                                  "`gpus`; each holds a whole latent (MLA) cache.")
    micro_batch_tokens: Annotated[Figure, TOKENS] | None = Field(
        default=None, description="Tokens one update micro-batch of a training GPU holds at "
                                  "most (dynamic batching's token cap; a micro-batch of the "
                                  "GPUs that split one copy of the model, when the learner "
                                  "splits it: NeMo RL's `train_mb_tokens`, verl's "
                                  "`ppo_max_token_len_per_gpu` × its sequence parallelism; "
                                  "a stack that fixes a micro-batch's sequences instead: that "
                                  "many sequences at the mean length), unit `tokens`; "
                                  "default: one sequence a micro-batch.")
    pipeline_parallel: Annotated[Figure, SPLIT] | None = Field(
        default=None, description="Pipeline stages the learner splits the model's layers into "
                                  "(Megatron's `pipeline_model_parallel_size`), unit `gpus`; "
                                  "default: 1, no pipeline. Each pass over a step's "
                                  "micro-batches waits (stages - 1) micro-batches' time to "
                                  "fill and drain the pipeline.")
    train_tensor_parallel: Annotated[Figure, SPLIT] | None = Field(
        default=None, description="GPUs the learner splits each layer over (Megatron's "
                                  "`tensor_model_parallel_size`), unit `gpus`; default: 1.")
    context_parallel: Annotated[Figure, SPLIT] | None = Field(
        default=None, description="GPUs the learner splits each sequence over (Megatron's "
                                  "`context_parallel_size`, verl's "
                                  "`ulysses_sequence_parallel_size`), unit `gpus`; default: 1.")
    duplicated_params: Annotated[Figure, DUPLICATED] | None = Field(
        default=None, description="Parameters the learner computes more than once a token: "
                                  "layers each of its tensor-parallel GPUs runs whole (not "
                                  "sharded), their parameters × (TP - 1), unit "
                                  "`billion_parameters`; default: none.")
    gpu_memory_utilization: Annotated[Figure, SHARE] | None = Field(
        default=None, description="Share of a sampler GPU's memory the engine takes (vLLM's "
                                  "`gpu_memory_utilization`), unit `fraction`; default: "
                                  "vLLM's 0.9.")
    oversampling: Annotated[Figure, OVERSAMPLE] | None = Field(
        default=None, description="Rollouts sampled per rollout trained on, unit `multiplier`: "
                                  "1 when the run samples only what it trains on (dynamic "
                                  "sampling off), more when it samples extra groups and drops "
                                  "some; default: the algorithm's typical setting.")
    staleness: Annotated[Figure, STALENESS] | None = Field(
        default=None, description="Asynchronous runs: how far the sampler may run ahead, as the "
                                  "samples it may start beyond a weight sync's, a share of them "
                                  "(verl's `async_training.staleness_threshold`; 0: none), unit "
                                  "`ratio`; default: unbounded (sampling and training overlap "
                                  "fully).")
    sync_updates: Annotated[Figure, COUNT] | None = Field(
        default=None, description="Asynchronous runs: trainer updates between weight syncs, "
                                  "the step's prompts split evenly (verl's "
                                  "`trigger_parameter_sync_step`), unit `count`; default: 1.")
    epochs: Annotated[Figure, COUNT] | None = Field(
        default=None, description="Passes the learner makes over each step's rollouts (PPO "
                                  "epochs: verl's `ppo_epochs`, OpenRLHF's `max_epochs`, "
                                  "open-instruct's `num_epochs`, TRL's `num_iterations`), unit "
                                  "`count`; default: 1. The update (and a critic's) runs this "
                                  "many times; the old-policy and reference log-probs once.")
    optimizer_steps: Annotated[Figure, COUNT] | None = Field(
        default=None, description="Optimizer steps the learner takes in one priced step: the "
                                  "step's prompts over the mini-batch, times the epochs over "
                                  "them (verl's `ppo_mini_batch_size` and `ppo_epochs`, "
                                  "OpenRLHF's `train_batch_size` and `max_epochs`), unit "
                                  "`count`; default: 1. It multiplies a CPU optimizer's "
                                  "host-memory step and link crossings.")
    gpus: Annotated[Figure, GPUS] = Field(description="GPUs of the stage, unit `gpus`.")


class Setting(StrEnum):
    """A stage setting a ``Reading`` may give another value of (the numbers the estimate reads)."""

    steps = "steps"
    prompts = "prompts"
    group = "group"
    prompt_tokens = "prompt_tokens"
    mean_completion_tokens = "mean_completion_tokens"
    max_completion_tokens = "max_completion_tokens"
    turns = "turns"
    gpus = "gpus"
    rollout_gpus = "rollout_gpus"


class Reading(StrictModel):
    """Another value of one setting that the source's words also support."""

    stage: int = Field(default=1, ge=1, le=100, description="The stage it replaces a setting "
                                                            "of, counted from 1.")
    setting: Setting = Field(description="The stage's setting, e.g. `prompts`.")
    value: Annotated[Figure, FigureRange(ge=0, le=1e9, hint="the setting's value under this "
                                                            "reading (allowed 0 to 1e9)")] = Field(
        description="The value under this reading, in the setting's unit, with its locator.")
    why: Prose = Field(description="Why the source reads both ways.")


class PublishedRun(StrictModel):
    """A published RL run with its settings, stack, GPUs and the resources it used."""

    id: Id = Field(description="Equal to the file name without `.yaml`.",
                   examples=["oat-zero-7b"])
    name: ShortText = Field(description="The run as its authors name it.")
    model: Id = Field(description="The trained model (catalog/models/).")
    algorithm: Id = Field(description="The RL algorithm (catalog/algorithms/).")
    hardware: Id = Field(description="The GPU (catalog/hardware/).")
    actual_covers: ActualCovers = Field(
        default=ActualCovers.run, description="What `actual_gpu_hours` times: `run` (the run's "
                                              "wall-clock) or `steps` (training steps only: "
                                              "the estimate then adds no evaluation, "
                                              "checkpoints or restarts).")
    hardware_assumed: Prose | None = Field(
        default=None, description="Set only when the source does not name the GPU: what it "
                                  "says instead and why the entry takes `hardware`, which is "
                                  "then the entry's assumption (listed with the assumed "
                                  "settings).")
    framework: ShortText = Field(description="The training stack, e.g. 'verl 0.1 + vLLM'.")
    mode: RunMode = Field(description="`sync` or `async` (sampling overlaps training).")
    colocated: bool = Field(description="True if sampling and training share the same GPUs.")
    cuda_graphs: bool = Field(
        default=True, description="False if the sampler decodes without CUDA graphs (vLLM's "
                                  "`enforce_eager`): every layer's kernels are launched one by "
                                  "one each decode iteration.")
    whole_batch_rollout: bool = Field(
        default=False, description="Asynchronous runs: True if the sampler generates each step's "
                                   "batch in one call that returns with its longest completion "
                                   "(one step off-policy), so the step waits for the tail; False "
                                   "if completions stream to the trainer.")
    rollout_log_probs: bool = Field(
        default=False, description="True if the trainer takes the sampler's log-probs as the "
                                   "old policy's (verl's `async_training.use_rollout_log_probs`), "
                                   "so it runs no old-policy log-prob pass of its own.")
    sequential_batches: bool = Field(
        default=False, description="True if each sampler engine generates its share of a step "
                                   "in sequential batches of its `max_num_seqs`, each returning "
                                   "with its longest completion (no continuous batching; e.g. "
                                   "NeMo-Aligner's TensorRT-LLM rollout loop); say where in "
                                   "`notes`.")
    padded_batches: bool = Field(
        default=False, description="True if the sampler keeps decoding a batch's finished "
                                   "sequences (as padding) until its longest ends, so the "
                                   "batch's last iterations cost a full batch's (Hugging "
                                   "Face `generate`, also DeepSpeed-Chat's Hybrid Engine); "
                                   "with `sequential_batches`; say where in `notes`.")
    padded_training: bool = Field(
        default=False, description="True if the learner trains on every completion padded to "
                                   "the completion cap (its update, old-policy and reference "
                                   "passes run over prompt + cap tokens a sequence: "
                                   "open-instruct's grpo_vllm_thread_ray_gtrl.py pads each "
                                   "response to `response_length`); say where in `notes`.")
    prefix_cache: bool = Field(
        default=True, description="False if the sampler does not keep an episode's history "
                                  "between its turns (evicted while the agent waits on its "
                                  "tool: KV cache thrashing), so every turn prefills its whole "
                                  "history again; multi-turn runs; say where in `notes`.")
    hf_dynamic_cache: bool = Field(
        default=False, description="True if the sampler is Hugging Face `generate` over its "
                                   "DynamicCache with flash-attention-2 on a padded batch "
                                   "(transformers 4.36-4.38): every decode step copies each "
                                   "sequence's KV cache three times besides reading it and "
                                   "waits for the host in every layer; say where in `notes`.")
    expert_loop: bool = Field(
        default=False, description="True if the learner runs a mixture of experts' experts one "
                                   "by one (Hugging Face transformers before 5.0 under FSDP or "
                                   "DeepSpeed), not as one grouped GEMM (Megatron); say where "
                                   "in `notes`.")
    eval_all_experts: bool = Field(
        default=False, description="True if the learner's log-prob passes (old policy, "
                                   "reference) run every expert on every token: Hugging Face "
                                   "transformers' Qwen3-VL-MoE experts in eval mode (4.57), "
                                   "which the stack's log-prob pass sets (`model.eval()`); say "
                                   "where in `notes`.")
    fused_expert_grads: bool = Field(
        default=False, description="True if the learner's experts are one fused 3D parameter "
                                   "indexed per expert in training (Hugging Face transformers' "
                                   "Qwen3-VL-MoE, 4.57); say where in `notes`. A statement "
                                   "of the stack only: since 2026-12-07 the time model charges "
                                   "nothing for it (EasyR1's measured actor MFU leaves no room "
                                   "for whole-parameter gradient passes per expert).")
    cpu_offload: list[Offloaded] = Field(
        default_factory=list, description="What the learner offloads to host memory: "
                                          "`optimizer`, `params`, `grads`.")
    recompute: Recompute = Field(
        default=Recompute.full, description="What the learner recomputes in the backward pass "
                                            "(`full`: the layers' forward again, `selective`: "
                                            "attention's core only, `none`); say where in "
                                            "`notes`.")
    lora: bool = Field(default=False, description="True if only a LoRA adapter is trained.")
    reference: bool = Field(
        default=False, description="True if a frozen reference model scores every trajectory "
                                   "(a KL term).")
    critic_model: Id | None = Field(
        default=None, description="The value network's model (catalog/models/) where the source "
                                  "names it (say where in `notes`); absent, the estimate takes "
                                  "it as large as the policy.")
    reward_model: Id | None = Field(
        default=None, description="The reward (scoring) network's model (catalog/models/) where "
                                  "the source names it (say where in `notes`); absent, the "
                                  "estimate takes it as large as the policy.")
    reward_model_scored: bool | None = Field(
        default=None, description="False if the reward is a rule or verifier (no reward model "
                                  "in memory or time), True if a learned reward model scores "
                                  "every completion; absent, the algorithm's default. Say "
                                  "where in `notes`.")
    stages: list[RunStage] = Field(min_length=1, description="The run's stages, in order.")
    actual_gpu_hours: Annotated[Figure, GPU_HOURS] = Field(
        description="GPU-hours the whole run used (GPUs × wall-clock hours), unit `gpu_hours`.")
    readings: list[Reading] = Field(
        default_factory=list, description="Other readings of settings the source states "
                                          "ambiguously; a run with any is priced under each and "
                                          "not scored.")
    notes: Prose | None = Field(default=None, description="Anything a reader should know.")
