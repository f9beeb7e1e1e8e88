"""The calculator's form (pipeline step 6: calculator feature): fields named by query keys.

Code here names an input as ``INPUTS`` declares it (``model``, ``run.G``); ``field`` looks up its
query key (``inputs.key``), so a renamed key is one edit in ``derived/calculator/inputs.py``.

Fields are grouped as the page shows them, each with the value of the default estimate. The
algorithm list is not in the page (it grows with the catalog): the select holds the chosen
algorithm and calculator.js fills in the others from ``algorithms/index.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import ids, inputs
from tinkernomics.derived.calculator.constants import vram_examples
from tinkernomics.derived.calculator.estimate import Estimate
from tinkernomics.derived.ways import newest_by_series
from tinkernomics.site.calculator.formatting import fmt_count, fmt_number

POLICY_SIZED = "As large as the policy"
"""The critic and reward model selects' empty choice (``inputs.Choice.critic``)."""


def field(name: str, label: str, kind: str, value: Any, **extra: Any) -> dict[str, Any]:
    """The form field of the input ``INPUTS`` declares for ``name`` (``inputs.key``)."""
    return keyed(inputs.key(name), label, kind, value, **extra)


def keyed(key: str, label: str, kind: str, value: Any, **extra: Any) -> dict[str, Any]:
    """A form field named by its query key."""
    return {"key": key, "label": label, "kind": kind, "value": value, "help": "",
            "options": [], "unit": "", **extra}


def _whole(value: float | None) -> Any:
    return "" if value is None else int(value)


def _options(items: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(key, item.name) for key, item in items.items()]


def lora_flop_options(catalog: Catalog) -> list[tuple[str, str]]:
    """The accounting choices, each labelled with its formula's status from the catalog."""
    return [(key, f"{ids.LORA_FLOP_LABELS[key]} ({catalog.formulas[fid].status.value})")
            for key, fid in ids.LORA_FLOP_FORMULAS.items()]


def model_group(catalog: Catalog, e: Estimate) -> dict[str, Any]:
    names, c = e.resolved.names, e.choice
    plists = sorted(catalog.price_lists.values(), key=lambda p: p.effective, reverse=True)
    models = _options(catalog.models)
    return {"title": "Model and algorithm", "open": True, "fields": [
        field("algorithm", "Algorithm", "select", c.algorithm,
              options=[(c.algorithm, names["algorithm_name"])]),
        field("model", "Model", "select", c.model, options=models),
        field("teacher", "Teacher model", "select", names["teacher"] or c.model, options=models,
              help="Only for algorithms that keep a teacher."),
        *(field(name, label, "select", names[name], options=[("", POLICY_SIZED), *models],
                help=f"Only for algorithms that keep {what}; empty: as large as the policy.")
          for name, label, what in (("critic", "Critic (value) model", "a critic"),
                                    ("reward_model", "Reward model", "a reward model"))),
        field("price_list", "Tinker price list", "select", c.price_list,
              options=[(p.id, p.title) for p in plists]),
        field("variant", "Price variant", "select", c.variant, options=[("", "standard")]),
        field("lora", "Fine-tuning", "select", inputs.TUNING[0 if c.lora else 1],
              options=list(zip(inputs.TUNING, ("LoRA", "Full fine-tuning"), strict=True))),
        field("lora_flops", "LoRA FLOP accounting", "select", c.lora_flops,
              options=lora_flop_options(catalog),
              help="Which formula prices LoRA training passes."),
        field("set.rank", "LoRA rank R", "int", fmt_count(e["lora.rank"])),
        field("set.d_model", "Hidden size D", "int", fmt_count(e["lora.d_model"]).replace(",", "")),
    ]}


def shape_group(e: Estimate) -> dict[str, Any]:
    missing = "The catalog gives no typical value for this algorithm: enter one."
    return {"title": "Run shape", "open": True, "fields": [
        field("run.steps", "Steps", "int", _whole(e["run.steps"])),
        field("run.prompts", "Prompts per step", "int", _whole(e["run.prompts"])),
        field("run.G", "Completions per prompt G", "int", _whole(e["run.G"]),
              help=missing if e["run.G"] is None else ""),
        field("run.K", "Passes per batch K", "int", _whole(e["run.K"])),
        field("run.C0", "Prompt tokens (initial context C0)", "int", _whole(e["run.C0"])),
        field("run.out", "Completion tokens (per turn, mean)", "int", _whole(e["run.out"])),
        field("run.max_out", "Completion cap (the longest)", "int", _whole(e["time.cap"]),
              help="A synchronous step waits for its longest completion: the sampler's max "
                   "tokens. Default: the mean."),
        field("run.T", "Turns T", "int", _whole(e["run.T"])),
        field("run.delta", "Context added per turn Δ", "int", _whole(e["run.delta"]),
              help="Reply plus tool output that joins the context each turn."),
        field("run.env_s", "Environment seconds per turn", "num", e["run.env_s"],
              help="Tool calls, tests or a simulator the episode waits for each turn."),
        field("cache", "Prefix cache across turns", "check", bool(e["run.cache"])),
        field("score_reference", "Score with the reference (KL)", "check",
              bool(e["role.reference"])),
        field("score_reward_model", "Score with a learned reward model", "check",
              bool(e["role.reward_model"]),
              help="Off: the reward is a rule or verifier (no reward model in memory or time)."),
    ]}


