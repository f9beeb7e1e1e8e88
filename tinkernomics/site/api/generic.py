"""The public model of a kind the API has no registration for (pipeline step 5 -> 6).

``public_model(kind)`` is read off the authoring model: the same fields, in the same order, with
the same descriptions, plus ``api_path``; a nested authoring model becomes its public twin
(``PUBLIC_NESTED``: a figure, a claim, ...). A nested model without a twin is a clear error
naming the kind and the field (declare the kind's ``ApiSide`` in ``site.kinds`` with a public
model of its own), raised when the API's collections are first listed, not deep in a build.
"""

from __future__ import annotations

import functools
import operator
import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Field, create_model

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Kind
from tinkernomics.catalog.models.algorithms import (
    Semantics,
    SourcedFlag,
    SourcedReward,
    SourcedTeacher,
)
from tinkernomics.catalog.models.shape import ModelShape
from tinkernomics.site.api import records
from tinkernomics.site.api.entries import (
    AbsorbedItem,
    Hyperparameter,
    LossInput,
    Primitive,
    RentalPrice,
    SetupCost,
    SpectrumPoint,
    TokenType,
    Variable,
)
from tinkernomics.site.api.provenance import ApiModel, Claim, Figure, FigureList
from tinkernomics.site.api.ways import TWINS as WAYS_TWINS

SIMPLE_PUBLIC: dict[type[BaseModel], type[ApiModel]] = {
    m.Claim: Claim, m.RentalPrice: RentalPrice, m.LossInput: LossInput,
    m.Hyperparameter: Hyperparameter, m.Primitive: Primitive, m.TokenType: TokenType,
    m.AbsorbedItem: AbsorbedItem, m.SpectrumPoint: SpectrumPoint,
    m.ScaleRLRecord: records.ScaleRLRecord, m.ScaleRLVariant: records.ScaleRLVariant,
    m.SupersededFit: records.SupersededFit, Semantics: records.Semantics,
    SourcedFlag: records.SourcedFlag, SourcedReward: records.SourcedReward,
    SourcedTeacher: records.SourcedTeacher, ModelShape: records.ModelShape, **WAYS_TWINS,
}
"""Nested authoring models whose public twin has the same fields (copied as they are)."""

PUBLIC_NESTED: dict[type[BaseModel], type[ApiModel]] = {
    **SIMPLE_PUBLIC, m.Figure: Figure, m.FigureList: FigureList, m.Variable: Variable,
    m.SetupCost: SetupCost,
}
"""Every nested authoring model with a public twin (what ``build._convert`` converts)."""


class Unpublishable(ValueError):
    """A kind's authoring model holds a nested model the generic public model cannot carry."""


def _public_type(annotation: Any, where: str) -> Any:
    """The public type of an authoring field's type (constraints dropped: the values are
    already validated)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _public_type(get_args(annotation)[0], where)
    if origin in (Union, types.UnionType):
        return functools.reduce(operator.or_, [_public_type(a, where)
                                               for a in get_args(annotation)])
    if origin is list:
        return list[_public_type(get_args(annotation)[0], where)]  # type: ignore[misc]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in PUBLIC_NESTED:
            raise Unpublishable(f"{where} holds a {annotation.__name__}, which has no public "
                                "model: declare the kind's ApiSide in site/kinds.py SITE_KINDS "
                                "with a public model of its own")
        return PUBLIC_NESTED[annotation]
    return annotation


@functools.cache
def public_model(kind: Kind[Any]) -> type[ApiModel]:
    """The public model of ``kind``'s entries: its authoring fields, plus ``api_path``."""
    fields: dict[str, Any] = {
        name: (_public_type(info.annotation, f"kind {kind.name!r}: field {name!r}"),
               Field(description=info.description or name.replace("_", " ")))
        for name, info in kind.model.model_fields.items()
    }
    fields["api_path"] = (str, Field(description="This entry's file, relative to /api/v1/."))
    made: type[ApiModel] = create_model(
        kind.model.__name__, __base__=ApiModel, __doc__=kind.model.__doc__, **fields)
    return made
