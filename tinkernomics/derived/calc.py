"""RL-run cost and memory calculator: the Python reference (pipeline step 5, derived numbers).

For one RL post-training run this module computes, from catalog values only:

1. tokens by kind (prefill, sample, train) from the run shape, single- or multi-turn;
2. the Tinker bill from a dated price list (cached-prefill discount and storage included);
3. FLOPs per phase from the catalog's FLOP formulas (LoRA training in the chosen accounting:
   the sourced 4·P by default, or the original site's expression), and the self-hosted
   GPU-hours and dollars for a chosen GPU at an assumed utilisation (MFU) per phase;
4. memory from the catalog's VRAM formulas and the minimum number of GPUs that hold it;
5. the compute at which an algorithm's ScaleRL fit reaches a fraction of its asymptote;
6. the break-even between the two bills.

The calculator page (``calculator.js``) repeats this arithmetic in the browser, operation for
operation, on the same catalog data and the same formula expressions (``expr.to_js``), and a
browser test checks that both give identical numbers. Keep the two in step: every float
operation here has a twin there, in the same order (no ``sum()``, whose float algorithm changed in
Python 3.12; no integer arithmetic, which JavaScript does not have).

Sources: every factor names the reference id (``catalog/references/``) it comes from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status, Unit
from tinkernomics.derived import derive

# --------------------------------------------------------------------------- constants

TOKENS_PER_MILLION = 1e6
"""Tinker prices are USD per million tokens (tinker_pricing_2026_07)."""
PARAMS_PER_BILLION = 1e9
FLOPS_PER_TFLOP = 1e12
BYTES_PER_GB = 1e9
"""Decimal gigabytes, as GPU memory is quoted (glennklockwood_h100: 80 GB)."""
BYTES_PER_TB = 1e12
SECONDS_PER_HOUR = 3600.0
PERCENT = 100.0

# Formula ids and variable names in catalog/formulas/ that the calculator evaluates.
FLOPS_ROLLOUT = "flops_rollout"
FLOPS_REFERENCE = "flops_ref_logprobs"
FLOPS_FULL = "flops_training"
FLOPS_LORA = "flops_lora_training"
"""The original site's LoRA expression (unverified): 2·P + 6·P·R/D."""
FLOPS_LORA_SOURCED = "flops_lora_training_sourced"
"""LoRA as transformer_math and lora_without_regret count it: about 4·P."""
VRAM_LORA = "vram_grpo_lora"
VRAM_FULL = "vram_ppo_full"
VAR_ACTIVE = "P_active"
VAR_RANK = "R"
VAR_DMODEL = "D"
VAR_LORA_STATE = "lora_overhead"
"""Adapter weights and optimiser state; also the size of one Tinker checkpoint here."""

LORA_FLOPS_SOURCED = "sourced"
LORA_FLOPS_SITE = "site"
LORA_FLOP_FORMULAS: dict[str, str] = {
    # The "LoRA FLOP accounting" setting (query key ``lf``): choice -> catalog formula id.
    LORA_FLOPS_SOURCED: FLOPS_LORA_SOURCED,
    LORA_FLOPS_SITE: FLOPS_LORA,
}
LORA_FLOP_LABELS: dict[str, str] = {
    LORA_FLOPS_SOURCED: "Sourced (Transformer Math, LoRA Without Regret)",
    LORA_FLOPS_SITE: "Original site's formula",
}
DEFAULT_LORA_FLOPS = LORA_FLOPS_SOURCED
"""The sourced accounting: the original site's expression understates LoRA about twofold."""

ROLE_VARIABLES: dict[str, dict[m.ModelRole, str]] = {
    # Which parameter variable of each VRAM formula holds a model of each role. Frozen models
    # (reference, teacher, reward model) go where the formula keeps frozen bf16 weights; under
    # LoRA a critic is another frozen base with its own adapter, so it joins P_total.
    VRAM_LORA: {
        m.ModelRole.policy: "P_total", m.ModelRole.critic: "P_total",
        m.ModelRole.reference: "P_ref", m.ModelRole.teacher: "P_ref",
        m.ModelRole.reward_model: "P_ref",
    },
    VRAM_FULL: {
        m.ModelRole.policy: "P_total", m.ModelRole.critic: "P_critic",
        m.ModelRole.reference: "P_ref", m.ModelRole.teacher: "P_ref",
        m.ModelRole.reward_model: "P_RM",
    },
}

BF16_BYTES_PER_PARAM = 2.0
"""Bytes read per parameter per decode step, bf16 weights (zero_rajbhandari: 2 bytes/param)."""

