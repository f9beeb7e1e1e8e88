"""Parts of the time model (``timing``, pipeline step 5) that depend on which models a step
trains and frees: a critic's and a reward model's passes at their own sizes (the link's ``cm``,
``rm``; a run's ``critic_model``, ``reward_model``), and a step's work besides its phases (the
optimizer steps, the CPU offload, the colocated sampler's wake-up), and the utilisation a GPU
realises of a compute-bound phase's ceiling (``on_gpu``, ``bandwidth_share``: a memory-traffic
term at the GPU's bandwidth beside the compute term at its peak); the learner's layers its
tensor-parallel GPUs each run whole (``duplicated``) and a hybrid model's recurrent state a decode
step moves (``fixed_state``). Expressions over the graph's names only; ``timing`` places them
under its prefix (``time.``, ``ways.<slot>.time.``).
"""

from __future__ import annotations


def layers_width(name: str) -> str:
    """Attention layers × attention width of the model ``name`` (heads × head size, else its
    width): what attention's FLOPs a token scale with, for the policy (``model``) and each role.
    A hybrid model's attention layers are its ``kv_layers``: its linear-attention or Mamba
    layers keep a fixed state instead, and their token mixing grows with the sequence linearly,
    not with its square (arXiv 2412.06464), so their work is in the parameters' FLOPs."""
    return (f"coalesce({name}.kv_layers, {name}.layers) * "
            f"coalesce({name}.heads * {name}.head_dim, {name}.d_model)")


def attention(role: str, seq: str) -> str:
    """Attention's training FLOPs a token of a critic or reward model: its own shape where the
    link names its model, else the policy's (its size is then the policy's too)."""
    return f"(6.0 * coalesce({layers_width(role)}, {layers_width('model')}, 0.0) * {seq})"


def train_mfu(total: str, active: str) -> str:
    """The training utilisation of a model of ``total`` parameters, ``active`` a token: the
    reader's ``mt``, else ``TRAIN_MFU_MAX`` scaled down for small models (``TRAIN_HALF_PARAMS``)
    and for a mixture of experts (``MOE_TRAIN_FACTOR``, measured on Megatron's grouped GEMM;
    a learner that loops over the experts, ``el``, a run's ``expert_loop``: Hugging Face
    transformers before 5.0 under FSDP or DeepSpeed, keeps ``EXPERT_LOOP_FACTOR`` of that).
    The policy's and every role's rule."""
    c = "const.time"
    moe = (f"{c}.moe_train_factor * (1.0 - run.expert_loop * (1.0 - "
           f"{c}.expert_loop_factor))")
    return (f"coalesce(set.mfu_train / 100.0, {c}.train_mfu_max * {total} / ({total} + "
            f"{c}.train_half_params) * (1.0 if {active} >= {total} else {moe}))")


def duplicated() -> str:
    """Parameters the learner computes more than once a token (``dup``, a run's
    ``duplicated_params``, in billions): layers that each of its tensor-parallel GPUs runs whole
    instead of its slice, their parameters × (TP - 1). Each forward pass (the update's, its
    recomputation, the old-policy and reference log-probs) pays 2 FLOPs a token for each, the
    backward 4 more; a training GPU's shard of the weights and optimizer state that CPU offload
    moves grows by ``dup`` ÷ its GPUs (a layer every GPU of a tensor-parallel group holds whole
    is sharded over data parallelism only: (N - R) / (TP × DP) + R / DP = (N + R (TP - 1)) /
    GPUs). Miles' Megatron wraps a hybrid model's linear-attention (Gated DeltaNet)
    mixers in plain ``nn.Linear`` layers after gathering the sequence-parallel activations
    (radixark/miles 31f1ca9, miles_plugins/models/hf_attention.py lines 195-197: "the linear
    attention after this gather is NOT TP-sharded (duplicated on all ranks)";
    miles_plugins/models/qwen3_5.py lines 69-96). Their recurrence's own FLOPs (the chunked
    delta rule, under 1% of the parameters' at 128-wide heads) are not counted."""
    return "coalesce(set.duplicated_params, 0.0) * 1e9"


def fixed_state(sequences: str) -> str:
    """Bytes a decode iteration moves for a hybrid model's fixed-state layers (of ``sequences``
    live ones: the batch's, and the tail's one): each one's recurrent state read
    and written back (``mem.state_per_sequence``, where the
    model gives ``fixed_state_size``). Gated DeltaNet's step updates the whole state, S_t =
    S_(t-1) α_t (I - β_t k_t k_tᵀ) + β_t v_t k_tᵀ (the gated delta rule: Yang et al., "Gated
    Delta Networks", arXiv 2412.06464), so a token costs the state twice whatever its context;
    SGLang keeps it resident per sequence (radixark/miles 31f1ca9, docs/models/qwen/qwen3-8.md
    lines 133-135)."""
    return f"{sequences} * 2.0 * coalesce(mem.state_per_sequence, 0.0)"


def sized_mfu(p: str) -> list[tuple[str, str]]:
    """The training utilisation of a critic and a reward model at their own sizes (the
    policy's rule, ``train_mfu``, over their parameters; the reader's ``mt`` sets all)."""
    return [(f"mfu_{role}", train_mfu(f"p.{role}_total", f"p.{role}_active"))
            for role in ("critic", "reward")]


