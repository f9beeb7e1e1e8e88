"""The run's wall-clock and GPU-hours from physics (pipeline step 5, the time model).

Quantities of the graph ``model.build`` assembles, written once per GPU: ``quantities("time",
"hw")`` for the chosen GPU, and ``derived/calculator/waysgraph.py`` writes the same for every
catalog GPU (``ways.<slot>.time``, over ``gpus.<slot>``). One optimiser step is timed, then
multiplied by the steps:

- **GPUs.** The reader's ``gpus``, else the fewest that hold the run's peak memory and a
  sampler's weights (``sampler_fit``; unknown, and every time with it, for a model without
  architecture figures); sampling uses all of them (colocated) unless ``rg`` gives it its own.
- **Decode** is bound by memory traffic. A sampler replica (engine) spans ``tp`` GPUs: the
  reader's ``rtp`` (a run's ``rollout_tp``), else the fewest whose memory holds the weights in
  ``WEIGHT_SHARE`` of it, at most the sampling GPUs (an engine with no room left after the
  weights is not priced: ``sampler_fit``). Its batch is what its memory leaves for the KV cache
  (``MEMORY_UTILISATION`` of it, or the run's ``gpu_memory_utilization``, ``mu``, less the
  weights; a latent (MLA) cache is held whole by every tensor-parallel GPU of the engine, one
  per layer rather than per head: the TPLA paper, Tang et al. 2025, arXiv 2508.15881, abstract,
  "each device must load the full cache"; an engine that splits attention over fewer GPUs,
  ``atp``, a run's ``attention_tp``, holds that many copies) at the context a live sequence
  holds: the prompt and a whole reply, and in a multi-turn episode the history averaged over
  its turns (C0 + Δ(T−1)/2 + the reply: each turn is a request of its own, whose blocks the
  engine allocates as it decodes and frees when the turn ends, vLLM's PagedAttention, Kwon et
  al., arXiv 2309.06180, §4; an agent scheduler that keeps a program's cache through its tool
  calls holds the same average over the program's life), at most the sequences it is given
  and at most the engine's cap on concurrent sequences (``seqs``, a run's ``max_num_seqs``,
  else vLLM's default ``MAX_NUM_SEQS``). Each
  decode iteration reads the weights (the experts a batch touches, for MoE), every live
  sequence's KV cache and, for a hybrid model whose entry gives ``fixed_state_size``, reads and
  writes its recurrent state (``roles_time.fixed_state``; it shares the KV room) at
  ``BANDWIDTH_EFFICIENCY`` of peak bandwidth, or is compute-bound (at
  ``DECODE_MFU`` of the peak, realised as training's utilisation is: over 1 +
  ``TRAIN_BYTES_PER_FLOP`` × peak ÷ bandwidth, ``roles_time.bandwidth_share``), and
  lasts at least the engine's floor (its scheduling, sampling and output processing with CUDA
  graphs, which visit every live sequence: ``TAIL_FLOOR`` for one sequence, growing in
  proportion to the batch to ``DECODE_FLOOR`` at a full one, ``MAX_NUM_SEQS``; the full
  ``DECODE_FLOOR`` at any batch for a sampler that pads, ``pb``) plus ``GRAPH_LAYER_S`` a
  layer (a layer's kernels last a few
  microseconds each even at the smallest batch, so a deep model's floor is longer than a
  shallow one's), plus ``EAGER_LAYER_S`` a layer when the engine decodes
  without CUDA graphs (``eager``, a run's ``cuda_graphs: false``): its kernels are then
  launched one by one. A synchronous step runs until its longest completion: the iterations
  are the mean length's waves (one wave when the batch holds every sequence) of
  every turn, plus the cap's tail once: the longest episode's excess over the mean, which
  decodes nearly alone (each tail iteration reads the weights and one sequence's cache, and
  lasts at least ``TAIL_FLOOR``, the engine's fixed work without a batch's, plus the same
  per-layer time). A sampler
  without continuous batching (``sb``, a run's ``sequential_batches``) generates its share in
  sequential rounds of its batch, each returning with its longest completion: every round
  pays the mean length and the tail (NeMo-Aligner's PPO, nemo_aligner/algorithms/ppo.py
  ``_run_inference``: ``self.model.infer(batch)`` for one micro-batch after another). A
  sampler that keeps decoding a round's finished sequences as padding (``pb``, a run's
  ``padded_batches``: Hugging Face ``generate`` gives a finished row the pad token and keeps it
  in the batch; OpenRLHF's actor.py ``process_sequences`` at dbdd43b receives every row at the
  round's longest length) pays a full batch's iteration for the tail, not a lone sequence's. A
  sampler that is Hugging Face ``generate`` over its DynamicCache with flash-attention-2 on a
  padded batch (``hc``, a run's ``hf_dynamic_cache``; transformers 4.38.2) moves each live
  sequence's cache ``HF_CACHE_PASSES`` more times a step (``torch.cat`` into a new tensor, the
  reshape of its transpose and the unpadding gather, each a read and a write), and waits for the
  host in every layer (``torch.nonzero`` and ``.item()`` in ``_get_unpad_data``), so the CPU
  cannot queue kernels ahead of the GPU: its floor and the GPU's work add
  (``_host_synced``) instead of the longer of the two. The
  tail runs to the cap, not to the expected longest of the step's N draws: tried on the 78
  published runs of 2026-12-07 with the flat floors before ``GRAPH_LAYER_S`` (exponential
  lengths, longest = mean × (ln N + 0.577); log-normal, mean × exp(s √(2 ln N) - s²/2)),
  every such law fitted worse than the cap (sum of squared log
  ratios 24.32 at the cap; exponential 25.67; log-normal s = 0.6: 25.59, 1.0: 24.58, 1.5:
  24.32), the four NeMo-Aligner rounds of about 11 sequences falling to 0.5x; ScaleRL's 8B
  truncated 5-7% of its completions (arXiv 2510.13786, A.15), so a step of thousands reaches
  the cap. Whatever the law, a round (or step) of one sequence (``alone``: a sampler that
  decodes one completion at a time, R1-V's ``generate`` with ``num_return_sequences = 1``) is
  its own longest: it ends at the mean, with no tail (R1-V 12.2x to 1.6x; the exponential law
  for every static round instead, min(cap, mean × H(batch)), also takes NeMo-Aligner's rounds
  of 8 to 0.52-0.69x, against 0.89-1.41x at the cap). verl's one-step-off page (20,480
  against 8,192 tokens, 247 against 162 s of generation) suggests its longest completion
  stopped short of the 20K cap, not yet priced. An
  asynchronous run (``async``) overlaps the tail (unless its sampler hands over whole
  batches, ``wb``, a run's ``whole_batch_rollout``: then the step waits for it), the
  training and the trainer's refit and fixed work with the next step's sampling: its step
  lasts the longer of the two, unless the run bounds how far the sampler may run ahead
  (``st``, a run's ``staleness``, with ``su``, its ``sync_updates``: ``staleness.async_step``).
- **Prefill** at the prefill utilisation; **environment** time per turn (``env``) is waited for.
- **Training** FLOPs are the catalog formula's per token plus attention's, which grow with the
  trained sequence (6 × attending layers × heads × head size × tokens, per token, causal; a
  hybrid's linear-attention or Mamba layers are not attending layers). The trained sequence
  (``train_sequence``) is the episode's, its completion padded to the cap for a learner that
  pads (``pt``, a run's ``padded_training``). With full
  recomputation (``ac`` 2, the default; a run's ``recompute``: Megatron's default in verl is
  none) one more forward. Old-policy log-probs (one forward, in the training line;
  none when the trainer takes the sampler's, ``rlp``, a run's ``rollout_log_probs``) and
  every frozen scorer (reference, teacher, reward model) and a critic add their passes.
  Training utilisation grows with model size, ``train_mfu_max`` × N / (N +
  ``train_half_params``), and a mixture of experts reaches ``MOE_TRAIN_FACTOR`` of it
  (NVIDIA's measured pre-training throughput of MoE and dense models on the same GPUs), and
  ``EXPERT_LOOP_FACTOR`` of that when the learner runs the experts one at a time (``el``, a
  run's ``expert_loop``: Hugging Face transformers before 5.0; ms-swift's measured Megatron
  against DeepSpeed timing). The rule is ``roles_time.train_mfu``. ``TRAIN_MFU_MAX`` is the
  ceiling where bandwidth is plentiful; a GPU realises it less the more FLOPs its peak has per
  byte of bandwidth: a step is a compute term at the peak and a memory-traffic term
  (``TRAIN_BYTES_PER_FLOP`` × FLOPs ÷ utilisation bytes) at the bandwidth, so the utilisation
  is divided by 1 + ``TRAIN_BYTES_PER_FLOP`` × peak ÷ bandwidth (``roles_time.on_gpu``; 0.44
  on an H100, 0.80 on an H20, whose 148 TFLOPS meet 4.0 TB/s). The reader's ``mt`` is taken as
  realised. A mixture of experts' learner also waits for the host at every MoE layer of every
  forward pass (the update's, its recomputation, the old-policy log-probs' and the reference's),
  ``MOE_SYNC_S`` each micro-batch (a copy of the model's tokens over ``mbt``, a run's
  ``micro_batch_tokens``, else one sequence a micro-batch, for the layers a GPU's pipeline
  stage holds; ``learner_split``): Megatron's
  dropless all-to-all dispatcher copies each layer's token counts to the CPU and synchronises the
  stream before the exchange (``token_dispatcher.py``), and the GPU idles while the CPU launches
  the layer's next kernels; added to the training seconds, none for a dense model, a learner that
  loops over the experts (``el``: its measured factor holds its own waits) or a stated training
  utilisation (``mt``: a measured one does). A learner split into ``pp`` pipeline stages (a
  run's ``pipeline_parallel``) waits the pipeline's fill and drain in every pass, (pp - 1) ÷ the
  micro-batches one copy of the model runs, on its training and reference seconds (Narayanan et
  al. 2021, arXiv 2104.04473, §2.2.1; ``learner_split``). Hugging Face transformers' fused experts
  (Qwen3-VL-MoE, 4.57; ``roles_time.hf_experts``): a learner whose log-prob passes run in eval
  mode (``ae``, a run's ``eval_all_experts``) multiplies every token by every expert, so the
  old-policy and reference passes are a forward over all the parameters at a dense model's
  utilisation. Training's per-expert indexing of the fused parameters is not charged (EasyR1's
  measured actor MFU leaves no room for whole-parameter gradient passes per expert).
- **CPU offload** (``oo``, ``op``, ``og``; a run's ``cpu_offload``): each training GPU's
  shard of the weights crosses its PCIe link (``HOST_LINK_GB_S``) for what is offloaded, and a
  CPU optimizer streams the shard's Adam state (``CPU_ADAM_BYTES`` a parameter) through host
  memory (``HOST_MEMORY_GB_S`` a GPU); the stacks do it between phases, so it adds to the step.
  A CPU optimizer's stream and its gradient and weight crossings, and the GPU optimizer's step,
  recur at every optimizer step: ``ost`` (a run's ``optimizer_steps``) a step
  (``roles_time.offload``).
- **Refit**: the new weights reach the sampler at ``REFIT_GB_S``; the optimizer step and a
  colocated sampler's wake-up are timed from physics (``roles_time.step_work``); every step
  also pays ``STEP_SECONDS`` of remaining fixed work, and the run ``RUN_OVERHEAD`` more for
  evaluation, checkpoints and restarts (``ro``, a reader's share; 0 prices the steps alone).
- A measured throughput (``tps``, tokens per second per sampling GPU from a pilot run) replaces
  the decode physics.

Every constant is physics, a framework default, or fitted on the published runs of
``catalog/runs/`` (``backtest.py``; ``benchmarks/bench_backtest.py`` prints the fit), and the
Back-test page lists them with their basis.
"""

