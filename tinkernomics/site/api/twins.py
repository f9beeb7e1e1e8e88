"""Public API models read off their authoring models (pipeline step 5 -> 6).

A public model whose shape is its authoring model's (the same fields, in the same order) is
declared as a twin, not written out again::

    class RentalPrice(Twin, of=m.RentalPrice, described={"price": "USD per GPU-hour."}):
        '''A dated rental price for one GPU.'''

Its fields, their order and their types come from the authoring model: constraints dropped
(the values are validated already), nested authoring models replaced by their public twins
(``PUBLIC``: each twin registers itself; ``Figure``, ``FigureList`` and ``Claim`` are the
provenance module's). A field's public description is the authoring one unless ``described``
words it for readers of the API (the authoring text speaks to contributors: ``catalog/...``
paths, YAML advice). A field the public shape has beside them, or types differently, is
annotated in the class body as usual and keeps its authoring position (new ones go last).
Every public field is required (null where the authoring one is optional), as in every
public model. Models whose public shape differs (derived values, other field orders, other
names) stay hand-written in ``api.entries``, ``api.records`` and ``api.ways``.

Pydantic builds a model's fields after ``__init_subclass__`` runs (documented beside
``__pydantic_init_subclass__``): that is where a twin's annotations are filled in.
"""

from __future__ import annotations

import functools
import inspect
import operator
import types
from collections.abc import Mapping
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Field

from tinkernomics.catalog import models as m
from tinkernomics.site.api.provenance import ApiModel, Claim, Figure, FigureList

PUBLIC: dict[type[BaseModel], type[ApiModel]] = {
    m.Figure: Figure, m.FigureList: FigureList, m.Claim: Claim,
}
"""Authoring model -> its public twin (a subclass of an authoring model maps as its base)."""


class NoPublicTwin(TypeError):
    """A twin's field holds a nested authoring model that has no public twin yet."""


def public_of(cls: type[BaseModel],
              public: Mapping[type[BaseModel], type[ApiModel]]) -> type[ApiModel] | None:
    """The public twin of authoring model ``cls`` (or of its nearest registered base)."""
    return next((public[base] for base in cls.__mro__ if base in public), None)


def public_type(annotation: Any, where: str,
                public: Mapping[type[BaseModel], type[ApiModel]] = PUBLIC) -> Any:
    """The public type of an authoring field's type, nested models mapped by ``public``
    (constraints dropped: the values are validated already)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return public_type(get_args(annotation)[0], where, public)
    if origin in (Union, types.UnionType):
        return functools.reduce(operator.or_, [public_type(a, where, public)
                                               for a in get_args(annotation)])
    if origin is list:
        return list[public_type(get_args(annotation)[0], where, public)]  # type: ignore[misc]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found = public_of(annotation, public)
        if found is None:
            raise NoPublicTwin(f"{where} holds a {annotation.__name__}, which has no public "
                               "twin: declare its twin first")
        return found
    return annotation


class Twin(ApiModel):
    """Base of the public models read off an authoring model (see the module docstring)."""

    def __init_subclass__(cls, *, of: type[BaseModel] | None = None,
                          described: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if of is None:
            return
        said = dict(described or {})
        own = dict(inspect.get_annotations(cls))
        fields: dict[str, Any] = {}
        for name, info in of.model_fields.items():
            if name in own:  # typed in the class body: its own type and description
                fields[name] = own.pop(name)
                continue
            fields[name] = public_type(info.annotation, f"{cls.__name__}.{name}")
            setattr(cls, name, Field(description=said.pop(name, None) or info.description))
        unknown = sorted(said)
        if unknown:
            raise TypeError(f"{cls.__name__}: described names no field of "
                            f"{of.__name__}: {', '.join(unknown)}")
        cls.__annotations__ = {**fields, **own}
        PUBLIC[of] = cls