# DeepSeek-V3 (deepseek_v3, reported): the calibration point for training utilisation.
DEEPSEEK_V3_ACTIVE_PARAMS = 37e9
"""deepseek_v3: 37B active parameters of 671B."""
DEEPSEEK_V3_TOKENS = 14.8e12
"""deepseek_v3: 14.8T training tokens."""
DEEPSEEK_V3_GPU_HOURS = 2.788e6
"""deepseek_v3: 2.788M H800 GPU-hours for the whole run."""
H800_PEAK_HARDWARE = "h100"
"""The H800 is the H100 die with cut interconnect: same dense BF16 peak (facts §8 uses 989)."""
DECODE_SEQUENCES_PER_GPU = 32.0
"""Sequences decoded at once per GPU in the decode roofline; an assumption (no source)."""

DEFAULT_TARGET_PERCENT = 90.0
"""Default target: the compute at which the ScaleRL fit has made 90% of its gain."""


# --------------------------------------------------------------------------- assumptions


@dataclass(frozen=True)
class Assumption:
    """A calculator default that is not a catalog figure: value, derivation and provenance."""

    key: str
    label: str
    value: float
    unit: Unit
    status: Status
    source: str | None
    """Reference id of the inputs; None when the value is assumed here without a source."""
    derivation: str
    reported_instead: str | None = None


def training_mfu(catalog: Catalog) -> Assumption:
    """Effective utilisation of DeepSeek-V3's run: 6·N·D FLOPs over its GPU-hours at peak.

    6 N D = flops_training(P_active = 37e9) × 14.8e12 tokens (transformer_math, deepseek_v3);
    divided by 2.788e6 H800-hours × 3600 s × 989.4e12 FLOP/s (deepseek_v3, glennklockwood_h100).
    The hours cover the whole run (pre-training, context extension, post-training), so the
    figure leans low; V3 trained in FP8, so this is utilisation of the BF16 peak.
    """
    per_token = derive.evaluate_formula(catalog.formulas[FLOPS_FULL],
                                        {VAR_ACTIVE: DEEPSEEK_V3_ACTIVE_PARAMS})
    flops = per_token * DEEPSEEK_V3_TOKENS
    peak = catalog.hardware[H800_PEAK_HARDWARE].bf16_dense_tflops.value * FLOPS_PER_TFLOP
    value = flops / (DEEPSEEK_V3_GPU_HOURS * SECONDS_PER_HOUR * peak)
    return Assumption(
        "mfu_train", "Training utilisation (MFU)", value, Unit.fraction, Status.derived,
        "deepseek_v3",
        f"6 × 37B active × 14.8T tokens ÷ (2.788M H800-hours × 3,600 s × "
        f"{derive.format_number(peak / FLOPS_PER_TFLOP, digits=4)} TFLOP/s) ≈ "
        f"{derive.format_number(value * PERCENT)}%",
    )


def prefill_mfu(train: Assumption) -> Assumption:
    """Prefill and forward-only scoring reuse the training figure: both are compute-bound."""
    return Assumption(
        "mfu_prefill", "Prefill and scoring utilisation (MFU)", train.value, Unit.fraction,
        Status.unverified, train.source,
        "the training utilisation, reused: prompt processing and log-prob scoring are large "
        "compute-bound matrix products like the training forward pass",
        reported_instead=(
            "No catalog source measures prefill or forward-only utilisation; DeepSeek-V3's "
            "training utilisation is the nearest measured figure."
        ),
    )


def decode_sequences() -> Assumption:
    return Assumption(
        "decode_sequences", "Sequences decoded at once per GPU", DECODE_SEQUENCES_PER_GPU,
        Unit.count, Status.unverified, None,
        "assumed here: a modest continuous-batching decode batch; more sequences at once "
        "raise decode utilisation, long contexts (KV-cache reads) lower it",
        reported_instead=(
            "No catalog source gives a decode batch or a decode utilisation for RL rollouts. "
            "Fireworks' dedicated-deployment defaults imply far lower utilisation for long "
            "multi-turn episodes on large MoE models."
        ),
    )


