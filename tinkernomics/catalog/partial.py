"""Partial entries (pipeline step 2 -> 3): what is left of an entry whose file failed validation.

A file with a type error is not dropped: every value that validated is kept, and each value that
failed (or is missing) becomes ``HOLE``. The cross-entry rules then check the rest of the file in
the same run, so one run reports every problem. A rule that touches a hole (compares it, reads
an attribute, iterates it, tests its truth) raises ``HoleTouched``; ``rules.run_rules`` then
skips that rule for that one entry only. Lesson: a falsy hole made "is it empty?" checks report
a value that failed its type a second time, as missing.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, NoReturn, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from tinkernomics.catalog.messages import unwrap_annotation
from tinkernomics.catalog.yamlread import Loc


class HoleTouched(Exception):
    """A rule read a value that failed validation; the rule skips that entry."""


class _Hole:
    """Stands for a value that failed validation. Anything but repr raises."""

    __slots__ = ()

    def _touch(self, *args: object, **kwargs: object) -> NoReturn:
        raise HoleTouched

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _touch
    __hash__ = __iter__ = __len__ = __contains__ = __getitem__ = _touch
    __str__ = __format__ = __float__ = __int__ = __index__ = __bool__ = _touch
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _touch
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = _touch

    def __getattr__(self, name: str) -> NoReturn:
        raise HoleTouched

    def __repr__(self) -> str:
        return "HOLE"


HOLE: Any = _Hole()
"""The one hole value."""


def field_or_none(model: object, name: str) -> Any:
    """``model.name``, or None when that field failed validation (a hole) or does not exist:
    for a rule that checks each field on its own, so one bad field skips only itself."""
    try:
        return getattr(model, name, None)
    except HoleTouched:
        return None


def figure_value(model: object, name: str) -> float | None:
    """The number of the figure ``model.name`` (its ``value``), or None when the figure is absent
    or failed validation: the physics rules' one reading of a figure (``field_or_none``)."""
    item = field_or_none(model, name)
    value = field_or_none(item, "value") if item is not None else None
    return float(value) if isinstance(value, int | float) else None


@lru_cache(maxsize=256)
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _value(annotation: Any, raw: Any, bad: frozenset[Loc], loc: Loc) -> Any:
    if loc in bad:
        return HOLE
    if not any(b[:len(loc)] == loc for b in bad):  # nothing wrong inside: validate as usual
        try:
            return _adapter(annotation).validate_json(json.dumps(raw, allow_nan=False))
        except (ValidationError, TypeError, ValueError):
            return HOLE
    tp = unwrap_annotation(annotation, lists=False)
    if _is_model(tp):
        return partial_model(tp, raw, bad, loc)
    if get_origin(tp) is list and isinstance(raw, list):
        item = get_args(tp)[0]
        return [_value(item, x, bad, (*loc, i)) for i, x in enumerate(raw)]
    return HOLE


def partial_model(cls: type[BaseModel], data: Any, bad: frozenset[Loc], loc: Loc = ()) -> Any:
    """``cls`` built from ``data`` with every value at (or missing at) a ``bad`` loc a HOLE."""
    if not isinstance(data, dict):
        return HOLE
    values: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        here = (*loc, name)
        if name in data:
            values[name] = _value(info.annotation, data[name], bad, here)
        elif info.is_required():
            values[name] = HOLE
        else:
            values[name] = info.get_default(call_default_factory=True)
    return cls.model_construct(**values)
