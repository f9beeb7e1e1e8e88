"""Map pydantic validation errors back to YAML positions (pipeline step 2 -> 4).

Pydantic reports a ``loc`` tuple; the YAML reader kept the line and column of every key and
value. Unknown fields point at the key and suggest the closest known name; missing fields point
at the mapping that lacks them and quote the field's description.
"""

from __future__ import annotations

import difflib
import re
import types
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from tinkernomics.catalog.fields import ID_PATTERN, LEADING_WORD_PATTERN, TEXT_ERROR
from tinkernomics.catalog.numbers import RANGE_ERROR, RangeHint
from tinkernomics.catalog.problems import Problem, format_loc
from tinkernomics.catalog.yamlread import Loc, YamlDoc

YAML11_BOOLEAN_WORDS = {"yes", "no", "on", "off", "y", "n", "Yes", "No", "On", "Off", "YES",
                        "NO", "ON", "OFF"}

DERIVED_FIELDS = {
    "h100_eq_hours": "H100-equivalent hours are derived from C_mid and the GB200->H100 factor",
    "h100_equivalent": "H100-equivalent hours are derived from C_mid and the GB200->H100 factor",
    "h100_eq": "H100-equivalent hours are derived from C_mid and the GB200->H100 factor",
}


def unwrap_annotation(tp: Any, *, lists: bool = True) -> Any:
    """Strip Annotated and Optional (and, with ``lists``, list) wrappers down to the model
    class or leaf type."""
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp = get_args(tp)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        elif origin is list and lists:
            tp = get_args(tp)[0]
        else:
            return tp


