"""Public API models of the ways to run and the cookbook pin's nested parts (pipeline step 6).

The two kinds (``way``, ``cookbook``) are published by the generic public model
(``api.generic``); their nested authoring models (a GPU price, a free tier, a gap, a recipe...)
need public twins, defined here field for field, figures as public ``Figure``. ``api.generic``
registers them in ``SIMPLE_PUBLIC`` so ``build._convert`` copies them.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from tinkernomics.catalog.fields import AssertedBy, Status
from tinkernomics.catalog.models import cookbook as cb
from tinkernomics.catalog.models import ways as w
from tinkernomics.site.api.provenance import ASSERTED_BY_API, ApiModel, Claim, Figure


class GpuPrice(ApiModel):
    """The price of one GPU type, per GPU-hour."""

    gpu: str = Field(description="Hardware id (hardware/<id>.json) or a GPU name.")
    price: Figure = Field(description="USD per GPU-hour.")


class TokenPrice(ApiModel):
    """A per-token training price for models up to a size."""

    up_to_params_b: float | None = Field(description="Largest model covered, billions of "
                                                     "parameters; null: any.")
    train: Figure = Field(description="USD per 1M trained tokens.")


class _Sourced(ApiModel):
    status: Status = Field(description="Provenance status; see Figure.status.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    source: str = Field(description="Reference id that states it.")
    locator: str | None = Field(description="Where in the source (markdown).")
    reported_instead: str | None = Field(description="For unverified facts: what sources say.")


class FreeTier(_Sourced):
    """Runs the service does not charge for."""

    below_params_b: Figure = Field(description="Free below this many billion parameters.")
    until: dt.date | None = Field(description="Last free day; null if none is given.")


class Gap(_Sourced):
    """Something the service cannot run, as its docs state it."""

    needs: w.Capability = Field(description="What a run needs that the service lacks.")
    reason: str = Field(description="Why, shown as 'not offered'.")


class ModelName(ApiModel):
    """The name a catalog model goes by in Tinker and the cookbook."""

    model: str = Field(description="Model id (models/<id>.json).")
    name: str = Field(description="Tinker / Hugging Face name.")


class Setting(ApiModel):
    """One argument of the recipe with a sourced value."""

    name: str = Field(description="Argument name in the config class.")
    value: Figure = Field(description="Its value.")


class LossSetting(ApiModel):
    """One key of the recipe's loss_fn_config."""

    name: str = Field(description="Key of the loss's config.")
    value: Figure = Field(description="Its value.")


class Recipe(ApiModel):
    """How one algorithm runs with the cookbook at the pinned commit."""

    algorithm: str = Field(description="Algorithm id (algorithms/<id>.json).")
    module: str = Field(description="Module run with python -m.")
    path: str = Field(description="File that declares the config class.")
    config_class: str = Field(description="The config class of the command line.")
    loss: str = Field(description="Tinker loss id (losses/<id>.json).")
    loss_config: list[LossSetting] = Field(description="loss_fn_config keys and values.")
    settings: list[Setting] = Field(description="Other arguments with sourced values.")
    departures: list[Claim] = Field(description="Where the cookbook's loop differs from the "
                                                "paper's algorithm, sourced.")
    notes: str | None = Field(description="What the export cannot express (markdown).")


TWINS: dict[type[BaseModel], type[ApiModel]] = {
    w.GpuPrice: GpuPrice, w.TokenPrice: TokenPrice, w.FreeTier: FreeTier, w.Gap: Gap,
    cb.ModelName: ModelName, cb.Setting: Setting, cb.LossSetting: LossSetting,
    cb.Recipe: Recipe,
}
"""Nested authoring model -> its public twin (merged into ``generic.SIMPLE_PUBLIC``)."""