from __future__ import annotations

from tinkernomics.derived.calculator import (
    ids,
    learner_split,
    roles_time,
    sampler_fit,
    staleness,
)
from tinkernomics.derived.calculator.graph import Quantity
from tinkernomics.derived.calculator.time_constants import (  # noqa: F401 (re-exported)
    CONSTANTS,
    FITTED,
    Constant,
)

USES = {"decode_flops": (f"formula:{ids.FLOPS_ROLLOUT}",),
        "prefill_s": (f"formula:{ids.FLOPS_ROLLOUT}",)}
"""Decode and prefill count 2 FLOPs a parameter a token: the catalog's rollout formula.
The constants (``CONSTANTS``, ``FITTED``) live in ``time_constants``."""


def constant_quantities() -> list[Quantity]:
    """The constants as graph quantities (shared by every GPU's time model)."""
    return [Quantity(f"const.time.{c.key}", repr(float(c.value)), format="number", label=c.label,
                     shown=False) for c in CONSTANTS]


def _names(p: str, hw: str) -> dict[str, str]:
    return {"p": p, "hw": hw, "mem": f"{hw}.memory_gb * 1e9",
            "cap": "tokens.completion_cap", "c": "const.time"}


def _gpus(p: str, hw: str) -> list[tuple[str, str]]:
    n = _names(p, hw)
    return [
        ("weights", "p.total * 2.0"),
        ("mem_util", f"coalesce(set.mem_util, {n['c']}.memory_utilisation)"),
        *learner_split.split(p),
        ("gpus", f"coalesce(set.gpus, max(ceil(mem.peak / ({n['mem']})), run.online * "
                 f"{sampler_fit.engine_gpus(p, n['mem'])}, {p}.model_split + "
                 "coalesce(set.rollout_gpus, 0.0)))"),
        ("cap", n["cap"]),
        ("rollout_gpus", f"min(coalesce(set.rollout_gpus, {p}.gpus), {p}.gpus)"),
        ("train_gpus", f"{p}.gpus - coalesce(set.rollout_gpus, 0.0) if "
                       f"{p}.gpus - coalesce(set.rollout_gpus, 0.0) >= 1 else {p}.gpus"),
    ]