def model_at(model: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The model class that owns the last element of ``loc``."""
    current: Any = model
    for step in loc[:-1]:
        if isinstance(step, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(step)
        if info is None:
            return None
        current = unwrap_annotation(info.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return current
    return None


def _unknown_field(model: type[BaseModel], loc: Loc) -> tuple[str, str | None]:
    name = str(loc[-1])
    if name in DERIVED_FIELDS:
        return f"unknown field {name!r}", f"{DERIVED_FIELDS[name]}; do not store it"
    owner = model_at(model, loc)
    known = sorted(owner.model_fields) if owner else []
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"unknown field {name!r}", f"did you mean {close[0]!r}?"
    return f"unknown field {name!r}", ("known fields: " + ", ".join(known)) if known else None


SOURCE_HINT = ("add source: <reference id> (the work that states it; `make find Q=...` looks "
               "one up, `make new KIND=reference` adds one); if no source confirms the value, "
               "write status: unverified and asserted_by: instead")
UNVERIFIED_SOURCE_HINT = ("add source: <reference id>, the work the value was taken from or "
                          "looked for in (`make find Q=...` looks one up, `make new "
                          "KIND=reference` adds one); reported_instead says what it reports")


def _missing_field(model: type[BaseModel], loc: Loc,
                   given: object = None) -> tuple[str, str | None]:
    """The message for a required field left out; ``given`` is the object that lacks it."""
    if loc and loc[-1] == "source":
        if isinstance(given, dict) and given.get("status") == "unverified":
            return ("required field is missing: an unverified value still names the source it "
                    "was taken from or looked for in"), UNVERIFIED_SOURCE_HINT
        return "required field is missing: a reported value names its source", SOURCE_HINT
    owner = model_at(model, loc)
    info = owner.model_fields.get(str(loc[-1])) if owner else None
    hint = info.description if info and info.description else None
    return "required field is missing", hint


def _as_id(text: str) -> str:
    """``text`` as an id would be written: ``TOPR Paper`` -> ``topr_paper``."""
    return re.sub(r"[^a-z0-9_.-]+", "_", text.strip().lower()).strip("_.-") or "my_id"


def _empty_required(model: type[BaseModel], loc: Loc, error: ErrorDetails) -> str | None:
    """The field's description when ``loc`` is a required field left empty (``name:``), else None.

    The scaffold (``tinkernomics new``) writes required fields as empty placeholders; this turns
    pydantic's "Input should be a valid string" on them into "required field is empty".
    """
    if error.get("input", ...) is not None or not loc or not isinstance(loc[-1], str):
        return None
    owner = model_at(model, loc)
    info = owner.model_fields.get(loc[-1]) if owner else None
    if info is None or not info.is_required():
        return None
    hint = info.description or ""
    leaf = unwrap_annotation(info.annotation)
    if isinstance(leaf, type) and issubclass(leaf, Enum):
        hint += f" One of: {', '.join(str(v.value) for v in leaf)}."
    return hint.strip()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _enum_hint(value: Any, expected: str) -> str:
    """'did you mean ...?' for an enum typo, else the allowed values."""
    choices = re.findall(r"'([^']*)'", expected)
    close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else f"one of: {', '.join(choices)}"


_BOUND_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})
"""Pydantic's range errors on a plain number ("Input should be less than or equal to 4096")."""


def _error_loc(error: ErrorDetails) -> Loc:
    """Where the error is: a figure slot's range error names the number inside the figure."""
    loc: Loc = tuple(error["loc"])
    if error["type"] == RANGE_ERROR:
        loc = (*loc, *error["ctx"]["at"])
    return loc


def _range_hint(model: type[BaseModel], loc: Loc) -> str | None:
    """What an out-of-range plain number is and its usual values: the field's ``RangeHint``,
    else its description."""
    named = loc
    while named and isinstance(named[-1], int):  # a list item: the list's field
        named = named[:-1]
    owner = model_at(model, named) if named else None
    info = owner.model_fields.get(str(named[-1])) if owner else None
    if info is None:
        return None
    hint = next((m.text for m in info.metadata if isinstance(m, RangeHint)), None)
    return hint or info.description


def _value_hint(error: ErrorDetails) -> str | None:
    value = error.get("input")
    kind = error["type"]
    if kind == "bool_type" and value in YAML11_BOOLEAN_WORDS:
        return f"write true or false; {value!r} is read as text (YAML 1.2)"
    if isinstance(value, str) and kind in ("float_type", "int_type") and "," in value:
        return "write numbers without thousands separators, e.g. 4000"
    if isinstance(value, str) and kind in ("float_type", "int_type") and _is_number(value):
        return f"remove the quotes: write {value.strip()}, not \"{value}\""
    if isinstance(value, str) and kind in ("float_type", "int_type"):
        digits = re.sub(r"[^0-9.]" if kind == "float_type" else r"[^0-9]", "", value)
        example = digits if digits and _is_number(digits) else ("2025" if kind == "int_type"
                                                                else "0.66")
        whole = "a whole number" if kind == "int_type" else "a number"
        return f"write {whole} without quotes or letters, e.g. {example}"
    if kind == "string_pattern_mismatch" and isinstance(value, str) \
            and error.get("ctx", {}).get("pattern") == ID_PATTERN:
        return f"ids are lower case letters, digits, '_', '.' and '-': write {_as_id(value)}"
    if kind == "string_pattern_mismatch" and isinstance(value, str) \
            and error.get("ctx", {}).get("pattern") == LEADING_WORD_PATTERN:
        return ("start with a letter or digit (a leading =, +, - or @ is read as a formula by "
                "spreadsheets opening the chart's CSV)")
    if isinstance(value, str) and kind == "bool_type" and value.lower() in ("true", "false"):
        return f"remove the quotes: write {value.lower()}"
    if kind == "enum" and isinstance(value, str):
        return _enum_hint(value, str(error.get("ctx", {}).get("expected", "")))
    if kind == "list_type":
        return "write a list: [a, b] or one `- item` per line"
    if isinstance(value, list | dict) and kind.endswith("_type"):
        loc = error.get("loc", ())
        field = next((str(p) for p in reversed(loc) if isinstance(p, str)), "the field")
        if isinstance(value, list):
            one = value[0] if len(value) == 1 and not isinstance(value[0], list | dict) else "..."
            if loc and isinstance(loc[-1], int):
                return f"each item of {field} is one value: write {one}, not a list inside it"
            return f"this field takes one value, not a list: write {field}: {one}"
        return f"this field takes one value, not fields below it: write {field}: ... on one line"
    if isinstance(value, int | float) and not isinstance(value, bool) and kind == "string_type":
        return f'put text in quotes: write "{value}"'
    return None


def problems_from_validation(
    err: ValidationError, model: type[BaseModel], doc: YamlDoc, prefix: Loc = ()
) -> list[Problem]:
    """Turn every pydantic error into a located Problem."""
    problems = []
    for error in err.errors(include_url=False):
        loc = _error_loc(error)
        full = (*prefix, *loc)
        if doc.is_broken(full):  # the reader already reported this value (alias, tag, .inf)
            continue
        if error["type"] == "extra_forbidden":
            message, hint = _unknown_field(model, loc)
            line, col = doc.where(full, key=True)
        elif error["type"] == "missing":
            message, hint = _missing_field(model, loc, error.get("input"))
            line, col = doc.where(full[:-1])
        elif error["type"] in (RANGE_ERROR, TEXT_ERROR):
            message, hint = error["msg"], error["ctx"]["hint"] or None
            line, col = doc.where(full)
        elif error["type"] in _BOUND_ERRORS:
            message, hint = error["msg"], _range_hint(model, loc)
            line, col = doc.where(full)
        elif (empty := _empty_required(model, loc, error)) is not None:
            message, hint = "required field is empty", empty or None
            line, col = doc.where(full)
        else:
            message, hint = error["msg"].removeprefix("Value error, "), _value_hint(error)
            line, col = doc.where(full)
        problems.append(Problem(doc.path, line, col, format_loc(full), message, hint))
    return problems
