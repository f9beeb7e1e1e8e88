"""Authoring models: what a contributor may write in ``catalog/`` (pipeline step 2).

The loader turns YAML into plain Python data; these pydantic models validate it strictly
(``extra="forbid"``, no type coercion). Every field has a description: it reaches editors through
the generated JSON Schemas and readers through the site's Fields reference page. Cross-entry
rules (references resolve, ids equal file names, ...) live in ``rules.py``; arithmetic lives in
``derive.py``. Public API models are separate (``api.py``).
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tinkernomics.catalog.fields import Id, Prose, ShortText, Status, Unit, Url

IDENT_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
Identifier = Annotated[str, StringConstraints(pattern=IDENT_PATTERN, max_length=40)]


class StrictModel(BaseModel):
    """Base for every authoring model: unknown fields and type coercion are errors."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        use_attribute_docstrings=True,
        json_schema_extra={"additionalProperties": False},
    )


# --------------------------------------------------------------------------- provenance


class Figure(StrictModel):
    """A number with its unit, its source and how far it is confirmed."""

    value: float = Field(description="The number, in `unit`. Lower bound when `high` is set.",
                         examples=[50, 4000, 0.4])
    high: float | None = Field(
        default=None, description="Upper bound, when the source gives a range (e.g. 2-4 weeks)."
    )
    approx: bool = Field(
        default=False, description="True when the source says 'about' / '~'; shown with ≈."
    )
    unit: Unit = Field(description="Unit of `value` (and `high`).")
    status: Status = Field(
        description=(
            "`reported`: stated in the cited source; `derived`: computed from cited inputs; "
            "`unverified`: as given by the original site, no source confirms it."
        )
    )
    source: Id = Field(description="Id of the reference (catalog/references/) that backs it.",
                       examples=["grpo_deepseekmath"])
    note: Prose | None = Field(default=None, description="Context shown beside the figure.")
    reported_instead: Prose | None = Field(
        default=None,
        description=(
            "Required when status is `unverified`: what the sources do report instead "
            "(or where you looked and found nothing)."
        ),
    )


class FigureList(StrictModel):
    """A short list of typical values (e.g. group sizes) with one shared provenance."""

    values: list[Annotated[int, Field(ge=0)]] = Field(
        min_length=1, description="Typical values, smallest first.", examples=[[8, 16]]
    )
    unit: Unit = Field(default=Unit.count, description="Unit of the values.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    source: Id = Field(description="Reference id backing the values.",
                       examples=["grpo_deepseekmath"])
    note: Prose | None = Field(default=None, description="Context shown beside the values.")
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead."
    )


class Claim(StrictModel):
    """A sentence with figures in it (e.g. a headline result), with its provenance."""

    text: Prose = Field(description="The claim, in markdown, figures included.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    source: Id = Field(description="Reference id backing the claim.",
                       examples=["grpo_deepseekmath"])
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead."
    )


# --------------------------------------------------------------------------- references


class Reference(StrictModel):
    """A paper, post, documentation page or data source that figures cite."""

    id: Id = Field(description="Equal to the file name without `.yaml`.")
    title: ShortText = Field(description="Exact title of the work.")
    authors: ShortText = Field(description="Authors or organisation, e.g. 'Shao et al.'.")
    venue: ShortText | None = Field(
        default=None, description="Venue or kind: 'arXiv 2402.03300', 'NSDI 2025', 'Blog'."
    )
    year: int | None = Field(default=None, ge=1950, le=2100, description="Publication year.")
    date: dt.date | None = Field(
        default=None, description="Publication or snapshot date, YYYY-MM-DD, when known."
    )
    url: Url | None = Field(
        default=None, description="Canonical http(s) URL. Only an unverified reference may omit it."
    )
    checked: dt.date | None = Field(
        default=None,
        description="When someone last checked this citation against its source, YYYY-MM-DD.",
    )
    status: Status = Field(
        default=Status.reported,
        description="`reported` when the citation itself was checked; `unverified` otherwise.",
    )
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what could and could not be found."
    )
    key: bool = Field(
        default=False, description="True for the site's list of key references."
    )
    label: ShortText | None = Field(
        default=None, description="Short label shown in the key-references list, if not the title."
    )
    further_reading: Prose | None = Field(
        default=None, description="If set, the reference is listed under Further reading with this."
    )
    summary: Prose | None = Field(
        default=None, description="What the source confirms, in a sentence or two."
    )


# --------------------------------------------------------------------------- algorithms


class ModelRole(StrEnum):
    """A model an algorithm keeps in memory during training."""

    policy = "policy"
    reference = "reference"
    critic = "critic"
    reward_model = "reward_model"
    teacher = "teacher"


class MemoryProfile(StrEnum):
    """Coarse memory class: low (policy + frozen copy), high (extra trained models)."""

    low = "low"
    medium = "medium"
    high = "high"