def decode_mfu(catalog: Catalog, hw: m.Hardware, model: m.LanguageModel) -> Assumption:
    """Decode roofline: a step of b sequences does b × flops_rollout(P_active) FLOPs and reads
    the weights it touches once, 2 bytes per parameter, at most all of them.

    MFU = min(1, b × F × P_active ÷ (2 × min(P_total, b × P_active)) × bandwidth ÷ peak), with
    F = flops_rollout per parameter (transformer_math) and hardware specs. For a dense model
    this is b × bandwidth ÷ peak; a mixture-of-experts model, whose batch touches nearly all
    its experts, gets far less work per byte read.
    """
    seq = decode_sequences()
    if hw.bandwidth_tb_s is None:
        return replace(prefill_mfu(training_mfu(catalog)), key="mfu_decode",
                       label="Decode utilisation (MFU)")
    per_param = derive.evaluate_formula(catalog.formulas[FLOPS_ROLLOUT], {VAR_ACTIVE: 1.0})
    p_total, p_active = params(model), active_params(model)
    read = min(p_total, seq.value * p_active)
    bandwidth = hw.bandwidth_tb_s.value * BYTES_PER_TB
    peak = hw.bf16_dense_tflops.value * FLOPS_PER_TFLOP
    value = min(1.0, seq.value * per_param * p_active / (BF16_BYTES_PER_PARAM * read)
                * bandwidth / peak)
    return Assumption(
        "mfu_decode", "Decode utilisation (MFU)", value, Unit.fraction, Status.unverified,
        hw.bandwidth_tb_s.source, decode_note(catalog, hw), reported_instead=seq.reported_instead,
    )


def decode_note(catalog: Catalog, hw: m.Hardware) -> str:
    """The decode roofline in words, with this GPU's numbers."""
    seq = decode_sequences().value
    per_param = derive.evaluate_formula(catalog.formulas[FLOPS_ROLLOUT], {VAR_ACTIVE: 1.0})
    bandwidth = hw.bandwidth_tb_s.value if hw.bandwidth_tb_s is not None else 0.0
    return (
        f"decode roofline on {hw.name}: {derive.format_number(seq)} sequences × "
        f"{derive.format_number(per_param)} FLOP × P_active ÷ (2 bytes × "
        f"min(P_total, {derive.format_number(seq)} × P_active)) × "
        f"{derive.format_number(bandwidth)} TB/s ÷ "
        f"{derive.format_number(hw.bf16_dense_tflops.value, digits=4)} TFLOP/s"
    )


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class RunShape:
    """What the run does. One episode = one rollout; single-turn runs have ``turns`` = 1.

    ``prompt_tokens`` is the initial context C0; ``context_growth`` is Δ, everything added to
    the context between turns (the model's reply and the tool or user message, as Fireworks
    defines it: fireworks_cost_comparison), so decoded tokens reach the context through Δ.
    """

    steps: float
    prompts_per_step: float
    group_size: float
    passes: float
    prompt_tokens: float
    completion_tokens: float
    turns: float = 1.0
    context_growth: float = 0.0
    prefix_cache: bool = False


@dataclass(frozen=True)
class CalcInputs:
    """Every choice the calculator needs; ``None`` means "the catalog default"."""

    model: str
    algorithm: str
    price_list: str
    hardware: str
    shape: RunShape
    variant: str = ""
    lora: bool = True
    lora_rank: float | None = None
    d_model: float | None = None
    lora_flops: str = DEFAULT_LORA_FLOPS
    """A key of ``LORA_FLOP_FORMULAS``: which LoRA training formula prices training."""
    score_reference: bool | None = None
    teacher: str | None = None
    mfu_train: float | None = None
    mfu_prefill: float | None = None
    mfu_decode: float | None = None
    gpu_price: float | None = None
    target_percent: float = DEFAULT_TARGET_PERCENT
    checkpoints: float = 1.0
    storage_months: float = 1.0
    vram_gb: Mapping[str, float] = field(default_factory=dict)
    """Overrides, in GB, of the VRAM formulas' byte-valued variables (kv_cache, ...)."""


# --------------------------------------------------------------------------- tokens


@dataclass(frozen=True)
class Tokens:
    """Token counts of the whole run (all floats, as in the browser)."""

    episodes: float
    prefill_per_episode: float
    cached_per_episode: float
    sample_per_episode: float
    sequence_per_episode: float
    prefill: float
    prefill_cached: float
    prefill_uncached: float
    sample: float
    sequence: float
    """Tokens of the finished trajectories: what one training pass or one scoring pass reads."""
    train: float
    """``sequence`` × K passes: what ``forward_backward`` processes."""


def episode_prefill(shape: RunShape) -> float:
    """Prefill tokens per episode with re-prefill every turn: T·C0 + Δ·T(T−1)/2.

    Turn t (0-based) re-sends the context C0 + Δ·t; summing over t = 0..T−1 gives the closed
    form (fireworks_cost_comparison). For T = 1 it is just the prompt.
    """
    t, c0, delta = shape.turns, shape.prompt_tokens, shape.context_growth
    return t * c0 + delta * t * (t - 1) / 2