def _tail_iteration(p: str, hw: str, c: str, held: str, kv: str) -> str:
    """The tail: the longest completion decoding past the mean, almost alone in its engine
    (its cache, and its fixed state read and written, ``roles_time.fixed_state``)."""
    return (f"max({c}.tail_floor + coalesce(model.layers, 0.0) * ({c}.graph_layer_s + "
            f"run.eager * {c}.eager_layer_s), coalesce((2.0 * p.active + {held} * {kv} * "
            f"{p}.kv_copies + {roles_time.fixed_state('1.0')}) / ({p}.tp * {hw}.bandwidth * 1e12 * "
            f"{c}.bandwidth_efficiency), 0.0), 2.0 * p.active / ({p}.tp * "
            f"{hw}.tflops * 1e12 * {c}.decode_mfu) * {roles_time.bandwidth_share(hw)})")


def _longest(p: str, cap: str) -> list[tuple[str, str]]:
    """The iterations a step decodes past the mean: a round (static batches) or a step
    (continuous) of one sequence ends when that sequence does, at the mean; one of several
    waits for its longest, taken at the cap (every round, under static batches)."""
    return [("alone", f"({p}.batch if run.static_batches else {p}.sequences) <= 1.0"),
            ("longest_iterations", f"0.0 if {p}.alone else ({p}.rounds if run.static_batches "
                                   f"else 1.0) * ({cap} - run.out)")]