class ScaleRLFit(StrictModel):
    """Parameters of the ScaleRL sigmoid R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)."""

    model: ShortText = Field(description="Model the fit was made on.", examples=["Llama-3.1-8B"])
    dataset: ShortText = Field(description="Training/evaluation data of the fit.",
                               examples=["MATH"])
    A: Figure = Field(description="Asymptotic pass rate (ceiling), unit `percent`.")
    B: Figure = Field(description="Scaling exponent (> 0), unit `dimensionless`.")
    C_mid: Figure = Field(description="Compute at half the gain, unit `gb200_hours`.")
    R0: Figure | None = Field(
        default=None,
        description="Starting pass rate, unit `percent`. When absent, curves assume 0.",
    )


class Algorithm(StrictModel):
    """An RL post-training algorithm and its cost/memory profile."""

    id: Id = Field(description="Equal to the file name without `.yaml`.", examples=["grpo"])
    name: ShortText = Field(description="Short name shown in tables.", examples=["GRPO"])
    full_name: ShortText = Field(description="Expanded name.",
                                 examples=["Group Relative Policy Optimization"])
    attribution: ShortText = Field(description="Who introduced it, as shown under the name.",
                                   examples=["Shao et al., DeepSeekMath"])
    year: int = Field(ge=1950, le=2100, description="Year of the original paper.",
                      examples=[2024])
    models_in_memory: list[ModelRole] = Field(
        min_length=1, description="Models held in memory while training.",
        examples=[["policy", "reference"]],
    )
    needs_critic: bool = Field(description="True if a value model (critic) is trained.")
    needs_reward_model: bool = Field(description="True if a learned reward model scores rollouts.")
    memory_profile: MemoryProfile = Field(description="Coarse memory class.")
    typical_k: FigureList = Field(description="Typical optimisation passes K per batch.")
    typical_g: FigureList | None = Field(
        default=None, description="Typical group size G (rollouts per prompt); omit if N/A."
    )
    async_support: bool = Field(description="True if it tolerates off-policy (async) rollouts.")
    online: bool = Field(default=True, description="False for offline methods with no rollouts.")
    tinker_losses: list[Id] = Field(
        default_factory=list,
        description="Tinker loss ids (catalog/tinker/losses/) it maps to, primary first.",
        examples=[["importance_sampling"]],
    )
    tinker_mapping: Prose | None = Field(
        default=None, description="How the algorithm is run on Tinker, if not a plain mapping."
    )
    scalerl: ScaleRLFit | None = Field(default=None, description="ScaleRL sigmoid fit, if any.")
    notes: Prose = Field(description="What sets it apart, in a few sentences of markdown.")
    claims: list[Claim] = Field(default_factory=list, description="Headline results with sources.")
    references: list[Id] = Field(min_length=1, description="Reference ids it rests on.",
                                 examples=[["grpo_deepseekmath", "2_grpo"]])


# --------------------------------------------------------------------------- formulas


class FormulaKind(StrEnum):
    """What a formula computes."""

    flops = "flops"
    vram = "vram"


class Variable(StrictModel):
    """A variable of a formula's expression."""

    name: Identifier = Field(description="Name used in `expression`.", examples=["P_active"])
    symbol: str = Field(max_length=80, description="LaTeX symbol.", examples=["P_{active}"])
    meaning: ShortText = Field(description="What the variable stands for.")
    unit: Unit = Field(description="Unit of the variable.")
    example: float = Field(ge=0, description="Value used in the worked example.")


class Formula(StrictModel):
    """A FLOP or VRAM formula: display form, variables and a computable expression."""

    id: Id = Field(description="Equal to the file name without `.yaml`.")
    kind: FormulaKind = Field(description="`flops` or `vram`.")
    name: ShortText = Field(description="Component it prices.", examples=["Rollout, per token"])
    order: int = Field(default=0, ge=0, description="Position in its table, smallest first.")
    latex: str = Field(min_length=1, max_length=400, description="Display form (LaTeX).")
    expression: str = Field(
        min_length=1, max_length=400,
        description="Arithmetic over the variables: + - * / ** and parentheses.",
        examples=["2 * P_active"],
    )
    result_unit: Unit = Field(description="Unit of the result.")
    variables: list[Variable] = Field(min_length=1, description="Every variable it uses.")
    description: Prose = Field(description="What it counts and what it leaves out.")
    status: Status = Field(description="Provenance status of the formula.")
    source: Id = Field(description="Reference id backing it.", examples=["transformer_math"])
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources give instead."
    )


# --------------------------------------------------------------------------- hardware


class RentalPrice(StrictModel):
    """A dated rental price for one GPU."""

    provider: ShortText = Field(description="Provider or index.", examples=["CoreWeave"])
    date: ShortText = Field(description="When the price held, e.g. '2026-02'.")
    price: Figure = Field(description="Price, unit `usd_per_gpu_hour`.")


