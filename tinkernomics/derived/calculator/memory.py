"""The run model's memory, from the run's shape, per role and per phase (pipeline step 5).

Quantities of the graph ``model.build`` assembles, in bytes (decimal GB on the page):

- weights per role at bf16 (2 bytes a parameter): the policy; a reference only when the
  algorithm holds one (its KL term, or the reader's ``ref``) and, under LoRA, only when the
  reader asks for a separate copy (``rc``): by default the reference is the base with the
  adapter switched off; a teacher at its own size; a reward model at its own size where the
  link names it (``rm``, a run's ``reward_model``), else taken as large as the policy (a critic
  likewise: ``cm``);
- trainable state: LoRA adapter parameters from the rank and the trained modules (every linear
  layer of attention and MLP, each expert's MLP in a MoE; LoRA Without Regret) or, under full
  fine-tuning, every parameter; weights 2 + gradients 2 + fp32 master and Adam moments 12 bytes
  a trainable parameter (mixed-precision Adam, zero_rajbhandari: 16 bytes a parameter);
- KV cache: 2 × layers × KV heads × head size × 2 bytes per token, times the tokens held by the
  sequences the sizing reserves room for: ``const.decode_sequences`` on every GPU that
  decodes (each of the reader's GPUs holds its own KV pool; one pool when the reader gives no
  GPU count, so the memory does not hang on the GPU it is sized for), or the step's rollouts
  when fewer. This is room reserved, not the decode batch: the time model's sampler decodes
  as many sequences as its free memory holds (``time.batch``). Multi-head latent attention
  caches one latent per layer and token (layers × latent width × 2 bytes).
  Only the layers that keep a per-token cache count: a hybrid model's full-attention layers
  (``kv_layers``), not its linear attention or Mamba layers, whose fixed per-sequence state
  is counted where the model gives its size (``fixed_state_size``: layers × size ×
  ``STATE_BYTES`` a sequence, ``mem.state_per_sequence``) and else not
  (``mem.uncounted_layers``, shown as approximate); a sliding-window layer
  holds at most its window of each sequence (``mem.kv_window``);
- activations of one micro-batch (korthikanti_activations): per layer 34·s·b·h bytes without
  recomputation (the formula's 5·a·s²·b attention-score term is not stored under flash
  attention) and with selective recomputation, 2·s·b·h with full recomputation (only each
  layer's input kept); plus the fp32 logits of one chunk of the loss, vocabulary × b ×
  min(s, ``LOGIT_CHUNK``) × 4 (``mem.logit_tokens``). s is the learner's sequence
  (``tokens.train_sequence_per_episode``): prompt + completion, padded to the cap where the
  learner pads every completion (``run.padded_train``);

The rollout phase holds the weights, the frozen models and the KV cache; the training phase the
weights, the frozen models, the trainable state, a critic, activations and logits. The peak is
the larger; an offline method has no rollout phase. A figure the catalog does not give (an
unknown head count) leaves every term that needs it missing: nothing is guessed.
"""

from __future__ import annotations

from tinkernomics.derived.calculator import ids, roles_time
from tinkernomics.derived.calculator.graph import Quantity

WEIGHT_BYTES = 2.0
"""bf16 weights and gradients (zero_rajbhandari)."""
OPTIMISER_BYTES = 12.0
"""fp32 master weights and Adam's two moments, per trainable parameter (zero_rajbhandari)."""
KV_BYTES = 2.0
"""bf16 KV cache."""
STATE_BYTES = 4.0
"""fp32 recurrent state of a hybrid model's fixed-state layers: SGLang keeps Gated DeltaNet's
state in FP32 by default (radixark/miles 31f1ca9, docs/models/qwen/qwen3-8.md line 134: "48
v-heads × 128 × 128 × FP32 × 48 layers ≈ 151 MB per in-flight sequence"; line 149: the
``--sglang-mamba-ssm-dtype bfloat16`` option halves it). A layer's small convolution state
(kernel 4 × its projections' width) is not counted."""
LOGIT_BYTES = 4.0
"""Logits in fp32, as the log-softmax of the policy loss is computed (an assumption)."""
LOGIT_CHUNK = 4096.0
"""Tokens whose logits are held at once: RL stacks compute the loss in chunks of the sequence
(verl's and Liger's fused or chunked log-probs), so the fp32 logits never span a long
sequence whole (an assumption: chunks of 4,096 tokens)."""
ZERO = f"formula:{ids.MEM_ZERO}"
KV = f"formula:{ids.MEM_KV}"
ACT = f"formula:{ids.MEM_ACTIVATIONS}"