def _engine_floor(p: str, c: str) -> str:
    """The engine's own work an iteration besides its layers: a continuous-batching engine
    schedules, samples and processes the output of every live sequence each iteration, so its
    floor grows from ``TAIL_FLOOR`` (one sequence) to ``DECODE_FLOOR`` at a full batch
    (``MAX_NUM_SEQS``, vLLM's default cap, the batch the fitted floor describes) in proportion to
    the sequences it decodes; a sampler that keeps finished rows as padding (``pb``: Hugging
    Face ``generate``) pays the full-batch floor whatever its batch."""
    return (f"({c}.decode_floor if run.padded_batches else {c}.tail_floor + ({c}.decode_floor - "
            f"{c}.tail_floor) * min(1.0, {p}.batch / {c}.max_num_seqs))")


def _padded_tail(p: str, alone: str) -> str:
    """A sampler that keeps decoding a batch's finished sequences as padding (``pb``, a run's
    ``padded_batches``: Hugging Face ``generate``) pays a full batch's iteration to the end."""
    return f"{p}.iteration_s if run.padded_batches else {alone}"


def _hf_cache_bytes(p: str) -> str:
    """Hugging Face ``generate`` over its DynamicCache with flash-attention-2 on a padded batch
    (``hc``, a run's ``hf_dynamic_cache``): each decode step copies every live sequence's KV
    cache three times (``torch.cat`` into a new tensor, the reshape of its transpose, the
    unpadding gather), each a read and a write, besides the attention's read:
    ``HF_CACHE_PASSES`` more passes over the cache."""
    return (f" + run.hf_cache * const.time.hf_cache_passes * {p}.batch * (run.C0 + run.delta * "
            f"(run.T - 1) / 2.0 + run.out / 2.0) * coalesce(mem.kv_per_token, 0.0) * "
            f"{p}.kv_copies")


