"""Public API models of the catalog's entries (pipeline step 6: what /api/v1/ items hold).

Separate from the authoring models (``tinkernomics.catalog.models``) so the catalog can change
for contributors without breaking readers of the API. ``api.models`` re-exports them.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import AssertedBy, Status, Unit
from tinkernomics.site.api.provenance import (
    ASSERTED_BY_API,
    ApiModel,
    Citation,
    Claim,
    Derivation,
    Figure,
    FigureList,
)
from tinkernomics.site.api.records import ModelShape, ScaleRLRecord, Semantics


class Reference(ApiModel):
    """A paper, post, documentation page or data source."""

    id: str = Field(description="Reference id; figures name it in `source`.")
    title: str = Field(description="Title of the work.")
    authors: str = Field(description="Authors or organisation.")
    venue: str | None = Field(description="Venue or kind of publication.")
    year: int | None = Field(description="Publication year.")
    date: dt.date | None = Field(description="Publication or snapshot date.")
    url: str | None = Field(description="Canonical URL; null only for unverified references.")
    checked: dt.date = Field(description="When the citation was last checked against the source.")
    status: Status = Field(description="`reported` when the citation was checked.")
    reported_instead: str | None = Field(description="For unverified references: what was found.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    key: bool = Field(description="True for the site's key references.")
    label: str | None = Field(description="Short label for lists.")
    further_reading: str | None = Field(description="Why it is worth reading, when listed.")
    summary: str | None = Field(description="What the source confirms.")
    cited_by: list[Citation] = Field(description="Entries citing it, by kind then id.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class CurvePoint(ApiModel):
    """A point of a fitted ScaleRL curve."""

    gb200_hours: float = Field(description="Compute, in GB200-hours.")
    h100_equivalent_hours: float | None = Field(
        description="The same compute in H100-hours; null if the catalog has no conversion."
    )
    reward_percent: float = Field(description="Fitted pass rate R(C), in percent.")


class Curve(ApiModel):
    """R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) sampled on a shared log grid."""

    status: Literal[Status.derived] = Field(description="Always `derived`.")
    derivation: Derivation = Field(description="Inputs of the curve.")
    points: list[CurvePoint] = Field(description="Points, by increasing compute.")


class ScaleRL(ApiModel):
    """ScaleRL sigmoid fit and what is derived from it."""

    model: str = Field(description="Model the fit was made on.")
    dataset: str = Field(description="Data of the fit.")
    setting: str | None = Field(description="The exact setting: model, data, batch, generation "
                                            "length, compute unit, fitting window (markdown).")
    curve_label: str | None = Field(
        description="What the fitted curve is, in a few words (e.g. `ScaleRL recipe`, `loss in "
                    "the paper's baseline`), as chart legends show it after the algorithm's "
                    "name; plain text; null when not given.")
    A: Figure = Field(description="Asymptotic pass rate, percent.")
    B: Figure = Field(description="Scaling exponent.")
    C_mid: Figure = Field(description="Compute at half the gain, GB200-hours.")
    R0: Figure | None = Field(description="Starting pass rate, percent; null means 0.")
    C_mid_h100_equivalent: Figure | None = Field(
        description="C_mid in H100-hours of equal peak dense BF16 compute (derived)."
    )
    curve: Curve = Field(description="The fitted curve (derived).")


class Algorithm(ApiModel):
    """An RL post-training algorithm and its cost and memory profile."""

    id: str = Field(description="Algorithm id.")
    name: str = Field(description="Short name.")
    full_name: str = Field(description="Expanded name.")
    attribution: str = Field(description="Who introduced it.")
    year: int = Field(description="Year of the original paper.")
    models_in_memory: list[m.ModelRole] = Field(description="Models held in memory.")
    needs_critic: bool = Field(description="True if a value model is trained.")
    needs_reward_model: bool = Field(description="True if a learned reward model scores rollouts.")
    memory_profile: m.MemoryProfile = Field(description="Coarse memory class.")
    typical_k: FigureList = Field(description="Typical optimisation passes K per batch.")
    typical_g: FigureList | None = Field(description="Typical group size G; null if N/A.")
    async_support: bool = Field(description="True if it tolerates off-policy rollouts.")
    online: bool = Field(description="False for offline methods.")
    tinker_losses: list[str] = Field(description="Tinker loss ids it maps to, primary first.")
    tinker_mapping: str | None = Field(description="How it runs on Tinker (markdown).")
    scalerl: ScaleRL | None = Field(description="ScaleRL fit the charts draw (sourced "
                                                "figures only), if any.")
    scalerl_record: ScaleRLRecord | None = Field(
        description="Other fits sources report (variants, ablations) and superseded values.")
    semantics: Semantics | None = Field(
        description="KL to a reference, reward source, rollouts, teacher and over-sampling, "
                    "each sourced: what the run model reads.")
    notes: str = Field(description="What sets it apart (markdown).")
    claims: list[Claim] = Field(description="Headline results with sources.")
    references: list[str] = Field(description="Reference ids it rests on.")
    page: str = Field(description="Its page on the site, relative to the site root.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class Variable(ApiModel):
    """A variable of a formula."""

    name: str = Field(description="Name used in `expression`.")
    symbol: str = Field(description="LaTeX symbol.")
    meaning: str = Field(description="What it stands for.")
    unit: Unit = Field(description="Unit.")
    unit_label: str = Field(description="Short label of the unit.")
    example: float = Field(description="Value used in the worked example.")


class WorkedExample(ApiModel):
    """A formula evaluated at its variables' example values."""

    inputs: dict[str, float] = Field(description="Variable name -> example value.")
    result: Figure = Field(description="The result (derived).")


