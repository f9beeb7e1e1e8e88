"""Public API models of the catalog's entries (pipeline step 6: what /api/v2/ items hold).

Separate from the authoring models (``tinkernomics.catalog.models``) so the catalog can change
for contributors without breaking readers of the API: a model whose public shape is its
authoring model's is a twin read off it (``api.twins``: fields, order and types; descriptions
worded for readers of the API where they differ, fields of its own typed in the body), the rest
are written out (derived values, other field orders). ``api.models`` re-exports them.
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
)
from tinkernomics.site.api.records import Semantics
from tinkernomics.site.api.twins import Twin
from tinkernomics.site.api.ways import Gap


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
    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


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


class Algorithm(Twin, of=m.Algorithm, described={
    "id": "Algorithm id.",
    "name": "Short name.",
    "attribution": "Who introduced it.",
    "models_in_memory": "Models held in memory.",
    "needs_critic": "True if a value model is trained.",
    "typical_g": "Typical group size G; null if N/A.",
    "async_support": "True if it tolerates off-policy rollouts.",
    "online": "False for offline methods.",
    "tinker_losses": "Tinker loss ids it maps to, primary first.",
    "tinker_mapping": "How it runs on Tinker (markdown).",
    "notes": "What sets it apart (markdown).",
}):
    """An RL post-training algorithm and its cost and memory profile."""

    scalerl: ScaleRL | None = Field(description="ScaleRL fit the charts draw (sourced "
                                                "figures only), if any.")
    semantics: Semantics | None = Field(
        description="KL to a reference, reward source, rollouts, teacher and over-sampling, "
                    "each sourced: what the run model reads.")
    page: str = Field(description="Its page on the site, relative to the site root.")
    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


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
    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


class RentalPrice(Twin, of=m.RentalPrice, described={
    "date": "When the price held.",
    "price": "USD per GPU-hour.",
}):
    """A dated rental price for one GPU."""


class Hardware(Twin, of=m.Hardware, described={
    "id": "Hardware id.",
    "bf16_dense_tflops": "Peak dense BF16, TFLOP/s.",
    "bf16_sparse_tflops": "Peak BF16 with 2:4 sparsity, TFLOP/s (twice the dense figure).",
    "memory_gb": "Memory per GPU, GB.",
    "bandwidth_tb_s": "Memory bandwidth, TB/s.",
    "power_w": "Board power, W.",
    "rental_prices": "Dated rental prices.",
    "notes": "Notes (markdown).",
}):
    """An accelerator and the specs the cost formulas need."""

    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


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
    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


class LanguageModel(Twin, of=m.LanguageModel, described={
    "id": "Model id; price rows name it.",
    "name": "Name as the provider lists it.",
    "family": "Model family.",
    "total_params": "Total parameters, billions.",
    "active_params": "Active parameters (MoE), billions.",
    "d_model": "Hidden size.",
    "shape": "Architecture figures with sources and locators (what memory is computed from); "
             "null when none is recorded.",
    "notes": "Notes (markdown).",
}):
    """A base model offered for training."""

    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


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
    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


class LossInput(Twin, of=m.LossInput, described={
    "dtype": "Element type.",
}):
    """A per-token input array of a Tinker loss."""


class Hyperparameter(Twin, of=m.Hyperparameter, described={
    "default": "Documented default.",
}):
    """A key of a loss's `loss_fn_config`."""


class Loss(Twin, of=m.TinkerLoss, described={
    "id": "Loss id (Tinker's loss_fn string for built-ins).",
    "builtin": "True for built-in losses.",
    "description": "What it computes (markdown).",
}):
    """A Tinker loss function."""

    api_path: str = Field(description="This entry's file, relative to /api/v2/.")


class Primitive(Twin, of=m.Primitive, described={
    "signature": "Call signature.",
}):
    """A Tinker client call."""


class TokenType(Twin, of=m.TokenType):
    """A kind of token billed separately."""


class AbsorbedItem(Twin, of=m.AbsorbedItem):
    """Infrastructure the managed trainer takes off your hands."""


class SpectrumPoint(Twin, of=m.SpectrumPoint, described={
    "description": "The trade-off.",
}):
    """A point on the control-versus-burden spectrum."""


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


class Platform(Twin, of=m.TinkerPlatform, described={
    "id": "Always `tinker`.",
    "intro": "What Tinker is.",
    "primitives": "Client calls.",
    "phases": "How the primitives map onto RL phases.",
    "pricing_rationale": "Why per-token pricing.",
    "spectrum_intro": "The trade-off.",
}):
    """Tinker as a platform."""

    setup_cost: SetupCost = Field(description="Cost of building it yourself.")
    gaps: list[Gap] = Field(description="What Tinker cannot run (LoRA only, no critic...), each "
                                        "with its source: a run that needs one has no bill.")
    api_path: str = Field(description="This file, relative to /api/v2/.")

