"""Ways to run an RL job (pipeline step 2): rented GPUs, market indexes and managed services.

One entry is one dated price list of one offer (``catalog/ways/<id>.yaml``): on-demand GPU
prices of a provider, a market index, or a managed RL / fine-tuning service priced per
GPU-hour, per token or per training hour, with its free tier and what it cannot run, each
with its source and locator. ``derived/ways.py`` prices a run on every one of them. A newer
list of the same offer carries the same ``series`` and a later ``effective`` date; the old one
stays, as Tinker's price lists do.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from tinkernomics.catalog import numbers as n
from tinkernomics.catalog.fields import (
    ASSERTED_BY_DESCRIPTION,
    AssertedBy,
    Id,
    Prose,
    ShortText,
    Status,
    Unit,
)
from tinkernomics.catalog.models.base import ProvenanceModel, StrictModel
from tinkernomics.catalog.models.provenance import Figure, locator_field


def _unit(*allowed: Unit) -> AfterValidator:
    """A figure in one of ``allowed`` units, else an error naming them (with the fix)."""
    names = ", ".join(u.value for u in allowed)

    def check(figure: Figure) -> Figure:
        if figure.unit not in allowed:
            raise PydanticCustomError("figure_unit", "unit must be {names} (got {got})",
                                      {"names": names, "got": figure.unit.value,
                                       "hint": f"unit: {names}"})
        return figure
    return AfterValidator(check)


TOKEN_PRICE = n.FigureRange(ge=0, le=n.TOKEN_PRICE_MAX,
                            hint="USD per 1M tokens (allowed 0-10,000)")
HOUR_PRICE = n.FigureRange(ge=0, le=1e5, hint="USD per training hour (allowed 0-100,000)")
GpuHourPrice = Annotated[Figure, n.GPU_HOUR_PRICE, _unit(Unit.usd_per_gpu_hour)]
TokenPriceFigure = Annotated[Figure, TOKEN_PRICE, _unit(Unit.usd_per_million_tokens)]
HourPrice = Annotated[Figure, HOUR_PRICE, _unit(Unit.usd_per_hour)]
ParamsFigure = Annotated[Figure, n.BILLION_PARAMS, _unit(Unit.billion_parameters)]


class Offer(StrEnum):
    """What kind of way to run this is."""

    rented_gpus = "rented_gpus"
    market_index = "market_index"
    managed_service = "managed_service"


class Capability(StrEnum):
    """What a run needs from the way it runs on (read off the algorithm's semantics)."""

    online_rl = "online_rl"
    """Samples rollouts from the policy and trains on their reward."""
    offline = "offline"
    """Trains on a fixed dataset (preference pairs): no rollouts."""
    teacher = "teacher"
    """Scores the policy's samples with a teacher model (on-policy distillation)."""
    critic = "critic"
    """Trains a value model beside the policy."""
    reward_model = "reward_model"
    """Scores rollouts with a learned reward model."""
    reference_kl = "reference_kl"
    """A KL term to a frozen reference copy of the policy."""
    full_finetune = "full_finetune"
    """Updates every weight of the policy (full fine-tuning) rather than a LoRA adapter."""
    context_length = "context_length"
    """Sequences (a whole episode's context) longer than the service serves for the priced
    model: read against the context its price row states (Tinker's ``:peft:<tokens>``
    variants, ``derived/calculator/limits.py``); a gap on it is Tinker's only so far."""


class GpuPrice(StrictModel):
    """The price of one GPU type, per GPU-hour."""

    gpu: Id = Field(description="Hardware id (catalog/hardware/) when the catalog has that GPU, "
                                "else a lower-case name such as `b200`; only GPUs the catalog "
                                "has specs for are priced.", examples=["h100"])
    price: GpuHourPrice = Field(description="USD per GPU-hour, unit `usd_per_gpu_hour`.")


class TokenPrice(StrictModel):
    """A per-token training price for models up to a size."""

    up_to_params_b: float | None = Field(
        default=None, gt=0, le=1e5,
        description="Largest model (total parameters, billions) this price covers; none: any.")
    train: TokenPriceFigure = Field(
        description="USD per 1M trained tokens, unit `usd_per_million_tokens`.")


class FreeTier(ProvenanceModel):
    """Runs the service does not charge for: below a model size, until a date."""

    below_params_b: ParamsFigure = Field(
        description="Free for models with fewer total parameters than this, unit "
                    "`billion_parameters`.")
    until: dt.date | None = Field(default=None, description="Last free day, if the source "
                                                            "gives one, YYYY-MM-DD.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference id backing the free tier.",
                       examples=["fireworks_rft_docs"])
    locator: Prose | None = locator_field()
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead.")


class Gap(ProvenanceModel):
    """Something the service cannot run, as its docs state it (a way to run's, or Tinker's
    own: ``TinkerPlatform.gaps``)."""

    needs: Capability = Field(description="What a run needs that the service does not offer.")
    reason: ShortText = Field(description="Why, in the reader's words: shown as 'not offered'.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference id backing it.", examples=["openai_rft_billing"])
    locator: Prose | None = locator_field()
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead.")


class WayToRun(ProvenanceModel):
    """One dated price list of one way to run an RL job besides Tinker."""

    id: Id = Field(description="Equal to the file name: the offer and its date.",
                   examples=["coreweave-2026-02"])
    name: ShortText = Field(description="Name shown in the comparison.",
                            examples=["CoreWeave on-demand"])
    provider: ShortText = Field(description="Company or index publisher.",
                                examples=["CoreWeave"])
    offer: Offer = Field(description="`rented_gpus`, `market_index` or `managed_service`.")
    series: Id = Field(description="Same for every dated list of the same offer: the newest "
                                   "is the default, older ones are flagged stale.",
                       examples=["coreweave"])
    effective: dt.date = Field(description="Date the prices held or were captured, YYYY-MM-DD "
                                           "(the first of the month for a month).")
    dated: ShortText = Field(description="How the source dates the prices, as shown beside "
                                         "them, e.g. 'February 2026' or 'page undated'.")
    status: Status = Field(description="Default status of every price in the list.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference the prices come from.",
                       examples=["coreweave_kaelresearch"])
    locator: Prose | None = locator_field()
    reported_instead: Prose | None = Field(
        default=None, description="Required when the list is unverified.")
    gpu_prices: list[GpuPrice] = Field(default_factory=list,
                                       description="Prices per GPU-hour, one per GPU type.")
    token_prices: list[TokenPrice] = Field(
        default_factory=list, description="Per-token training prices, smallest models first.")
    hour_price: HourPrice | None = Field(
        default=None, description="USD per hour of training (wall clock), unit `usd_per_hour`.")
    price_note: ShortText | None = Field(
        default=None, description="Required when no price is given: why (e.g. the public page "
                                  "shows none); the comparison shows it instead of a total.")
    free_tier: FreeTier | None = Field(default=None, description="Runs it does not charge for.")
    runs: list[Capability] | None = Field(
        default=None, description="What the service runs, from its docs; none for rented GPUs "
                                  "(your own code runs anything).")
    gaps: list[Gap] = Field(default_factory=list,
                            description="What it cannot run, each as its docs state it.")
    models: list[Id] | None = Field(
        default=None, description="Catalog model ids (catalog/models/) its docs say it trains; "
                                  "none: any model you can load.")
    models_note: ShortText | None = Field(
        default=None, description="What the models list means, shown when a model is not in it.")
    notes: Prose | None = Field(default=None, description="Caveats about this list.")

    @model_validator(mode="after")
    def _priced_or_said_why(self) -> WayToRun:
        bases = sum(map(bool, (self.gpu_prices, self.token_prices, self.hour_price)))
        if bases > 1:
            raise PydanticCustomError(
                "way_bases", "give one kind of price: gpu_prices, token_prices or hour_price",
                {"hint": "split the offer into one entry per way it bills"})
        if bases == 0 and self.price_note is None:
            raise PydanticCustomError(
                "way_unpriced", "no price: give gpu_prices, token_prices or hour_price, or "
                "price_note saying why there is none", {"hint": "price_note: <why>"})
        return self

    def basis(self) -> str:
        """What the price multiplies: ``gpu_hours``, ``tokens``, ``training_hours`` or ``none``."""
        if self.gpu_prices:
            return "gpu_hours"
        if self.token_prices:
            return "tokens"
        return "training_hours" if self.hour_price is not None else "none"