SEQ = "tokens.sequence_per_episode"
TRAIN_SEQ = "tokens.train_sequence_per_episode"
"""The learner's sequence: ``SEQ``, its completion padded to the cap where the learner pads."""
HIDDEN = "model.d_model"
SBH = f"({TRAIN_SEQ} * run.mb * {HIDDEN})"


def _q(key: str, expression: str, *, label: str, when: str = "", fmt: str = "gb",
       uses: tuple[str, ...] = (), shown: bool = True) -> Quantity:
    return Quantity(key, expression, format=fmt, label=label, when=when, uses=uses, shown=shown)


def _lora() -> list[Quantity]:
    """Adapter parameters: rank × layers × Σ (d_in + d_out) over the adapted matrices."""
    d = HIDDEN
    # q and o map d to heads × head size; k and v to KV heads × head size, or, under multi-head
    # latent attention (no KV heads), to the cached latent; a model without head figures
    # (DeepSeek's MLA gives none) is counted at d for q and o
    attention = (f"2.0 * ({d} + coalesce(model.heads * model.head_dim, {d})) + "
                 f"2.0 * ({d} + coalesce(model.kv_heads * model.head_dim, model.kv_latent, "
                 f"{d}))")
    mlp = (f"3.0 * coalesce(model.experts * ({d} + model.expert_mlp), "
           f"{d} + model.mlp)")
    return [
        _q("mem.lora_params", f"lora.rank * model.layers * ({attention} + "
           f"(0.0 if run.lora_attention else {mlp}))", label="LoRA adapter parameters",
           when="run.lora", fmt="count"),
        _q("mem.trainable", "mem.lora_params if run.lora else p.total", label="Trained parameters",
           fmt="count"),
    ]


def _roles() -> list[Quantity]:
    b = WEIGHT_BYTES
    return [
        _q("mem.policy", f"p.total * {b}", label="Policy weights (bf16)", uses=(ZERO,)),
        _q("mem.reference", f"p.total * {b} * max(1 - run.lora, run.ref_copy)",
           label="Reference weights", when="role.reference", uses=(ZERO,)),
        _q("mem.teacher", f"p.teacher_total * {b}", label="Teacher weights", when="role.teacher",
           uses=(ZERO,)),
        _q("mem.reward_model", f"p.reward_total * {b}", label="Reward model weights",
           when="role.reward_model",
           uses=(ZERO,)),
        _q("mem.frozen", "0.0 + (mem.reference if role.reference else 0.0) + (mem.teacher if "
           "role.teacher else 0.0) + (mem.reward_model if role.reward_model else 0.0)",
           label="Frozen models", shown=False),
    ]


def _training() -> list[Quantity]:
    b, opt = WEIGHT_BYTES, OPTIMISER_BYTES
    full = f"(2.0 * {SBH})"
    # no recomputation: Korthikanti's 34·s·b·h a layer; its 5·a·s²·b term (attention scores,
    # softmax, dropout) is not stored by flash attention, which every RL stack uses
    none = f"({SBH} * 34.0)"
    return [
        _q("mem.adapter", f"mem.lora_params * {b}", label="Adapter weights", when="run.lora",
           uses=(ZERO,)),
        _q("mem.gradients", f"mem.trainable * {b}", label="Gradients", uses=(ZERO,)),
        _q("mem.optimiser", f"mem.trainable * {opt}", label="Optimiser state (Adam, fp32 master)",
           uses=(ZERO,)),
        _q("mem.critic", f"(p.critic_total * {b} + mem.lora_params * ({b} + {b} + {opt})) "
           f"if run.lora else p.critic_total * ({b} + {b} + {opt})",
           label="Critic (weights and training state)",
           when="role.critic", uses=(ZERO,)),
        _q("mem.activations_per_layer", f"{full} if run.ac == 2 else ({none} if run.ac == 0 "
           f"else 34.0 * {SBH})", label="Activations per layer", fmt="gb", uses=(ACT,),
           shown=False),
        _q("mem.activations", "model.layers * mem.activations_per_layer",
           label="Activations (one micro-batch)", uses=(ACT,)),
        _q("mem.logit_tokens", f"min({TRAIN_SEQ}, {LOGIT_CHUNK})", fmt="count",
           label="Tokens a sequence holds logits for at once", uses=(ACT,), shown=False),
        _q("mem.logits", f"model.vocab * run.mb * mem.logit_tokens * {LOGIT_BYTES}",
           label="Logits (fp32, one chunk of the loss)", uses=(ACT,)),
    ]


