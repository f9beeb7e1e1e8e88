"""The public model of a kind the API has no registration for (pipeline step 5 -> 6).

``public_model(kind)`` is read off the authoring model: the same fields, in the same order, with
the same descriptions, plus ``api_path``; a nested authoring model becomes its public twin
(``PUBLIC_NESTED``: a figure, a claim, ...). A nested model without a twin is a clear error
naming the kind and the field (declare the kind's ``ApiSide`` in ``site.kinds`` with a public
model of its own), raised when the API's collections are first listed, not deep in a build.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, Field, create_model

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Kind
from tinkernomics.catalog.models import runs
from tinkernomics.catalog.models.algorithms import (
    Semantics,
    SourcedExamples,
    SourcedFlag,
    SourcedReward,
    SourcedTeacher,
)
from tinkernomics.site.api import records, twins
from tinkernomics.site.api.entries import (
    SetupCost,
    Variable,
)
from tinkernomics.site.api.provenance import ApiModel, Figure, FigureList
from tinkernomics.site.api.runs import RunStage as PublicRunStage
from tinkernomics.site.api.ways import WRITTEN_OUT as WAYS_WRITTEN_OUT

SIMPLE_PUBLIC: dict[type[BaseModel], type[ApiModel]] = {
    **{authoring: public for authoring, public in twins.PUBLIC.items()
       if authoring not in (m.Figure, m.FigureList)},
    Semantics: records.Semantics, SourcedFlag: records.SourcedFlag,
    SourcedReward: records.SourcedReward, SourcedTeacher: records.SourcedTeacher,
    SourcedExamples: records.SourcedExamples,
    **WAYS_WRITTEN_OUT, runs.RunStage: PublicRunStage,
}
"""Nested authoring models whose public twin has the same fields (copied as they are): the
twins read off them (``api.twins.PUBLIC``) and those written out in a field order of their own."""

PUBLIC_NESTED: dict[type[BaseModel], type[ApiModel]] = {
    **SIMPLE_PUBLIC, m.Figure: Figure, m.FigureList: FigureList, m.Variable: Variable,
    m.SetupCost: SetupCost,
}
"""Every nested authoring model with a public twin (what ``build._convert`` converts)."""


class Unpublishable(ValueError):
    """A kind's authoring model holds a nested model the generic public model cannot carry."""


def _public_type(annotation: Any, where: str) -> Any:
    """The public type of an authoring field's type (``twins.public_type`` over every nested
    model with a public twin); a nested model without one is ``Unpublishable``."""
    try:
        return twins.public_type(annotation, where, PUBLIC_NESTED)
    except twins.NoPublicTwin as err:
        raise Unpublishable(f"{err}: or declare the kind's ApiSide in site/kinds.py SITE_KINDS "
                            "with a public model of its own") from None


@functools.cache
def public_model(kind: Kind[Any]) -> type[ApiModel]:
    """The public model of ``kind``'s entries: its authoring fields, plus ``api_path``."""
    fields: dict[str, Any] = {
        name: (_public_type(info.annotation, f"kind {kind.name!r}: field {name!r}"),
               Field(description=info.description or name.replace("_", " ")))
        for name, info in kind.model.model_fields.items()
    }
    fields["api_path"] = (str, Field(description="This entry's file, relative to /api/v2/."))
    made: type[ApiModel] = create_model(
        kind.model.__name__, __base__=ApiModel, __doc__=kind.model.__doc__, **fields)
    return made