def gpu_group(catalog: Catalog, e: Estimate) -> dict[str, Any]:
    return {"title": "Rented GPUs", "open": True, "fields": [
        field("hardware", "GPU", "select", e.choice.hardware, options=_options(catalog.hardware)),
        field("set.gpu_price", "Price per GPU-hour (USD)", "num", e["gpu_price"]),
        field("set.gpus", "GPUs", "int", _whole(e["time.gpus"]),
              help="Default: the fewest that hold the run; wall-clock follows."),
        field("set.rollout_gpus", "GPUs that only sample", "int", _whole(e["set.rollout_gpus"]),
              help="Leave empty when sampling shares the GPUs with training."),
        field("set.rollout_tp", "GPUs per sampler engine (tensor parallel)", "int",
              _whole(e["time.tp"]), help="Default: the fewest that hold the weights in half "
                                           "their memory, at most the GPUs that sample."),
        field("set.max_seqs", "Sequences an engine decodes at once, at most", "int",
              _whole(e["time.seq_cap"]), help="The engine's max_num_seqs (vLLM's default: "
                                               "256)."),
        field("set.attention_tp", "GPUs an engine splits attention over", "int",
              _whole(e["time.tp"]), help="Each holds a whole latent (MLA) cache; "
                                                 "default: the engine's GPUs."),
        field("set.mem_util", "Share of a sampler GPU's memory its engine takes", "num",
              e["time.mem_util"], help="vLLM's gpu_memory_utilization (default 0.9)."),
        _choice("run.eager", "Sampler CUDA graphs", e["run.eager"],
                [("0", "on (vLLM's default)"), ("1", "off: eager decode (enforce_eager)")]),
        _choice("run.asynchronous", "Sampling and training", e["run.asynchronous"],
                [("0", "synchronous: each step samples, then trains"),
                 ("1", "asynchronous: sampling overlaps training")]),
        _choice("run.whole_batch", "Asynchronous sampler hands over", e["run.whole_batch"],
                [("0", "completions as they finish"),
                 ("1", "the whole batch: a step waits for its longest completion")]),
        *_staleness_fields(e),
        _choice("run.rollout_logprobs", "Old-policy log-probs", e["run.rollout_logprobs"],
                [("0", "recomputed by the trainer (one forward pass)"),
                 ("1", "the sampler's: no pass of their own")]),
        _choice("run.static_batches", "Sampler batches", e["run.static_batches"],
                [("0", "continuous: a finished sequence's slot takes the next"),
                 ("1", "sequential: each batch waits for its longest completion")]),
        *_generate_choices(e),
        *_expert_choices(e),
        *(_choice(f"run.offload_{part}", f"CPU offload: {label}", e[f"run.offload_{part}"],
                  [("0", "no"), ("1", "yes: moved over the host link every step")])
          for part, label in (("optimizer", "optimizer state and step"),
                              ("params", "weights while sampling"), ("grads", "gradients"))),
        field("set.tps", "Measured decode tokens/s per sampling GPU", "num", e["set.tps"],
              help="From a pilot run: replaces the decode physics."),
        *_shares(e),
    ]}


def _shares(e: Estimate) -> list[dict[str, Any]]:
    """Percentages a reader may give: the phases' utilisation (``mt``, ``mp``, ``md``) and the
    run's time beyond its steps (``ro``)."""
    def pct(value: float) -> str:
        return fmt_number(value * derive.PERCENT)

    return [
        field("set.mfu_train", "Training and scoring MFU (%)", "num", pct(e["time.mfu_train"])),
        field("set.mfu_prefill", "Prefill MFU (%)", "num", pct(e["mfu.prefill"])),
        field("set.mfu_decode", "Decode MFU (%)", "num", pct(e["self.decode.mfu"] or 0.0)),
        field("set.run_overhead", "Evaluation, checkpoints and restarts (% of the steps' time)",
              "num", pct(e["time.run_overhead"]),
              help="0 prices the training steps alone, as a benchmark's step times do."),
    ]