def _kv() -> list[Quantity]:
    b = KV_BYTES
    per_layer = f"(2.0 * model.kv_heads * model.head_dim * {b})"
    cached = "(coalesce(model.kv_layers, model.layers) - coalesce(model.sliding, 0.0))"
    per_token = f"coalesce(model.layers * model.kv_latent * {b}, {cached} * {per_layer})"
    window = (f"0.0 if missing(model.sliding) else model.sliding * {per_layer} * "
              f"min(model.window, {SEQ})")
    return [
        _q("mem.kv_per_token", per_token, label="KV cache per token", fmt="count", uses=(KV,)),
        # the one test of "can this model be timed": its KV cache a token and its attention
        # width (what timing reads without a default); missing where either is unknown
        _q("mem.shape_known", f"mem.kv_per_token * 0.0 + {roles_time.layers_width('model')} * "
           "0.0 + 1.0", label="The architecture the KV cache and attention need is known",
           fmt="count", shown=False),
        _q("mem.kv_window_per_sequence", window, label="Sliding-window KV cache per sequence",
           fmt="count", uses=(KV,)),
        _q("mem.state_per_sequence", f"model.state_layers * model.state_size * {STATE_BYTES}",
           label="Fixed state per sequence (fp32)", fmt="count"),
        _q("mem.uncounted_layers",
           "coalesce(model.state_layers, 0.0) * missing(model.state_size)",
           label="Layers whose fixed per-sequence state is not counted", fmt="count"),
        _q("mem.decode_sequences", "min(run.prompts * run.G * rollout.oversample, "
           "const.decode_sequences * mem.pool_gpus)",
           label="Sequences whose KV cache the memory sizing reserves",
           when="run.online", fmt="count", uses=("assumption:decode_sequences",)),
        _q("mem.kv_tokens", f"mem.decode_sequences * {SEQ}", label="Tokens held in the KV cache",
           when="run.online", fmt="count"),
        _q("mem.kv_cache", "mem.kv_per_token * mem.kv_tokens + (mem.kv_window_per_sequence + "
           "coalesce(mem.state_per_sequence, 0.0)) * mem.decode_sequences", label="KV cache",
           when="run.online", uses=(KV,)),
    ]


def quantities() -> list[Quantity]:
    """Every memory term, both phases, the peak and the GPUs that hold it."""
    adapter = "(mem.adapter if run.lora else 0.0)"
    critic = "(mem.critic if role.critic else 0.0)"
    return [
        *_lora(), *_roles(), *_training(),
        _q("mem.training", f"mem.policy + {adapter} + mem.frozen + mem.gradients + "
           f"mem.optimiser + {critic} + mem.activations + mem.logits", label="Training phase"),
        _q("mem.pool_gpus", "coalesce(set.gpus, 1.0)",
           label="GPUs that decode (each holds its own KV pool)", fmt="count", shown=False),
        *_kv(),
        _q("mem.rollout", f"mem.policy + {adapter} + mem.frozen + mem.kv_cache",
           label="Rollout phase", when="run.online"),
        _q("mem.peak", "max(mem.rollout if run.online else 0.0, mem.training)",
           label="GPU memory at the peak"),
        _q("mem.min_gpus", "ceil(mem.peak / (hw.memory_gb * 1e9))", label="GPUs that hold it",
           fmt="count"),
    ]
