"""Field documentation read off the authoring models (docs side of pipeline step 2).

One source of truth: every field's description, examples, default, allowed values and
constraints live on the pydantic models. ``field_docs`` turns them into plain ``FieldDoc`` values
that two writers share: the scaffold (``tinkernomics new``, comments in a new entry) and the
site's **Fields reference** page (the ``fields_reference`` macro of this feature module). The
expected unit of a figure slot comes from ``provenancerules.EXPECTED_UNITS``, the rule that
enforces it.
"""

from __future__ import annotations

import datetime as dt
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin

import annotated_types as at
from pydantic import AfterValidator, BaseModel, StringConstraints
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from tinkernomics.catalog import fields as f
from tinkernomics.catalog.models import IDENT_PATTERN
from tinkernomics.catalog.models.provenance import LOCATOR_REQUIRED_WHEN
from tinkernomics.catalog.provenancerules import EXPECTED_UNITS

NO_DEFAULT: Any = PydanticUndefined
"""Marker for "this field has no default" (it is required)."""


@dataclass(frozen=True)
class FieldDoc:
    """What a contributor needs to know about one field."""

    name: str
    required: bool
    type_label: str
    """Human type: "short text", "list of reference ids", "Figure", "one of the values below"."""
    description: str
    examples: tuple[Any, ...]
    default: Any
    """The default value (``NO_DEFAULT`` when required)."""
    allowed: tuple[str, ...]
    """Enum values, when the field (or its list items) takes one of a fixed set."""
    units: tuple[str, ...]
    """Units the rules accept for a figure in this slot (empty: any unit)."""
    model: type[BaseModel] | None
    """The nested model, when the field (or its list items) is one."""
    many: bool
    """True for a list."""
    required_when: str = ""
    """For an optional field a rule requires in some cases: when (e.g. a ``locator`` when the
    status is ``reported``). Empty otherwise."""