def _expert_choices(e: Estimate) -> list[dict[str, Any]]:
    """How the learner runs a mixture of experts (``el``, ``ae``), its micro-batches (``mbt``),
    layers it does not shard (``dup``) and its optimizer steps a step (``ost``)."""
    return [
        _choice("run.expert_loop", "Learner's mixture-of-experts layers", e["run.expert_loop"],
                [("0", "one grouped GEMM (Megatron; transformers 5 grouped_mm)"),
                 ("1", "one expert at a time (Hugging Face transformers < 5.0)")]),
        _choice("run.eval_all_experts", "Experts in the log-prob passes",
                e["run.eval_all_experts"],
                [("0", "the routed ones"),
                 ("1", "all, every token (HF Qwen3-VL-MoE in eval mode)")]),
        field("set.micro_batch_tokens", "Tokens in an update micro-batch, at most", "int",
              _whole(e["time.micro_batch_tokens"]),
              help="Dynamic batching's cap; default: one sequence a micro-batch."),
        *_learner_fields(e),
        field("set.duplicated_params", "Parameters computed more than once a token (B)", "num",
              e["set.duplicated_params"],
              help="Layers each tensor-parallel GPU of the learner runs whole (Miles' Gated "
                   "DeltaNet mixers): their parameters × (TP - 1); default: none."),
        field("set.optimizer_steps", "Optimizer steps a step", "int",
              _whole(e["time.optimizer_steps"]),
              help="Mini-batches times epochs (verl's ppo_mini_batch_size and ppo_epochs); "
                   "each repeats a CPU optimizer's step and its host-link crossings."),
    ]


def _learner_fields(e: Estimate) -> list[dict[str, Any]]:
    """How the learner splits one copy of the model (``pp``, ``ttp``, ``cp``: a pipelined
    learner waits its bubble in every pass, ``learner_split``) and whether it pads every
    completion to the cap (``pt``)."""
    return [
        _choice("run.padded_train", "Completions the learner trains on", e["run.padded_train"],
                [("0", "as long as each is"),
                 ("1", "padded to the cap (open-instruct's legacy GRPO trainer)")]),
        field("set.pipeline_parallel", "Learner's pipeline stages", "int",
              _whole(e["time.pipeline"]),
              help="Megatron's pipeline_model_parallel_size: each pass also waits "
                   "(stages - 1) micro-batches to fill and drain the pipeline."),
        field("set.train_tp", "GPUs the learner splits a layer over", "int",
              e["set.train_tp"], help="Megatron's tensor_model_parallel_size; default 1."),
        field("set.context_parallel", "GPUs the learner splits a sequence over", "int",
              e["set.context_parallel"],
              help="Megatron's context_parallel_size, verl's Ulysses sequence parallel size; "
                   "default 1."),
    ]


def _padded_choice(e: Estimate) -> dict[str, Any]:
    """Whether a sampler keeps decoding a batch's finished sequences (``pb``)."""
    return _choice("run.padded_batches", "A batch's finished sequences",
                   e["run.padded_batches"],
                   [("0", "let go: its last iterations decode the longest alone"),
                    ("1", "kept as padding until its longest ends (HF generate)")])


def _staleness_fields(e: Estimate) -> list[dict[str, Any]]:
    """How far an asynchronous sampler may run ahead (``st``) and the updates between weight
    syncs (``su``): ``staleness.async_step``."""
    return [
        field("set.staleness", "How far the sampler may run ahead", "num",
              e["set.staleness"], help="Samples it may start beyond a weight sync's, as a share "
                                       "of them (verl's staleness_threshold); empty: unbounded."),
        field("set.sync_updates", "Trainer updates between weight syncs", "int",
              _whole(e["set.sync_updates"]), help="verl's trigger_parameter_sync_step (default "
                                                  "1)."),
    ]


def _generate_choices(e: Estimate) -> list[dict[str, Any]]:
    """What a Hugging Face ``generate`` sampler does (``pb``, ``hc``)."""
    return [_padded_choice(e), _hf_cache_choice(e)]


def _hf_cache_choice(e: Estimate) -> dict[str, Any]:
    """Whether the sampler is Hugging Face generate over its DynamicCache (``hc``)."""
    return _choice("run.hf_cache", "Sampler's KV cache", e["run.hf_cache"],
                   [("0", "paged, read once a step (vLLM, SGLang, TensorRT-LLM)"),
                    ("1", "HF DynamicCache + flash-attention-2: copied 3x a step")])