class Hardware(StrictModel):
    """An accelerator with the specs the cost formulas need."""

    id: Id = Field(description="Equal to the file name without `.yaml`.", examples=["h100"])
    name: ShortText = Field(description="Display name.", examples=["NVIDIA H100 SXM"])
    bf16_dense_tflops: Figure = Field(description="Peak dense BF16, unit `tflops`.")
    memory_gb: Figure = Field(description="Memory per GPU, unit `gb`.")
    bandwidth_tb_s: Figure | None = Field(default=None, description="Unit `tb_per_second`.")
    power_w: Figure | None = Field(default=None, description="Board power, unit `watts`.")
    rental_prices: list[RentalPrice] = Field(
        default_factory=list, description="Dated rental prices; the first is the default."
    )
    notes: Prose | None = Field(default=None, description="Anything a reader should know.")


class Conversion(StrictModel):
    """A compute-equivalence between two accelerators, derived from their specs."""

    id: Id = Field(description="Equal to the file name without `.yaml`.")
    from_hardware: Id = Field(description="Hardware id converted from.", examples=["gb200"])
    to_hardware: Id = Field(description="Hardware id converted to.", examples=["h100"])
    basis: ShortText = Field(description="How the factor is derived, shown beside it.")
    description: Prose = Field(description="Why this basis, and its limits.")
    legacy_factor: Figure | None = Field(
        default=None, description="A factor used before, kept for the record (often unverified)."
    )
    alternatives: list[Claim] = Field(default_factory=list,
                                      description="Other defensible factors, with sources.")


# --------------------------------------------------------------------------- Tinker


class Architecture(StrEnum):
    """Dense or mixture-of-experts."""

    dense = "dense"
    moe = "moe"


class LanguageModel(StrictModel):
    """A base model offered for training (Tinker's lineup)."""

    id: Id = Field(description="Equal to the file name.", examples=["qwen3-8b"])
    name: ShortText = Field(description="Model name as the provider lists it.")
    family: ShortText = Field(description="Model family, e.g. 'Qwen3'.")
    architecture: Architecture = Field(description="`dense` or `moe`.")
    vision: bool = Field(default=False, description="True if it takes image input.")
    total_params: Figure = Field(description="Total parameters, unit `billion_parameters`.")
    active_params: Figure | None = Field(
        default=None, description="Active parameters (MoE), unit `billion_parameters`."
    )
    d_model: Figure | None = Field(default=None, description="Hidden size, unit `count`.")
    notes: Prose | None = Field(default=None, description="Anything a reader should know.")


class PriceRow(StrictModel):
    """Tinker's per-token prices for one model (and context variant)."""

    model: Id = Field(description="Model id (catalog/models/).")
    variant: ShortText | None = Field(
        default=None, description="Variant suffix, e.g. ':peft:262144' (long context)."
    )
    prefill: float = Field(ge=0, description="USD per 1M prefill (prompt) tokens.")
    sample: float = Field(ge=0, description="USD per 1M sampled tokens.")
    train: float = Field(ge=0, description="USD per 1M trained tokens.")
    note: ShortText | None = Field(default=None, description="e.g. 'limited-time 50% discount'.")
    status: Status | None = Field(default=None, description="Overrides the list's status.")
    source: Id | None = Field(default=None, description="Overrides the list's source.")
    reported_instead: Prose | None = Field(
        default=None, description="Required when this row is unverified."
    )


class PriceList(StrictModel):
    """A dated snapshot of Tinker's price list."""

    id: Id = Field(description="Equal to the file name, e.g. '2026-07-17'.")
    effective: dt.date = Field(
        description="Date the prices took effect or were captured, YYYY-MM-DD."
    )
    title: ShortText = Field(description="Short description of the snapshot.")
    status: Status = Field(description="Default status of every price in the list.")
    source: Id = Field(description="Default source of every price in the list.",
                       examples=["tinker_pricing_2026_07"])
    reported_instead: Prose | None = Field(
        default=None, description="Required when the list is unverified."
    )
    storage_usd_per_gb_month: Figure | None = Field(
        default=None, description="Checkpoint storage price, unit `usd_per_gb_month`."
    )
    cached_prefill_discount: Figure | None = Field(
        default=None, description="Discount on cached prefill tokens, unit `percent`."
    )
    rows: list[PriceRow] = Field(min_length=1, description="One row per model and variant.")
    notes: Prose | None = Field(default=None, description="Caveats about this snapshot.")


class LossInput(StrictModel):
    """A per-token input array of a Tinker loss."""

    name: Identifier = Field(description="Key in `loss_fn_inputs`.")
    dtype: ShortText = Field(description="Element type, e.g. 'int' or 'float'.")
    description: ShortText = Field(description="What it holds.")