# --------------------------------------------------------------------------- type labels


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True)."""
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return tp, False


def _split_annotated(tp: Any) -> tuple[Any, list[Any]]:
    """``Annotated[T, m1, m2]`` -> (T, [m1, m2]); nested FieldInfo metadata flattened."""
    metadata: list[Any] = []
    while get_origin(tp) is Annotated:
        base, *extra = get_args(tp)
        for item in extra:
            if isinstance(item, FieldInfo):
                metadata.extend(item.metadata)
            else:
                metadata.append(item)
        tp = base
    return tp, metadata


def _validators(metadata: list[Any]) -> set[Callable[..., Any]]:
    return {m.func for m in metadata if isinstance(m, AfterValidator)}


def _string_label(metadata: list[Any]) -> str:
    pattern = next((m.pattern for m in metadata if isinstance(m, StringConstraints)
                    and m.pattern), None)
    validators = _validators(metadata)
    max_len = next((m.max_length for m in metadata
                    if isinstance(m, StringConstraints | at.MaxLen) and m.max_length), None)
    if f._http_url in validators:  # the validator names the type
        return "URL (http:// or https://)"
    if pattern == f.ID_PATTERN:
        return "id (lower case: a-z, 0-9, _ . -)"
    if pattern == IDENT_PATTERN:
        return "name (letters, digits, _)"
    if f._safe_latex in validators:
        return "LaTeX (rendered as MathML)"
    if f._safe_markup in validators:
        return "markdown (no HTML)" if (max_len or 0) > 300 else "short text (no HTML)"
    return f"text (up to {max_len} characters)" if max_len else "text"


def _bounds(metadata: list[Any]) -> str:
    parts = []
    for m in metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(m, attr, None)
            if value is not None:
                parts.append(f"{sign} {value}")
    return ", ".join(parts)


def _leaf_label(tp: Any, metadata: list[Any]) -> str:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp.__name__
    if isinstance(tp, type) and issubclass(tp, Enum):
        return "one of the allowed values"
    if tp is bool:
        return "true or false"
    if tp is dt.date:
        return "date (YYYY-MM-DD)"
    if tp in (int, float):
        word = "whole number" if tp is int else "number"
        bounds = _bounds(metadata)
        return f"{word} ({bounds})" if bounds else word
    if tp is str:
        return _string_label(metadata)
    return getattr(tp, "__name__", str(tp))


def _min_items(metadata: list[Any]) -> int:
    return next((m.min_length for m in metadata if isinstance(m, at.MinLen)), 0)


def _describe_type(annotation: Any, metadata: list[Any]) -> tuple[str, Any, bool]:
    """(label, leaf type, is_list) of a field annotation with its field-level metadata."""
    tp, _ = _strip_optional(annotation)
    tp, inner = _split_annotated(tp)
    if get_origin(tp) is list:
        item, item_meta = _split_annotated(get_args(tp)[0])
        leaf = _leaf_label(item, item_meta)
        label = "list, each " + leaf if leaf.startswith("one of") else "list of " + leaf
        least = _min_items(metadata)
        if least:
            label += f" (at least {least})"
        return label, item, True
    return _leaf_label(tp, [*inner, *metadata]), tp, False


def _inner_examples(annotation: Any) -> tuple[Any, ...]:
    """Examples declared on an Annotated type (e.g. ``Url``) under ``X | None``."""
    tp, _ = _strip_optional(annotation)
    if get_origin(tp) is Annotated:
        for item in get_args(tp)[1:]:
            if isinstance(item, FieldInfo) and item.examples:
                return tuple(item.examples)
    return ()


def _default(info: FieldInfo) -> Any:
    if info.is_required():
        return NO_DEFAULT
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    value = info.default
    return value.value if isinstance(value, Enum) else value


def field_doc(model: type[BaseModel], name: str) -> FieldDoc:
    """Documentation of one field of ``model``."""
    info = model.model_fields[name]
    label, leaf, many = _describe_type(info.annotation, list(info.metadata))
    allowed: tuple[str, ...] = ()
    if isinstance(leaf, type) and issubclass(leaf, Enum):
        allowed = tuple(str(v.value) for v in leaf)
    return FieldDoc(
        name=name,
        required=info.is_required(),
        type_label=label,
        description=info.description or "",
        examples=tuple(info.examples or ()) or _inner_examples(info.annotation),
        default=_default(info),
        allowed=allowed,
        units=slot_units(model, name),
        model=leaf if isinstance(leaf, type) and issubclass(leaf, BaseModel) else None,
        many=many,
        required_when="" if info.is_required() else _required_when(model, name),
    )


def _required_when(model: type[BaseModel], name: str) -> str:
    """The condition under which a rule requires this optional field ("" when none does)."""
    if name == "locator" and "status" in model.model_fields:
        return LOCATOR_REQUIRED_WHEN
    return ""


def field_docs(model: type[BaseModel]) -> list[FieldDoc]:
    """Documentation of every field of ``model``, in declaration order."""
    return [field_doc(model, name) for name in model.model_fields]


def slot_units(parent: type[BaseModel], name: str) -> tuple[str, ...]:
    """Units a figure in ``parent.name`` must use (from the rule that checks them)."""
    return tuple(sorted(u.value for u in EXPECTED_UNITS.get((parent, name), ())))


def nested_models(model: type[BaseModel]) -> Iterator[type[BaseModel]]:
    """Every model reachable from ``model`` (itself excluded), depth first, each once."""
    seen: set[type[BaseModel]] = {model}

    def visit(current: type[BaseModel]) -> Iterator[type[BaseModel]]:
        for doc in field_docs(current):
            if doc.model is not None and doc.model not in seen:
                seen.add(doc.model)
                yield doc.model
                yield from visit(doc.model)

    yield from visit(model)


# --------------------------------------------------------------------------- formatting helpers


def flow(value: Any) -> str:
    """A value as it would be written in YAML flow style (for examples and defaults)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