def _choice(name: str, label: str, value: float | None, options: list[tuple[str, str]],
            help: str = "") -> dict[str, Any]:
    return field(name, label, "select", str(_whole(value)), options=options, help=help)


def run_memory_fields(e: Estimate) -> list[dict[str, Any]]:
    """What the run model's memory reads besides the run shape (``derived/.../memory.py``)."""
    return [
        field("run.mb", "Micro-batch (sequences per training pass)", "int", _whole(e["run.mb"])),
        _choice("run.ac", "Activation recomputation", e["run.ac"],
                [("2", "Full (keep each layer's input)"), ("1", "Selective"),
                 ("0", "None (keep every activation)")]),
        _choice("run.ref_copy", "Reference under LoRA", e["run.ref_copy"],
                [("0", "The base with the adapter off"), ("1", "A separate copy")]),
        _choice("run.lora_attention", "LoRA trains", e["run.lora_attention"],
                [("0", "Attention and MLP matrices"), ("1", "Attention matrices only")]),
        field("set.oversample", "Rollouts sampled per rollout trained on", "num",
              fmt_number(e["rollout.oversample"]),
              help="Over 1 where the method filters groups (DAPO's dynamic sampling)."),
    ]


ARCH_LABELS = {"params_b": "Parameters (billions)", "active_b": "Active parameters (billions)",
               "layers": "Layers", "heads": "Attention heads", "kv_heads": "KV heads",
               "head_dim": "Head size", "d_model": "Hidden size", "vocab": "Vocabulary",
               "mlp": "MLP width"}
"""The form's labels of a model given by its architecture figures (``inputs.ARCH_FIGURES``)."""


def architecture_group(e: Estimate) -> dict[str, Any]:
    """A model the catalog lacks, by its figures (config.json): each replaces the chosen
    model's; with the parameters set, the run has no Tinker price."""
    return {"title": "A model the catalog lacks", "open": False, "fields": [
        field(f"set.arch.{name}", label, "num", e[f"set.arch.{name}"],
              help="From the model's config.json; replaces the chosen model's figure."
              if name == "params_b" else "")
        for name, label in ARCH_LABELS.items()]}


def memory_group(catalog: Catalog, e: Estimate) -> dict[str, Any]:
    meanings: dict[str, str] = {}
    for fid in (ids.VRAM_LORA, ids.VRAM_FULL):
        for v in catalog.formulas[fid].variables:
            meanings.setdefault(v.name, v.meaning)
    keys = {i.name: i.key for i in inputs.vram_inputs(catalog)}
    vram = [keyed(keys[f"set.vram.{name}"], f"{meanings[name]} (GB)", "num",
                  fmt_number(e[f"set.vram.{name}"] if e[f"set.vram.{name}"] is not None
                             else example / ids.BYTES_PER_GB))
            for name, example in vram_examples(catalog).items()]
    return {"title": "Memory, storage, convergence", "open": False, "fields": [
        *run_memory_fields(e),
        *vram,
        field("run.checkpoints", "Checkpoints kept on Tinker", "int", _whole(e["run.checkpoints"])),
        field("run.months", "Months stored", "num", fmt_number(e["run.months"])),
        field("run.target_percent", "ScaleRL target (% of the gain)", "num",
              fmt_number(e["run.target_percent"])),
    ]}


def ways_group(catalog: Catalog, e: Estimate) -> dict[str, Any]:
    """The ways to run the comparison shows (the list input ``inputs.WAYS``): every dated list,
    the newest of each offer ticked unless the link pins others."""
    newest = {w.id for w in newest_by_series(catalog.of("way").values()).values()}
    ticked = set(e.choice.ways) or newest
    options = [(wid, f"{w.name} ({w.dated})" + ("" if wid in newest else ", superseded"),
                wid in ticked) for wid, w in catalog.of("way").items()]
    return {"title": "Ways to run compared", "open": False, "fields": [
        field(inputs.WAYS, "Lists shown beside Tinker", "list", "", options=options,
              help="Untick all to go back to the newest list of each offer.")]}


def form_groups(catalog: Catalog, e: Estimate) -> list[dict[str, Any]]:
    """The form's fields (named by their query keys), grouped, with the default values."""
    return [model_group(catalog, e), shape_group(e), gpu_group(catalog, e),
            ways_group(catalog, e), memory_group(catalog, e), architecture_group(e)]