class Hyperparameter(StrictModel):
    """A key of a loss's `loss_fn_config`."""

    name: Identifier = Field(description="Key in `loss_fn_config`.")
    description: Prose = Field(description="What it does.")
    default: Figure | None = Field(default=None, description="Default value, if documented.")


class TinkerLoss(StrictModel):
    """A Tinker loss function (built-in, or the custom-loss interface)."""

    id: Id = Field(description="Equal to the file name; Tinker's loss_fn string for built-ins.")
    name: ShortText = Field(description="Display name.")
    builtin: bool = Field(description="True for the five built-in losses.")
    order: int = Field(default=0, ge=0, description="Position in the losses table.")
    inputs: list[LossInput] = Field(default_factory=list, description="Per-token inputs.")
    outputs: list[Identifier] = Field(default_factory=list, description="Per-token outputs.")
    hyperparameters: list[Hyperparameter] = Field(default_factory=list,
                                                  description="`loss_fn_config` keys.")
    latex: str = Field(min_length=1, max_length=400, description="The loss (LaTeX).")
    description: Prose = Field(description="What it computes and when to use it.")
    claims: list[Claim] = Field(default_factory=list, description="Costs or caveats, sourced.")
    references: list[Id] = Field(min_length=1, description="Reference ids.")


class Phase(StrEnum):
    """A phase of an RL step."""

    rollout = "rollout"
    reward = "reward"
    update = "update"
    checkpoint = "checkpoint"
    setup = "setup"


class Primitive(StrictModel):
    """A Tinker client call."""

    name: Identifier = Field(description="Method name.", examples=["forward_backward"])
    client: Identifier = Field(description="Client class.", examples=["TrainingClient"])
    signature: str = Field(max_length=200, description="Call signature (code).")
    description: Prose = Field(description="What it does.")
    core: bool = Field(default=False, description="True for the four core primitives.")
    phase: Phase | None = Field(default=None, description="RL phase it serves.")
    source: Id = Field(description="Reference id.", examples=["tinker_docs"])


class TokenType(StrictModel):
    """A kind of token Tinker bills separately."""

    id: Identifier = Field(description="`prefill`, `sample` or `train`.")
    name: ShortText = Field(description="Display name.")
    description: Prose = Field(description="What is billed as this kind.")


class AbsorbedItem(StrictModel):
    """A piece of infrastructure the managed trainer takes off your hands."""

    name: ShortText = Field(description="Short name.")
    description: Prose = Field(description="What it involves.")


class SpectrumPoint(StrictModel):
    """A point on the control-versus-operational-burden spectrum."""

    name: ShortText = Field(description="Kind of tool.")
    examples: ShortText = Field(description="Examples.")
    control: ShortText = Field(description="How much of the loop you control.")
    burden: ShortText = Field(description="What you must operate.")
    description: Prose = Field(description="Trade-off in a sentence or two.")


class SetupCost(StrictModel):
    """The one-off engineering cost of self-hosting an RL stack."""

    duration: Figure = Field(description="Engineering time, unit `weeks`.")
    hourly_rate: Figure = Field(description="Engineer rate, unit `usd_per_hour`.")
    hours_per_week: Figure = Field(description="Working hours per week, unit `hours`.")
    total: Figure = Field(description="Total as the original site states it, unit `usd`.")
    description: Prose = Field(description="Why it matters and what keeps costing.")


class TinkerPlatform(StrictModel):
    """Tinker as a platform: primitives, token types, what it absorbs, where it sits."""

    id: Id = Field(description="Always 'tinker' (the file name).")
    intro: Prose = Field(description="What Tinker is, in a paragraph.")
    primitives: list[Primitive] = Field(min_length=4, description="Client calls; four are core.")
    phases: Prose = Field(description="How the primitives map onto the RL phases.")
    token_types: list[TokenType] = Field(min_length=3, max_length=3,
                                         description="The three billed token kinds.")
    pricing_rationale: Prose = Field(description="Why per-token pricing makes cost visible.")
    absorbs: list[AbsorbedItem] = Field(min_length=1, description="What the abstraction absorbs.")
    setup_cost: SetupCost = Field(description="Cost of building it yourself.")
    spectrum: list[SpectrumPoint] = Field(min_length=2, description="The abstraction spectrum.")
    spectrum_intro: Prose = Field(description="The control-versus-burden trade-off.")
    gpu_hours_hide: Prose = Field(description="Why GPU-hours hide the real cost.")
    gpu_hours_claims: list[Claim] = Field(default_factory=list,
                                          description="Sourced figures about phase time.")
    general_purpose_note: Prose = Field(description="Tinker is a trainer, not an RL framework.")
    grpo_note: Prose = Field(description="How GRPO runs on the built-in losses.")
    references: list[Id] = Field(min_length=1, description="Reference ids.")
