"""Public API models of the ways to run and the cookbook pin's nested parts (pipeline step 6).

The two kinds (``way``, ``cookbook``) are published by the generic public model
(``api.generic``); their nested authoring models (a GPU price, a free tier, a gap, a recipe...)
need public twins: read off the authoring models (``api.twins``) where the public shape is the
same, written out where it differs (the free tier's and the gaps' field order). ``api.generic``
registers them in ``SIMPLE_PUBLIC`` so ``convert._convert`` copies them.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from tinkernomics.catalog.fields import AssertedBy, Status
from tinkernomics.catalog.models import cookbook as cb
from tinkernomics.catalog.models import ways as w
from tinkernomics.site.api.provenance import ASSERTED_BY_API, ApiModel, Figure
from tinkernomics.site.api.twins import Twin


class GpuPrice(Twin, of=w.GpuPrice, described={
    "gpu": "Hardware id (hardware/<id>.json) or a GPU name.",
    "price": "USD per GPU-hour.",
}):
    """The price of one GPU type, per GPU-hour."""


class TokenPrice(Twin, of=w.TokenPrice, described={
    "up_to_params_b": "Largest model covered, billions of parameters; null: any.",
    "train": "USD per 1M trained tokens.",
}):
    """A per-token training price for models up to a size."""


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


class ModelName(Twin, of=cb.ModelName, described={
    "model": "Model id (models/<id>.json).",
}):
    """The name a catalog model goes by in Tinker and the cookbook."""


class Setting(Twin, of=cb.Setting, described={
    "value": "Its value.",
}):
    """One argument of the recipe with a sourced value."""


class LossSetting(Twin, of=cb.LossSetting, described={
    "name": "Key of the loss's config.",
    "value": "Its value.",
}):
    """One key of the recipe's loss_fn_config."""


class Recipe(Twin, of=cb.Recipe, described={
    "algorithm": "Algorithm id (algorithms/<id>.json).",
    "module": "Module run with python -m.",
    "path": "File that declares the config class.",
    "config_class": "The config class of the command line.",
    "loss": "Tinker loss id (losses/<id>.json).",
    "loss_config": "loss_fn_config keys and values.",
    "departures": "Where the cookbook's loop differs from the paper's algorithm, sourced.",
    "settings": "Other arguments with sourced values.",
    "notes": "What the export cannot express (markdown).",
}):
    """How one algorithm runs with the cookbook at the pinned commit."""


WRITTEN_OUT: dict[type[BaseModel], type[ApiModel]] = {w.FreeTier: FreeTier, w.Gap: Gap}
"""The twins written out here, by authoring model (merged into ``generic.SIMPLE_PUBLIC``; the
others register themselves in ``api.twins.PUBLIC``)."""