def step_work(p: str, hw: str) -> list[tuple[str, str]]:
    """A step's work besides its phases, from physics: each optimizer step (``optimizer_steps``
    a step, ``offload``) streams each training GPU's shard of the trained parameters' Adam
    state through its memory (``CPU_ADAM_BYTES`` a parameter, at ``BANDWIDTH_EFFICIENCY`` of
    the GPU's bandwidth; a critic's too); a sampler that shares its GPUs with training (no
    ``rg``) wakes each step: its weights come back from host memory over the host link,
    ``HOST_LINK_GB_S`` (vLLM's docs, docs.vllm.ai/en/latest/features/sleep_mode/: "Level 1
    sleep will offload the model weights and discard the KV cache"; the KV pool's
    re-allocation is not timed, and that every colocated stack sleeps its sampler so is an
    assumption). What remains of a step's fixed work (scheduling, reward calls, logging) is
    ``STEP_SECONDS``, fitted."""
    c = "const.time"
    trained = "(mem.trainable + (p.critic_total if role.critic else 0.0))"
    return [
        ("optimizer_s", f"coalesce({p}.optimizer_steps * {trained} / {p}.train_gpus * "
                        f"{c}.cpu_adam_bytes / ({hw}.bandwidth * 1e12 * "
                        f"{c}.bandwidth_efficiency), 0.0)"),
        ("wake_s", f"0.0 if coalesce(set.rollout_gpus, 0.0) >= 1 else {p}.weights / {p}.tp / ("
                   f"{c}.host_link_gb_s * 1e9)"),
    ]


def offload(p: str) -> list[tuple[str, str]]:
    """CPU offload: each training GPU's shard (with the layers its tensor-parallel GPUs each
    hold whole, ``duplicated``) crosses its host link (bf16 weights down and up
    for the learner and a reference, gradients down and up, once a phase; for a CPU optimizer
    gradients down and weights up at each optimizer step) and a CPU optimizer streams the
    shard's fp32 Adam state through host memory each optimizer step, ``optimizer_steps`` a step
    (``ost``, a run's ``optimizer_steps``: mini-batches times epochs; default 1). Megatron's
    HybridDeviceOptimizer.step (NVIDIA/Megatron-LM d98e8a6, megatron/core/optimizer/
    cpu_offloading/hybrid_optimizer.py lines 150-174, 114, 124) and DeepSpeed ZeRO-Offload
    (18179807, deepspeed/runtime/zero/stage_1_and_2.py lines 1850-1866) do all three a step."""
    c = "const.time"
    steps = f"{p}.optimizer_steps"
    link = ("(4.0 * run.offload_params * (1.0 + role.reference) + 4.0 * run.offload_grads + "
            f"4.0 * run.offload_optimizer * {steps})")
    return [
        ("optimizer_steps", "coalesce(set.optimizer_steps, 1.0)"),
        ("shard", f"(p.total + {duplicated()}) / {p}.train_gpus"),
        ("offload_link_s", f"{p}.shard * {link} / ({c}.host_link_gb_s * 1e9)"),
        ("cpu_optimizer_s", f"run.offload_optimizer * {steps} * {p}.shard * "
                            f"{c}.cpu_adam_bytes / ({c}.host_memory_gb_s * 1e9)"),
        ("offload_s", f"{p}.offload_link_s + {p}.cpu_optimizer_s"),
    ]


def hf_experts(p: str, hw: str, train_tokens: str, attention: str) -> list[tuple[str, str]]:
    """Hugging Face transformers' fused experts (Qwen3-VL-MoE, 4.57: ``gate_up_proj`` and
    ``down_proj`` one 3D parameter each). In eval mode (``ae``, a run's ``eval_all_experts``:
    the stack's log-prob pass calls ``model.eval()``) a forward pass repeats every token for
    every expert and multiplies them all in one batched GEMM: a pass of every parameter, at
    the dense utilisation of the model's size (``eval_forward_s``; the experts are not looped).
    (Training's indexing of the fused parameters per expert is not charged: EasyR1's own actor
    MFU times its whole update below what four passes over a layer's experts per expert per
    micro-batch would take.)"""
    return [
        ("mfu_dense", on_gpu(train_mfu("p.total", "p.total"), hw)),
        ("eval_forward_s", f"{train_tokens} * (2.0 * p.total + {attention} / 3.0) / ("
                           f"{p}.train_gpus * {hw}.tflops * 1e12 * {p}.mfu_dense)"),
    ]


def on_gpu(mfu: str, hw: str) -> str:
    """A training utilisation (``train_mfu``'s, at the compute ceiling ``TRAIN_MFU_MAX``) as
    realised on the GPU ``hw``: a training step is a compute term at the GPU's peak plus a
    memory-traffic term at its bandwidth, ``TRAIN_BYTES_PER_FLOP`` × FLOPs ÷ utilisation
    bytes, so a GPU whose peak is low against its bandwidth (the H20: 148 TFLOPS, 4.0 TB/s)
    realises more of its peak than one whose peak is high (the H100: 989, 3.35). The reader's
    ``mt`` is a realised utilisation and is kept as given; a GPU without a bandwidth figure
    trains at the ceiling's utilisation."""
    return f"coalesce(set.mfu_train / 100.0, ({mfu}) / {bandwidth_share(hw)})"


def bandwidth_share(hw: str) -> str:
    """What a compute-bound phase's time on the GPU ``hw`` is over its time at the ceiling: 1 +
    ``TRAIN_BYTES_PER_FLOP`` × the GPU's FLOPs per byte of bandwidth (1 for a GPU without a
    bandwidth figure). Training's (``on_gpu``) and a compute-bound decode iteration's."""
    return (f"(1.0 + const.time.train_bytes_per_flop * coalesce({hw}.tflops / {hw}.bandwidth, "
            "0.0))")