class Formula(ApiModel):
    """A FLOP or VRAM formula."""

    id: str = Field(description="Formula id.")
    kind: m.FormulaKind = Field(description="`flops` or `vram`.")
    name: str = Field(description="Component it prices.")
    order: int = Field(description="Position in its table.")
    latex: str = Field(description="Display form (LaTeX).")
    expression: str = Field(description="Arithmetic over the variables (+ - * / ** and parens).")
    result_unit: Unit = Field(description="Unit of the result.")
    variables: list[Variable] = Field(description="Every variable it uses.")
    description: str = Field(description="What it counts and leaves out (markdown).")
    status: Status = Field(description="Provenance status of the formula.")
    source: str = Field(description="Reference id backing it.")
    reported_instead: str | None = Field(description="For unverified formulas: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    worked_example: WorkedExample = Field(description="Evaluated at the example values.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class RentalPrice(ApiModel):
    """A dated rental price for one GPU."""

    provider: str = Field(description="Provider or index.")
    date: str = Field(description="When the price held.")
    price: Figure = Field(description="USD per GPU-hour.")


class Hardware(ApiModel):
    """An accelerator and the specs the cost formulas need."""

    id: str = Field(description="Hardware id.")
    name: str = Field(description="Display name.")
    bf16_dense_tflops: Figure = Field(description="Peak dense BF16, TFLOP/s.")
    bf16_sparse_tflops: Figure | None = Field(
        description="Peak BF16 with 2:4 sparsity, TFLOP/s (twice the dense figure).")
    memory_gb: Figure = Field(description="Memory per GPU, GB.")
    bandwidth_tb_s: Figure | None = Field(description="Memory bandwidth, TB/s.")
    power_w: Figure | None = Field(description="Board power, W.")
    rental_prices: list[RentalPrice] = Field(description="Dated rental prices.")
    notes: str | None = Field(description="Notes (markdown).")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class Conversion(ApiModel):
    """A compute-equivalence factor between two accelerators."""

    id: str = Field(description="Conversion id.")
    from_hardware: str = Field(description="Hardware id converted from.")
    to_hardware: str = Field(description="Hardware id converted to.")
    basis: str = Field(description="How the factor is derived.")
    description: str = Field(description="Why this basis, and its limits (markdown).")
    factor: Figure = Field(description="The factor (derived from the two hardware entries).")
    legacy_factor: Figure | None = Field(description="A factor used before, for the record.")
    alternatives: list[Claim] = Field(description="Other defensible factors, with sources.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class LanguageModel(ApiModel):
    """A base model offered for training."""

    id: str = Field(description="Model id; price rows name it.")
    name: str = Field(description="Name as the provider lists it.")
    family: str = Field(description="Model family.")
    architecture: m.Architecture = Field(description="`dense` or `moe`.")
    vision: bool = Field(description="True if it takes image input.")
    total_params: Figure = Field(description="Total parameters, billions.")
    active_params: Figure | None = Field(description="Active parameters (MoE), billions.")
    d_model: Figure | None = Field(description="Hidden size.")
    shape: ModelShape | None = Field(
        description="Architecture figures with sources and locators (what memory is computed "
                    "from); null when none is recorded.")
    notes: str | None = Field(description="Notes (markdown).")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class PriceRow(ApiModel):
    """Per-token prices of one model (and variant) in a price list."""

    model: str = Field(description="Model id (models/<id>.json).")
    model_name: str = Field(description="The model's name.")
    variant: str | None = Field(description="Variant suffix, e.g. long context.")
    prefill: Figure = Field(description="USD per 1M prefill tokens.")
    sample: Figure = Field(description="USD per 1M sampled tokens.")
    train: Figure = Field(description="USD per 1M trained tokens.")
    note: str | None = Field(description="Note on the row.")
    locator: str | None = Field(
        description="Where in its own source the row's prices are stated, when the row cites a "
                    "source of its own; null otherwise (its figures carry the list's).")
    change_note: str | None = Field(
        description="Why a price moved more than 5x from the previous list's (what the source "
                    "announced); null otherwise.")


class PriceList(ApiModel):
    """A dated snapshot of Tinker's price list; rows inherit its status and source."""

    id: str = Field(description="Price list id.")
    effective: dt.date = Field(description="Date the prices took effect or were captured.")
    latest: bool = Field(description="True for the most recent snapshot.")
    title: str = Field(description="Short description.")
    status: Status = Field(description="Default status of its prices.")
    source: str = Field(description="Default source of its prices.")
    locator: str | None = Field(description="Where in `source` the prices are stated (a table, "
                                            "a heading, a quoted line); null when not given.")
    reported_instead: str | None = Field(description="For an unverified list: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    storage_usd_per_gb_month: Figure | None = Field(description="Checkpoint storage price.")
    cached_prefill_discount: Figure | None = Field(description="Discount on cached prefill.")
    rows: list[PriceRow] = Field(description="One row per model and variant.")
    notes: str | None = Field(description="Caveats (markdown).")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class LossInput(ApiModel):
    """A per-token input array of a Tinker loss."""

    name: str = Field(description="Key in `loss_fn_inputs`.")
    dtype: str = Field(description="Element type.")
    description: str = Field(description="What it holds.")


class Hyperparameter(ApiModel):
    """A key of a loss's `loss_fn_config`."""

    name: str = Field(description="Key in `loss_fn_config`.")
    description: str = Field(description="What it does.")
    default: Figure | None = Field(description="Documented default.")


class Loss(ApiModel):
    """A Tinker loss function."""

    id: str = Field(description="Loss id (Tinker's loss_fn string for built-ins).")
    name: str = Field(description="Display name.")
    builtin: bool = Field(description="True for built-in losses.")
    order: int = Field(description="Position in the losses table.")
    inputs: list[LossInput] = Field(description="Per-token inputs.")
    outputs: list[str] = Field(description="Per-token outputs.")
    hyperparameters: list[Hyperparameter] = Field(description="`loss_fn_config` keys.")
    latex: str = Field(description="The loss (LaTeX).")
    description: str = Field(description="What it computes (markdown).")
    claims: list[Claim] = Field(description="Costs or caveats, sourced.")
    references: list[str] = Field(description="Reference ids.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class Primitive(ApiModel):
    """A Tinker client call."""

    name: str = Field(description="Method name.")
    client: str = Field(description="Client class.")
    signature: str = Field(description="Call signature.")
    description: str = Field(description="What it does.")
    core: bool = Field(description="True for the four core primitives.")
    phase: m.Phase | None = Field(description="RL phase it serves.")
    source: str = Field(description="Reference id.")


class TokenType(ApiModel):
    """A kind of token billed separately."""

    id: str = Field(description="`prefill`, `sample` or `train`.")
    name: str = Field(description="Display name.")
    description: str = Field(description="What is billed as this kind.")


class AbsorbedItem(ApiModel):
    """Infrastructure the managed trainer takes off your hands."""

    name: str = Field(description="Short name.")
    description: str = Field(description="What it involves.")


class SpectrumPoint(ApiModel):
    """A point on the control-versus-burden spectrum."""

    name: str = Field(description="Kind of tool.")
    examples: str = Field(description="Examples.")
    control: str = Field(description="How much of the loop you control.")
    burden: str = Field(description="What you must operate.")
    description: str = Field(description="The trade-off.")


class SetupCost(ApiModel):
    """One-off engineering cost of self-hosting an RL stack."""

    duration: Figure = Field(description="Engineering time, weeks.")
    hourly_rate: Figure = Field(description="Engineer rate, USD per hour.")
    hours_per_week: Figure = Field(description="Working hours per week.")
    total: Figure = Field(description="Total as the original site states it, USD.")
    computed_total: Figure = Field(
        description="duration x hours_per_week x hourly_rate, USD (derived; compare `total`)."
    )
    description: str = Field(description="Why it matters.")


class Platform(ApiModel):
    """Tinker as a platform."""

    id: str = Field(description="Always `tinker`.")
    intro: str = Field(description="What Tinker is.")
    primitives: list[Primitive] = Field(description="Client calls.")
    phases: str = Field(description="How the primitives map onto RL phases.")
    token_types: list[TokenType] = Field(description="The three billed token kinds.")
    pricing_rationale: str = Field(description="Why per-token pricing.")
    absorbs: list[AbsorbedItem] = Field(description="What the abstraction absorbs.")
    setup_cost: SetupCost = Field(description="Cost of building it yourself.")
    spectrum: list[SpectrumPoint] = Field(description="The abstraction spectrum.")
    spectrum_intro: str = Field(description="The trade-off.")
    gpu_hours_hide: str = Field(description="Why GPU-hours hide the real cost.")
    gpu_hours_claims: list[Claim] = Field(description="Sourced figures about phase time.")
    general_purpose_note: str = Field(description="Tinker is a trainer, not an RL framework.")
    grpo_note: str = Field(description="How GRPO runs on the built-in losses.")
    references: list[str] = Field(description="Reference ids.")
    api_path: str = Field(description="This file, relative to /api/v1/.")

