"""Tinker models (pipeline step 2): base models offered, price lists, losses and the platform."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import Field

from tinkernomics.catalog import numbers as n
from tinkernomics.catalog.fields import (
    ASSERTED_BY_DESCRIPTION,
    AssertedBy,
    Id,
    Latex,
    ModelId,
    Prose,
    ShortText,
    Status,
)
from tinkernomics.catalog.models.base import Identifier, ProvenanceModel, StrictModel
from tinkernomics.catalog.models.provenance import Claim, Figure
from tinkernomics.catalog.models.shape import ModelShape
from tinkernomics.catalog.models.ways import Gap


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
    total_params: Annotated[Figure, n.BILLION_PARAMS] = Field(
        description="Total parameters, unit `billion_parameters`.")
    active_params: Annotated[Figure, n.BILLION_PARAMS] | None = Field(
        default=None, description="Active parameters (MoE), unit `billion_parameters`."
    )
    d_model: Annotated[Figure, n.D_MODEL] | None = Field(
        default=None, description="Hidden size (hidden_size), unit `count`.")
    shape: ModelShape | None = Field(
        default=None, description="Architecture figures, each with its source and locator "
                                  "(layers, heads, KV heads, head size, MLP, vocabulary, experts, "
                                  "context); what memory is computed from.")
    notes: Prose | None = Field(default=None, description="Anything a reader should know.")


class PriceRow(ProvenanceModel):
    """Tinker's per-token prices for one model (and context variant)."""

    model: ModelId = Field(description="Model id (catalog/models/).", examples=["qwen3-8b"])
    variant: ShortText | None = Field(
        default=None, description="Variant suffix, e.g. ':peft:262144' (long context)."
    )
    prefill: Annotated[float, n.TOKEN_PRICE_HINT] = Field(
        ge=0, le=n.TOKEN_PRICE_MAX, description="USD per 1M prefill (prompt) tokens.")
    sample: Annotated[float, n.TOKEN_PRICE_HINT] = Field(
        ge=0, le=n.TOKEN_PRICE_MAX, description="USD per 1M sampled tokens.")
    train: Annotated[float, n.TOKEN_PRICE_HINT] = Field(
        ge=0, le=n.TOKEN_PRICE_MAX, description="USD per 1M trained tokens.")
    note: ShortText | None = Field(default=None, description="e.g. 'limited-time 50% discount'.")
    change_note: ShortText | None = Field(
        default=None, description="Why a price moved more than 5x from the previous list's "
        "(validate takes such a move for a typo until this says what the source announced).")
    status: Status | None = Field(default=None, description="Overrides the list's status.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id | None = Field(default=None, description="Overrides the list's source.",
                              examples=["tinker_pricing_2026_07"])
    locator: Prose | None = Field(
        default=None, description="Where in its source this row is, when the list's `locator` "
        "does not say (e.g. another table or page). Required when the row overrides `status` "
        "with `reported`.",
        examples=['pricing.md, table "Tinker Pricing", row Qwen3-8B'])
    reported_instead: Prose | None = Field(
        default=None, description="Required when this row is unverified."
    )


class PriceList(ProvenanceModel):
    """A dated snapshot of Tinker's price list."""

    id: Id = Field(description="Equal to the file name: the date the prices apply.",
                   examples=["2026-07-17"])
    effective: dt.date = Field(
        description="Date the prices took effect or were captured, YYYY-MM-DD."
    )
    title: ShortText = Field(description="Short description of the snapshot.")
    status: Status = Field(description="Default status of every price in the list.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Default source of every price in the list.",
                       examples=["tinker_pricing_2026_07"])
    locator: Prose | None = Field(
        default=None, description="Where in `source` the prices are: the table's heading or "
        "name, the quoted line that dates them, and any footnote the rows depend on. Required "
        "when status is `reported`.",
        examples=['SKILL.md, "Tinker Pricing" table (header: "Prices effective July 17, 2026")'])
    reported_instead: Prose | None = Field(
        default=None, description="Required when the list is unverified."
    )
    storage_usd_per_gb_month: Annotated[Figure, n.STORAGE_PRICE] | None = Field(
        default=None, description="Checkpoint storage price, unit `usd_per_gb_month`."
    )
    cached_prefill_discount: Annotated[Figure, n.DISCOUNT] | None = Field(
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
    default: Annotated[Figure, n.HYPERPARAMETER] | None = Field(
        default=None, description="Default value, if documented.")


class TinkerLoss(StrictModel):
    """A Tinker loss function (built-in, or the custom-loss interface)."""

    id: Id = Field(description="Equal to the file name; Tinker's loss_fn string for built-ins.",
                   examples=["importance_sampling"])
    name: ShortText = Field(description="Display name.")
    builtin: bool = Field(description="True for a loss built into the service (not `custom`).")
    order: Annotated[int, n.ORDER_HINT] = Field(default=0, ge=0, le=n.ORDER_MAX,
                                               description="Position in the losses table.")
    inputs: list[LossInput] = Field(default_factory=list, description="Per-token inputs.")
    outputs: list[Identifier] = Field(default_factory=list, description="Per-token outputs.")
    hyperparameters: list[Hyperparameter] = Field(default_factory=list,
                                                  description="`loss_fn_config` keys.")
    latex: Latex = Field(description="The loss (LaTeX).")
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

    duration: Annotated[Figure, n.SETUP_WEEKS] = Field(
        description="Engineering time, unit `weeks`.")
    hourly_rate: Annotated[Figure, n.SETUP_RATE] = Field(
        description="Engineer rate, unit `usd_per_hour`.")
    hours_per_week: Annotated[Figure, n.SETUP_HOURS] = Field(
        description="Working hours per week, unit `hours`.")
    total: Annotated[Figure, n.SETUP_TOTAL] = Field(
        description="Total as the original site states it, unit `usd`.")
    description: Prose = Field(description="Why it matters and what keeps costing.")


class TinkerPlatform(StrictModel):
    """Tinker as a platform: primitives, token types, what it absorbs, where it sits."""

    id: Id = Field(description="Always 'tinker' (the file name).", examples=["tinker"])
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
    gaps: list[Gap] = Field(
        default_factory=list,
        description="What Tinker cannot run, each with its source: a run that needs one is "
                    "'not offered' on Tinker, as on any way to run (catalog/ways/).")
    references: list[Id] = Field(min_length=1, description="Reference ids.")