def episode_cached(shape: RunShape) -> float:
    """Prefill tokens per episode a prefix cache serves: every turn's context but the new part.

    Turn t ≥ 1 finds the previous turn's context (C0 + Δ·(t−1)) cached:
    Σ = (T−1)·C0 + Δ·(T−1)(T−2)/2, so only C0 + Δ·(T−1) tokens per episode are new.
    """
    if not shape.prefix_cache:
        return 0.0
    t, c0, delta = shape.turns, shape.prompt_tokens, shape.context_growth
    return (t - 1) * c0 + delta * (t - 1) * (t - 2) / 2


def episode_sequence(shape: RunShape) -> float:
    """Length of a finished trajectory: C0 + Δ·(T−1) + the last turn's reply."""
    return shape.prompt_tokens + shape.context_growth * (shape.turns - 1) + shape.completion_tokens


def count_tokens(shape: RunShape, online: bool) -> Tokens:
    """Run totals: episodes = steps × prompts × G; offline methods sample nothing."""
    episodes = shape.steps * shape.prompts_per_step * shape.group_size
    prefill = episode_prefill(shape) if online else 0.0
    cached = episode_cached(shape) if online else 0.0
    sample = shape.turns * shape.completion_tokens if online else 0.0
    sequence = episode_sequence(shape)
    return Tokens(
        episodes=episodes, prefill_per_episode=prefill, cached_per_episode=cached,
        sample_per_episode=sample, sequence_per_episode=sequence,
        prefill=episodes * prefill, prefill_cached=episodes * cached,
        prefill_uncached=episodes * prefill - episodes * cached,
        sample=episodes * sample, sequence=episodes * sequence,
        train=episodes * sequence * shape.passes,
    )


# --------------------------------------------------------------------------- resolution


@dataclass(frozen=True)
class Resolved:
    """Inputs with every default filled in from the catalog."""

    inputs: CalcInputs
    model: m.LanguageModel
    algorithm: m.Algorithm
    price_list: m.PriceList
    hardware: m.Hardware
    teacher: m.LanguageModel | None
    row: m.PriceRow | None
    teacher_row: m.PriceRow | None
    roles: tuple[m.ModelRole, ...]
    lora_rank: float
    d_model: float
    training_formula: str
    """The FLOP formula of the training passes (full fine-tuning or the chosen LoRA one)."""
    training_values: Mapping[str, float]
    """Its variables' values, in the formula's declared order (only those it declares)."""
    mfu_train: float
    mfu_prefill: float
    mfu_decode: float
    gpu_price: float
    assumptions: tuple[Assumption, ...]