def _host_synced(p: str, gpu_terms: str) -> str:
    """An iteration: the engine's launch floor or the GPU's work (memory or compute), whichever
    is longer, as the CPU queues kernels ahead of the GPU; a sampler that waits for the host in
    every layer (``hc``: flash-attention-2's unpadding calls ``torch.nonzero`` and ``.item()``)
    cannot queue ahead, so the floor and the GPU's work add."""
    return (f"{p}.floor_s + max({gpu_terms}) if run.hf_cache else "
            f"max({p}.floor_s, {gpu_terms})")


def _cache_bytes(p: str, ctx: str, kv: str) -> str:
    """What a decode iteration reads of its batch's caches: every live sequence's KV cache at
    the mean context ``ctx``, and its fixed state read and written (``roles_time.fixed_state``)."""
    return f"{roles_time.fixed_state(f'{p}.batch')} + {p}.batch * {ctx} * {kv} * {p}.kv_copies"


def _decode(p: str, hw: str) -> list[tuple[str, str]]:
    n = _names(p, hw)
    c, cap = n["c"], n["cap"]
    held = "(run.C0 + run.delta * (run.T - 1) / 2.0 + run.out)"
    ctx = "(run.C0 + run.delta * (run.T - 1) / 2.0 + run.out / 2.0)"
    # a model whose KV cache per token is unknown (no architecture figures) has no decode
    # batch, bytes or tail: the decode time is missing unless a measured throughput is given
    kv, state = "mem.kv_per_token", "coalesce(mem.state_per_sequence, 0.0)"
    # the reader's decode utilisation is the chosen GPU's (another GPU's run clears it)
    mfu_decode = "set.mfu_decode" if hw == "hw" else "missing(set.mfu_decode) * 0.0 / 0.0"
    return [
        ("tp", sampler_fit.tp(p, c, n["mem"])),
        ("seq_cap", f"coalesce(set.max_seqs, {c}.max_num_seqs)"),
        ("replicas", f"max(1.0, {p}.rollout_gpus / {p}.tp)"),
        ("sequences", "run.prompts * run.G * rollout.oversample"),
        ("per_replica", f"{p}.sequences / {p}.replicas"),
        ("kv_room", f"max(0.0, {p}.mem_util * {p}.tp * {n['mem']} - {p}.weights)"),
        # a latent (MLA) cache is one per layer, not per head: every tensor-parallel GPU holds it
        ("kv_copies", f"coalesce(model.kv_latent * 0.0 + min({p}.tp, coalesce("
                      f"set.attention_tp, {p}.tp)), 1.0)"),
        ("batch", f"max(1.0, min({p}.per_replica, {p}.seq_cap, {p}.kv_room / ({kv} * {held} * "
                  f"{p}.kv_copies + {state}))) if {kv} * {held} > 0 else max(1.0, min("
                  f"{p}.per_replica, const.decode_sequences))"),
        ("iteration_bytes", f"2.0 * min(p.total, {p}.batch * p.active) + "
                            f"{_cache_bytes(p, ctx, kv)}{_hf_cache_bytes(p)}"),
        # a GPU without a bandwidth figure is timed by its floor and compute alone
        ("floor_s", f"{_engine_floor(p, c)} + coalesce(model.layers, 0.0) * ("
                    f"{c}.graph_layer_s + run.eager * {c}.eager_layer_s)"),
        ("iteration_s", _host_synced(p, f"coalesce({p}.iteration_bytes / ({p}.tp * "
                        f"{hw}.bandwidth * 1e12 * {c}.bandwidth_efficiency), 0.0), 2.0 * "
                        f"p.active * {p}.batch / ({p}.tp * {hw}.tflops * 1e12 * "
                        f"{c}.decode_mfu) * {roles_time.bandwidth_share(hw)}")),
        ("tail_iteration_s", _padded_tail(p, _tail_iteration(p, hw, c, held, kv))),
        ("waves", f"{p}.per_replica * run.out / {p}.batch"),
        ("rounds", f"ceil({p}.per_replica / {p}.batch - 1e-9)"),
        *_longest(p, cap),
        ("tail_iterations", f"0.0 if run.asynchronous * (1.0 - run.whole_batch) else "
                            f"{p}.longest_iterations"),
        ("iterations", f"run.T * {p}.waves if run.asynchronous * (1.0 - run.whole_batch) else "
                       f"run.T * ({p}.rounds * run.out if run.static_batches else "
                       f"max(run.out, {p}.waves)) + {p}.tail_iterations"),
        ("decode_flops", "run.prompts * run.G * rollout.oversample * run.T * run.out * 2.0 * "
                         "p.active"),
        ("decode_s", f"coalesce({p}.decode_flops / ({p}.rollout_gpus * {hw}.tflops * 1e12 * "
                     f"{mfu_decode} / 100.0), run.prompts * run.G * rollout.oversample * "
                     f"run.T * run.out / ({p}.rollout_gpus * set.tps), "
                     f"({p}.iterations - {p}.tail_iterations) * {p}.iteration_s + "
                     f"{p}.tail_iterations * {p}.tail_iteration_s)"),
    ]


