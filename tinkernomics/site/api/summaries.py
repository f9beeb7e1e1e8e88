"""The lean entries of a collection document (pipeline step 6: ``<collection>.json`` of /api/v2/).

Since API 2.0.0 a collection is an index, not a second copy of its entries: per entry the few
fields a reader filters or sorts on (what ``algorithms.csv`` and the site's own tables show,
scalars only), plus ``api_path``, the entry's own document (``<collection>/<id>.json``), which
holds the whole entry. At 1,000 algorithms the full copies made the collections half the API's
bytes (issue 47). ``SUMMARY_FIELDS`` declares them per kind; a kind not listed there (a kind
added to the catalog without one) gets ``id``, ``name`` or ``title`` when its model has them,
and ``api_path``. A summary is the entry's full public dump cut to these keys (same values,
same types: ``summary_model`` copies the fields of the full public model), so nothing here
converts or validates an entry a second time.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import create_model

from tinkernomics.site.api.provenance import ApiModel

SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {
    "algorithm": ("name", "full_name", "year", "models_in_memory", "needs_critic",
                  "needs_reward_model", "memory_profile", "async_support", "online",
                  "tinker_losses", "page"),
    "reference": ("title", "authors", "year", "date", "url", "checked", "status", "key"),
    "formula": ("name", "kind", "order", "result_unit", "status"),
    "hardware": ("name",),
    "conversion": ("from_hardware", "to_hardware", "basis"),
    "model": ("name", "family", "architecture", "vision"),
    "price_list": ("title", "effective", "latest", "status"),
    "loss": ("name", "builtin", "order"),
    "way": ("name", "provider", "offer", "series", "effective", "status"),
    "cookbook": ("repository", "commit", "date"),
    "run": ("name", "model", "algorithm", "hardware", "framework", "mode", "lora"),
}
"""Kind name -> the fields its collection lists besides ``id`` and ``api_path``."""

DEFAULT_FIELDS = ("name", "title")
"""What an undeclared kind's collection lists besides ``id`` and ``api_path``, when present."""


def summary_fields(kind: str, model: type[ApiModel]) -> tuple[str, ...]:
    """The keys of a collection's lean entries, in the full model's field order. A declared
    field the model lacks is a ValueError naming both (the declaration drifted)."""
    declared = SUMMARY_FIELDS.get(kind)
    fields = model.model_fields
    if declared is None:
        wanted = {"id", "api_path", *(f for f in DEFAULT_FIELDS if f in fields)}
    else:
        missing = [f for f in declared if f not in fields]
        if missing:
            raise ValueError(f"api/summaries.py SUMMARY_FIELDS[{kind!r}] names "
                             f"{', '.join(missing)}, which {model.__name__} does not have")
        wanted = {"id", "api_path", *declared}
    return tuple(name for name in fields if name in wanted)


@cache
def summary_model(kind: str, model: type[ApiModel]) -> type[ApiModel]:
    """The public model of one lean entry: ``model``'s summary fields, as ``model`` has them."""
    keep = summary_fields(kind, model)
    fields: dict[str, Any] = {name: (model.model_fields[name].annotation,
                                     model.model_fields[name]) for name in keep}
    doc = (f"One {kind} as its collection lists it: the fields to filter and sort on; the "
           "whole entry is its own document at `api_path`.")
    made: type[ApiModel] = create_model(f"{model.__name__}Summary", __base__=ApiModel,
                                        __doc__=doc, **fields)
    return made


def summary(full: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A lean entry: the full entry's JSON (already validated and dumped) cut to ``keys``."""
    return {key: full[key] for key in keys}