def middle(values: list[int]) -> float:
    """The default of a typical-values list: its middle entry (upper middle when even)."""
    return float(values[len(values) // 2])


def default_group_size(algo: m.Algorithm) -> float:
    return middle(algo.typical_g.values) if algo.typical_g is not None else 1.0


def default_passes(algo: m.Algorithm) -> float:
    return middle(algo.typical_k.values)


def latest_price_list(catalog: Catalog) -> str:
    return max(catalog.price_lists.values(), key=lambda p: (p.effective, p.id)).id


def price_row(plist: m.PriceList, model: str, variant: str) -> m.PriceRow | None:
    """The row for ``model`` and ``variant``; the plain row, else the first, when absent."""
    rows = [r for r in plist.rows if r.model == model]
    for wanted in (variant, ""):
        for row in rows:
            if (row.variant or "") == wanted:
                return row
    return rows[0] if rows else None


def formula_example(catalog: Catalog, formula_id: str, name: str) -> float:
    """The worked-example value of a formula variable (a catalog value, used as a default)."""
    return next(v.example for v in catalog.formulas[formula_id].variables if v.name == name)


def params(model: m.LanguageModel) -> float:
    """Total parameters (count)."""
    return model.total_params.value * PARAMS_PER_BILLION


def active_params(model: m.LanguageModel) -> float:
    """Parameters used per token (count): the active ones for MoE (transformer_math)."""
    return derive.active_params_billion(model) * PARAMS_PER_BILLION


def roles_in_use(algo: m.Algorithm, score_reference: bool) -> tuple[m.ModelRole, ...]:
    """The algorithm's models in memory, without the reference when it is not scored."""
    return tuple(r for r in algo.models_in_memory
                 if score_reference or r != m.ModelRole.reference)


def resolve(catalog: Catalog, inputs: CalcInputs) -> Resolved:
    """Fill every ``None`` from the catalog (typical G and K stay in ``inputs.shape``)."""
    model = catalog.models[inputs.model]
    algo = catalog.algorithms[inputs.algorithm]
    plist = catalog.price_lists[inputs.price_list]
    hw = catalog.hardware[inputs.hardware]
    score_ref = (m.ModelRole.reference in algo.models_in_memory
                 if inputs.score_reference is None else inputs.score_reference)
    roles = roles_in_use(algo, score_ref)
    teacher = None
    if m.ModelRole.teacher in roles:
        teacher = catalog.models[inputs.teacher or inputs.model]
    train = training_mfu(catalog)
    pre = prefill_mfu(train)
    dec = decode_mfu(catalog, hw, model)
    d_model = inputs.d_model
    if d_model is None:
        d_model = (model.d_model.value if model.d_model is not None
                   else formula_example(catalog, FLOPS_LORA, VAR_DMODEL))
    rank = inputs.lora_rank
    if rank is None:
        rank = formula_example(catalog, FLOPS_LORA, VAR_RANK)
    formula_id, values = training_variables(catalog, inputs, model, rank, d_model)
    return Resolved(
        inputs=replace(inputs, score_reference=score_ref), model=model, algorithm=algo,
        price_list=plist, hardware=hw, teacher=teacher,
        row=price_row(plist, model.id, inputs.variant),
        teacher_row=price_row(plist, teacher.id, "") if teacher is not None else None,
        roles=roles, lora_rank=rank, d_model=d_model,
        training_formula=formula_id, training_values=values,
        mfu_train=train.value if inputs.mfu_train is None else inputs.mfu_train,
        mfu_prefill=pre.value if inputs.mfu_prefill is None else inputs.mfu_prefill,
        mfu_decode=dec.value if inputs.mfu_decode is None else inputs.mfu_decode,
        gpu_price=(default_gpu_price(hw) if inputs.gpu_price is None else inputs.gpu_price),
        assumptions=(train, pre, decode_sequences(), dec),
    )


def training_variables(catalog: Catalog, inputs: CalcInputs, model: m.LanguageModel,
                       rank: float, d_model: float) -> tuple[str, dict[str, float]]:
    """The training FLOP formula and the values of the variables it declares.

    Full fine-tuning: flops_training (6·P). LoRA: the formula of the chosen accounting, the
    sourced 4·P (transformer_math, lora_without_regret) or the original site's 2·P + 6·P·R/D.
    """
    formula_id = LORA_FLOP_FORMULAS[inputs.lora_flops] if inputs.lora else FLOPS_FULL
    offered = {VAR_ACTIVE: active_params(model), VAR_RANK: rank, VAR_DMODEL: d_model}
    return formula_id, {v.name: offered[v.name] for v in catalog.formulas[formula_id].variables}


def default_gpu_price(hw: m.Hardware) -> float:
    """The first rental price of the hardware entry (the catalog's stated default)."""
    if not hw.rental_prices:
        raise ValueError(f"hardware {hw.id} has no rental price")
    return hw.rental_prices[0].price.value


# --------------------------------------------------------------------------- Tinker bill


@dataclass(frozen=True)
class BillLine:
    """One priced quantity: tokens × USD per 1M tokens (or GB-months × USD per GB-month)."""

    key: str
    label: str
    phase: str
    quantity: float
    rate: float
    usd: float
    inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class TinkerBill:
    lines: tuple[BillLine, ...]
    total: float
    available: bool
    """False when the model has no row in the chosen price list."""
    not_covered: tuple[str, ...]
    """Models the algorithm needs that Tinker does not run (critic, reward model)."""


def _per_million(tokens: float, usd_per_million: float) -> float:
    return tokens * usd_per_million / TOKENS_PER_MILLION


def cached_price(r: Resolved) -> float:
    """Prefill price of a cached token: prefill × (1 − discount) (tinker_pricing_2026_07)."""
    assert r.row is not None
    discount = r.price_list.cached_prefill_discount
    if discount is None:
        return r.row.prefill
    return r.row.prefill * (1 - discount.value / PERCENT)


def checkpoint_gb(catalog: Catalog) -> float:
    """One checkpoint = adapter plus optimiser state: the LoRA formula's lora_overhead term."""
    return formula_example(catalog, VRAM_LORA, VAR_LORA_STATE) / BYTES_PER_GB


def tinker_bill(catalog: Catalog, r: Resolved, tokens: Tokens) -> TinkerBill:
    """Prefill, cached prefill, sample and train tokens at the list's prices, plus storage.

    Scoring with a reference or teacher uses ``compute_logprobs`` on a sampling client
    (tinker_cookbook), billed here as prefill of the finished trajectories. Tinker runs no
    critic and no reward model (tinker_docs), so those are listed as not covered.
    """
    not_covered = tuple(role.value for role in r.roles
                        if role in (m.ModelRole.critic, m.ModelRole.reward_model))
    if r.row is None:
        return TinkerBill((), 0.0, False, not_covered)
    row = r.row
    lines = [
        BillLine("prefill", "Prefill", "rollout", tokens.prefill_uncached, row.prefill,
                 _per_million(tokens.prefill_uncached, row.prefill), ("price.prefill",)),
        BillLine("prefill_cached", "Cached prefill", "rollout", tokens.prefill_cached,
                 cached_price(r), _per_million(tokens.prefill_cached, cached_price(r)),
                 ("price.prefill", "price.cache")),
        BillLine("sample", "Sample", "rollout", tokens.sample, row.sample,
                 _per_million(tokens.sample, row.sample), ("price.sample",)),
    ]
    if m.ModelRole.reference in r.roles:
        lines.append(BillLine("reference", "Reference log-probs (as prefill)", "reference",
                              tokens.sequence, row.prefill,
                              _per_million(tokens.sequence, row.prefill), ("price.prefill",)))
    if r.teacher_row is not None:
        lines.append(BillLine("teacher", "Teacher log-probs (as prefill)", "reference",
                              tokens.sequence, r.teacher_row.prefill,
                              _per_million(tokens.sequence, r.teacher_row.prefill),
                              ("teacher_price.prefill",)))
    lines.append(BillLine("train", "Train", "training", tokens.train, row.train,
                          _per_million(tokens.train, row.train), ("price.train",)))
    storage = r.price_list.storage_usd_per_gb_month
    if storage is not None:
        gb_months = r.inputs.checkpoints * checkpoint_gb(catalog) * r.inputs.storage_months
        lines.append(BillLine("storage", "Checkpoint storage", "storage", gb_months,
                              storage.value, gb_months * storage.value,
                              ("price.storage", "vram.lora_overhead")))
    return TinkerBill(tuple(lines), _add(line.usd for line in lines), True, not_covered)


def _add(values: Iterable[float]) -> float:
    """Left-to-right float sum, as the browser's loop does it."""
    total = 0.0
    for value in values:
        total = total + value
    return total


# --------------------------------------------------------------------------- self-hosted


@dataclass(frozen=True)
class ComputeLine:
    """One phase on rented GPUs: tokens × FLOPs/token, at an MFU, priced per GPU-hour."""

    key: str
    label: str
    phase: str
    formula: str
    tokens: float
    flops_per_token: float
    flops: float
    mfu: float
    gpu_hours: float
    usd: float


@dataclass(frozen=True)
class SelfHosted:
    lines: tuple[ComputeLine, ...]
    flops: float
    gpu_hours: float
    total: float


def gpu_hours(flops: float, tflops: float, mfu: float) -> float:
    """FLOPs ÷ (peak × MFU) in seconds, then hours."""
    return flops / (tflops * FLOPS_PER_TFLOP * mfu) / SECONDS_PER_HOUR


def flops_per_token(catalog: Catalog, formula_id: str, values: dict[str, float]) -> float:
    """A catalog FLOP formula evaluated with the given variables (never re-typed here)."""
    return derive.evaluate_formula(catalog.formulas[formula_id], values)


def training_formula(r: Resolved) -> tuple[str, dict[str, float]]:
    """Full fine-tuning (6·P) or LoRA in the chosen accounting (``training_variables``)."""
    return r.training_formula, dict(r.training_values)


def _compute_line(catalog: Catalog, r: Resolved, key: str, label: str, phase: str,
                  formula_id: str, values: dict[str, float], tokens: float,
                  mfu: float) -> ComputeLine:
    per_token = flops_per_token(catalog, formula_id, values)
    flops = tokens * per_token
    hours = gpu_hours(flops, r.hardware.bf16_dense_tflops.value, mfu)
    return ComputeLine(key, label, phase, formula_id, tokens, per_token, flops, mfu, hours,
                       hours * r.gpu_price)


def self_hosted(catalog: Catalog, r: Resolved, tokens: Tokens) -> SelfHosted:
    """Every phase's FLOPs from the catalog formulas, turned into GPU-hours and dollars.

    Rollout: uncached prefill at the prefill MFU, sampled tokens at the decode MFU
    (flops_rollout). Scoring: one forward pass over the trajectories per model kept for it
    (flops_ref_logprobs; the reward model and critic are assumed as large as the policy).
    Training: K passes of the training formula for the policy, and for the critic if any.
    """
    p = active_params(r.model)
    act = {VAR_ACTIVE: p}
    lines = [
        _compute_line(catalog, r, "prefill", "Rollout prefill", "rollout", FLOPS_ROLLOUT, act,
                      tokens.prefill_uncached, r.mfu_prefill),
        _compute_line(catalog, r, "decode", "Rollout decode", "rollout", FLOPS_ROLLOUT, act,
                      tokens.sample, r.mfu_decode),
    ]
    if m.ModelRole.reference in r.roles:
        lines.append(_compute_line(catalog, r, "reference", "Reference log-probs", "reference",
                                   FLOPS_REFERENCE, act, tokens.sequence, r.mfu_prefill))
    if r.teacher is not None:
        lines.append(_compute_line(catalog, r, "teacher", "Teacher log-probs", "reference",
                                   FLOPS_REFERENCE, {VAR_ACTIVE: active_params(r.teacher)},
                                   tokens.sequence, r.mfu_prefill))
    if m.ModelRole.reward_model in r.roles:
        lines.append(_compute_line(catalog, r, "reward_model", "Reward model", "reference",
                                   FLOPS_REFERENCE, act, tokens.sequence, r.mfu_prefill))
    formula_id, values = training_formula(r)
    lines.append(_compute_line(catalog, r, "train", "Policy training", "training", formula_id,
                               values, tokens.train, r.mfu_train))
    if m.ModelRole.critic in r.roles:
        lines.append(_compute_line(catalog, r, "critic", "Critic training", "training",
                                   formula_id, values, tokens.train, r.mfu_train))
    return SelfHosted(tuple(lines), _add(x.flops for x in lines),
                      _add(x.gpu_hours for x in lines), _add(x.usd for x in lines))


# --------------------------------------------------------------------------- memory


@dataclass(frozen=True)
class MemoryTerm:
    variable: str
    label: str
    value: float
    """The variable's value (parameters or bytes)."""
    bytes: float


@dataclass(frozen=True)
class Memory:
    formula: str
    terms: tuple[MemoryTerm, ...]
    total_bytes: float
    gpu_memory_gb: float
    min_gpus: float


def vram_formula_id(lora: bool) -> str:
    return VRAM_LORA if lora else VRAM_FULL


def role_params(r: Resolved, role: m.ModelRole) -> float:
    """Parameters held for a role: the teacher's own size, the policy's for every other."""
    if role == m.ModelRole.teacher and r.teacher is not None:
        return params(r.teacher)
    return params(r.model)


def vram_values(catalog: Catalog, r: Resolved) -> dict[str, float]:
    """The VRAM formula's variables: summed parameters per role, bytes from the examples."""
    formula = catalog.formulas[vram_formula_id(r.inputs.lora)]
    mapping = ROLE_VARIABLES[formula.id]
    values: dict[str, float] = {}
    for var in formula.variables:
        if var.unit == Unit.parameters:
            total = 0.0
            for role in r.roles:
                if mapping[role] == var.name:
                    total = total + role_params(r, role)
            values[var.name] = total
        elif var.name in r.inputs.vram_gb:
            values[var.name] = r.inputs.vram_gb[var.name] * BYTES_PER_GB
        else:
            values[var.name] = var.example
    return values


def memory(catalog: Catalog, r: Resolved) -> Memory:
    """Total from the catalog expression; each term is f(that variable alone) − f(all zero)."""
    formula = catalog.formulas[vram_formula_id(r.inputs.lora)]
    values = vram_values(catalog, r)
    zeros = {name: 0.0 for name in values}
    base = derive.evaluate_formula(formula, zeros)
    terms = tuple(
        MemoryTerm(v.name, v.meaning, values[v.name],
                   derive.evaluate_formula(formula, {**zeros, v.name: values[v.name]}) - base)
        for v in formula.variables
    )
    total = derive.evaluate_formula(formula, values)
    per_gpu = r.hardware.memory_gb.value
    return Memory(formula.id, terms, total, per_gpu,
                  float(math.ceil(total / (per_gpu * BYTES_PER_GB))))


# --------------------------------------------------------------------------- convergence


@dataclass(frozen=True)
class Convergence:
    """Compute at which the ScaleRL fit reaches ``fraction`` of its gain, and its price."""

    fraction: float
    gb200_hours: float
    h100_hours: float
    reward: float
    chosen_hours: float
    usd: float
    gb200_usd: float


def convergence(catalog: Catalog, r: Resolved) -> Convergence | None:
    """C = C_mid / (1/f − 1)^(1/B) (derive.compute_to_reach), in GB200-hours and dollars.

    H100-equivalent via derive.conversion_factor; hours on the chosen GPU by the same peak
    dense BF16 ratio; dollars at the chosen GPU's price and at GB200's default price.
    """
    fit = r.algorithm.scalerl
    if fit is None:
        return None
    fraction = r.inputs.target_percent / PERCENT
    p = derive.sigmoid_params(fit)
    gb200_hours = derive.compute_to_reach(p, fraction)
    factor = derive.conversion_factor(catalog)
    gb200 = catalog.hardware[factor.from_id]
    chosen_hours = (gb200_hours * gb200.bf16_dense_tflops.value
                    / r.hardware.bf16_dense_tflops.value)
    return Convergence(
        fraction=fraction, gb200_hours=gb200_hours,
        h100_hours=derive.h100_equivalent_hours(gb200_hours, factor),
        reward=derive.scalerl_reward(p, gb200_hours), chosen_hours=chosen_hours,
        usd=chosen_hours * r.gpu_price, gb200_usd=gb200_hours * default_gpu_price(gb200),
    )


# --------------------------------------------------------------------------- break-even


@dataclass(frozen=True)
class BreakEven:
    """Where the two bills meet."""

    gpu_price: float | None
    """USD per GPU-hour at which the self-hosted compute costs what Tinker charges."""
    ratio: float | None
    """Tinker bill ÷ self-hosted bill."""
    setup_usd: float
    runs_to_repay_setup: float | None
    """Runs whose savings pay for building the stack; None when self-hosting saves nothing."""


def break_even(catalog: Catalog, tinker: TinkerBill, own: SelfHosted) -> BreakEven:
    setup = catalog.platform.setup_cost.total.value if catalog.platform else 0.0
    if not tinker.available or own.gpu_hours <= 0:
        return BreakEven(None, None, setup, None)
    saving = tinker.total - own.total
    return BreakEven(
        gpu_price=tinker.total / own.gpu_hours,
        ratio=tinker.total / own.total if own.total > 0 else None,
        setup_usd=setup,
        runs_to_repay_setup=setup / saving if saving > 0 else None,
    )


# --------------------------------------------------------------------------- the whole run


@dataclass(frozen=True)
class Result:
    resolved: Resolved
    tokens: Tokens
    tinker: TinkerBill
    self_hosted: SelfHosted
    memory: Memory
    convergence: Convergence | None
    break_even: BreakEven
    wall_clock_hours: float
    """Self-hosted GPU-hours spread over the minimum number of GPUs that hold the models."""


def calculate(catalog: Catalog, inputs: CalcInputs) -> Result:
    """The whole estimate for one run."""
    r = resolve(catalog, inputs)
    tokens = count_tokens(inputs.shape, r.algorithm.online)
    tinker = tinker_bill(catalog, r, tokens)
    own = self_hosted(catalog, r, tokens)
    mem = memory(catalog, r)
    return Result(
        resolved=r, tokens=tokens, tinker=tinker, self_hosted=own, memory=mem,
        convergence=convergence(catalog, r), break_even=break_even(catalog, tinker, own),
        wall_clock_hours=own.gpu_hours / mem.min_gpus,
    )


# --------------------------------------------------------------------------- flat numbers


def numbers(result: Result) -> dict[str, float | None]:
    """Every number of the estimate under a stable key; the browser builds the same dict."""
    t, out = result.tokens, {}
    for name in ("episodes", "prefill", "prefill_cached", "prefill_uncached", "sample",
                 "sequence", "train"):
        out[f"tokens.{name}"] = getattr(t, name)
    for line in result.tinker.lines:
        out[f"tinker.{line.key}"] = line.usd
    out["tinker.total"] = result.tinker.total if result.tinker.available else None
    for c in result.self_hosted.lines:
        out[f"self.{c.key}.flops"] = c.flops
        out[f"self.{c.key}.gpu_hours"] = c.gpu_hours
        out[f"self.{c.key}.usd"] = c.usd
    out["self.flops"] = result.self_hosted.flops
    out["self.gpu_hours"] = result.self_hosted.gpu_hours
    out["self.total"] = result.self_hosted.total
    out["mfu.train"] = result.resolved.mfu_train
    out["mfu.prefill"] = result.resolved.mfu_prefill
    out["mfu.decode"] = result.resolved.mfu_decode
    out["gpu_price"] = result.resolved.gpu_price
    for term in result.memory.terms:
        out[f"vram.{term.variable}"] = term.bytes
    out["vram.total"] = result.memory.total_bytes
    out["vram.min_gpus"] = result.memory.min_gpus
    out["wall_clock_hours"] = result.wall_clock_hours
    conv = result.convergence
    for name in ("gb200_hours", "h100_hours", "reward", "chosen_hours", "usd", "gb200_usd"):
        out[f"scalerl.{name}"] = getattr(conv, name) if conv is not None else None
    be = result.break_even
    out["breakeven.gpu_price"] = be.gpu_price
    out["breakeven.ratio"] = be.ratio
    out["breakeven.runs"] = be.runs_to_repay_setup
    return out