def _other_phases(p: str, hw: str) -> list[tuple[str, str]]:
    c = "const.time"
    seq = f"{p}.train_sequence"
    attention = f"(6.0 * {roles_time.layers_width('model')} * {seq})"
    forward = f"(2.0 * (p.active + {roles_time.duplicated()}) + {attention} / 3.0)"
    train_tokens = f"run.prompts * run.G * {seq}"
    recompute = "(4.0 / 3.0 if run.ac == 2 else 1.0)"
    peak = f"{hw}.tflops * 1e12 * {p}.mfu_train"
    return [
        ("prefill_s", "run.prompts * run.G * rollout.oversample * (tokens.prefill_per_episode - "
                      f"tokens.cached_per_episode) * 2.0 * p.active / ({p}.rollout_gpus * "
                      f"{hw}.tflops * 1e12 * mfu.prefill)"),
        ("env_s", "run.T * run.env_s"),
        ("train_sequence", "tokens.train_sequence_per_episode"),
        ("mfu_train", roles_time.on_gpu(roles_time.train_mfu("p.total", "p.active"), hw)),
        *learner_split.quantities(p, train_tokens),
        *roles_time.hf_experts(p, hw, train_tokens, attention),
        ("train_s", f"({train_tokens} * (run.K * (train.flops_per_token + {attention} + 6.0 * "
                    f"{roles_time.duplicated()}) * {recompute} + {forward} * (1.0 - "
                    f"run.rollout_logprobs) * (1.0 - run.eval_all_experts)) / ({p}.train_gpus * "
                    f"{peak}) + {p}.moe_sync_s + run.eval_all_experts * (1.0 - "
                    f"run.rollout_logprobs) * {p}.eval_forward_s) * {p}.bubble"),
        *((name, roles_time.on_gpu(mfu, hw)) for name, mfu in roles_time.sized_mfu(p)),
        ("critic_s", f"{train_tokens} * run.K * (train.flops_per_token * p.critic_active / "
                     f"p.active + {roles_time.attention('critic', seq)}) * {recompute} / ("
                     f"{p}.train_gpus * {hw}.tflops * 1e12 * {p}.mfu_critic) if role.critic "
                     "else 0.0"),
        ("reference_s", f"({p}.eval_forward_s if run.eval_all_experts else {train_tokens} * "
                        f"{forward} / ({p}.train_gpus * {peak})) * {p}.bubble if role.reference "
                        "else 0.0"),
        ("teacher_s", f"{train_tokens} * 2.0 * p.teacher_active / ({p}.train_gpus * {peak}) "
                      "if role.teacher else 0.0"),
        ("reward_model_s", f"{train_tokens} * (2.0 * p.reward_active + "
                           f"{roles_time.attention('reward', seq)} / 3.0) / ({p}.train_gpus * "
                           f"{hw}.tflops * 1e12 * {p}.mfu_reward) if role.reward_model else 0.0"),
        *roles_time.offload(p),
        *roles_time.step_work(p, hw),
        ("refit_s", f"{p}.weights / ({c}.refit_gb_s * 1e9) + {p}.optimizer_s + {p}.wake_s + "
                    f"{c}.step_seconds + {p}.offload_s"),
    ]


def _totals(p: str) -> list[tuple[str, str]]:
    rollout = f"({p}.decode_s + {p}.prefill_s + {p}.env_s)"
    learn = (f"({p}.train_s + {p}.critic_s + {p}.reference_s + {p}.teacher_s + "
             f"{p}.reward_model_s)")
    refit = f"{p}.refit_s"
    return [
        ("short", sampler_fit.short(p)),
        ("rollout_s", rollout),
        ("learn_s", learn),
        ("version_tail_s", staleness.version_tail_s(p)),
        ("step_s", sampler_fit.gated(p, f"({staleness.async_step(p, rollout, learn, refit)}) "
                                        f"if run.asynchronous else {rollout} + {learn} + {refit}")),
        ("busy_s", f"{rollout} + {learn} + {refit}"),
        ("run_overhead", "coalesce(set.run_overhead / 100.0, const.time.run_overhead)"),
        ("run_overhead_s", f"{p}.run_overhead * {p}.busy_s"),
        ("steps_hours", f"run.steps * {p}.step_s / 3600.0"),
        ("hours", f"{p}.steps_hours * (1.0 + {p}.run_overhead)"),
        ("gpu_hours", f"{p}.hours * {p}.gpus"),
    ]


PHASE_SECONDS = {
    "prefill": "prefill_s", "decode": "decode_s", "environment": "env_s", "train": "train_s",
    "critic": "critic_s", "reference": "reference_s", "teacher": "teacher_s",
    "reward_model": "reward_model_s", "overhead": "refit_s", "run_overhead": "run_overhead_s",
}
"""Each compute line (``model.compute_lines``) and the seconds of a step it takes."""


def share(p: str, seconds: str) -> str:
    """GPU-hours of one phase: the steps' GPU-hours (``steps_hours``: the run's without the
    evaluation, checkpoint and restart overhead) × the phase's share of the busy time (an
    asynchronous step overlaps phases, so shares split the overlapped step). The overhead is a
    phase of its own (``run_overhead_s``: that fraction of the busy time), so no phase's
    utilisation counts it."""
    return f"{p}.steps_hours * {p}.gpus * {p}.{seconds} / {p}.busy_s"


def quantities(p: str = "time", hw: str = "hw", shown: bool = True) -> list[Quantity]:
    """The time model over the GPU inputs ``hw`` (``hw.tflops``...), keys ``<p>.<name>``."""
    labels = {"gpus": "GPUs", "hours": "Wall-clock hours", "gpu_hours": "GPU-hours (time model)",
              "step_s": "Seconds per step", "batch": "Sequences decoded at once per sampler",
              "tp": "GPUs per sampler (tensor parallel)",
              "seq_cap": "Sequences a sampler decodes at once, at most",
              "floor_s": "Shortest decode iteration, seconds", "mfu_train": "Training utilisation",
              "bubble": "Learner's passes with the pipeline bubble, × their work"}
    found = []
    for name, expression in (_gpus(p, hw) + _decode(p, hw) + _other_phases(p, hw)
                             + _totals(p)):
        fmt = "hours" if name in ("hours", "gpu_hours") else "number"
        fmt = "percent" if name == "mfu_train" else fmt
        found.append(Quantity(f"{p}.{name}", expression, format=fmt, label=labels.get(name, name),
                              uses=USES.get(name, ()), shown=shown and name in labels))
    found += sampler_fit.quantities(p, _names(p, hw)["mem"])
    if p == "time":
        found.append(Quantity("wall_clock_hours", "time.hours", format="hours",
        label="Wall-clock hours"))
    return found
