"""Traversals of a loaded catalog (pipeline step 3): every nested model, the plain values
(strings, dates...) of one, and who cites what.

The cross-entry rules (``rules``, ``duplicates``, ``dates``, ``saferules``), the CSV warnings,
the API build and the page views walk entries the same way; the walk of a whole catalog is
computed once and kept in its memo. The plain values are not kept (issue 47: holding every
string of a large catalog cost more in garbage collection than walking them again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.yamlread import Loc

_FIELD_NAMES: dict[type[BaseModel], tuple[str, ...]] = {}

Nested = tuple[Entry, Loc, Any, BaseModel | None, str | None]
"""(entry, loc inside it, the nested model, its parent model, the parent's field name)."""


def field_names(cls: type[BaseModel]) -> tuple[str, ...]:
    """``cls.model_fields``' names, read once per class."""
    names = _FIELD_NAMES.get(cls)
    if names is None:  # Lesson: `model_fields` goes through a descriptor; cache it per class.
        names = _FIELD_NAMES[cls] = tuple(cls.model_fields)
    return names


Walked = tuple[Loc, BaseModel, BaseModel | None, str | None]


def walk(model: BaseModel, loc: Loc = ()) -> Iterator[Walked]:
    """Every nested model with its loc, its parent model and the parent's field name."""
    found: list[Walked] = []
    _walk_into(model, loc, None, None, found)
    return iter(found)


def _walk_into(model: BaseModel, loc: Loc, parent: BaseModel | None, field: str | None,
               found: list[Walked]) -> None:
    """``walk`` into a list, depth first (issue 47: nested generators re-yielded every model
    once per level above it)."""
    found.append((loc, model, parent, field))
    for name in field_names(type(model)):
        value = getattr(model, name)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    _walk_into(item, (*loc, name, index), model, name, found)
        elif isinstance(value, BaseModel):
            _walk_into(value, (*loc, name), model, name, found)


def nested_models(catalog: Catalog) -> list[Nested]:
    """Every nested model of every entry; walked once per catalog, shared by the rules."""
    nested = catalog.memo.get("nested")
    if nested is None:
        nested = catalog.memo["nested"] = [
            (entry, loc, obj, parent, field)
            for entry in catalog.iter_entries()
            for loc, obj, parent, field in walk(entry.model)
        ]
    return nested


def plain_values(obj: BaseModel) -> Iterator[tuple[Loc, Any]]:
    """(loc inside ``obj``, value) of each field that is not a nested model; list items one
    by one (field names from the class, read once per class)."""
    for name in field_names(type(obj)):
        value = getattr(obj, name)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, BaseModel):
                    yield (name, index), item
        elif not isinstance(value, BaseModel):
            yield (name,), value


_NO_SUCH: dict[tuple[type, str], bool] = {}


def _no_such(cls: type, name: str) -> bool:
    """True if no instance of ``cls`` can have attribute ``name``: a model class that neither
    defines it nor has it as a field and keeps no extra fields (the catalog's models forbid
    them; ``model_construct`` keeps none either)."""
    return (issubclass(cls, BaseModel) and not name.startswith("_")
            and name not in cls.model_fields
            and not any(name in klass.__dict__ for klass in cls.__mro__)
            and cls.model_config.get("extra") != "allow")


def attribute_missing(cls: type, name: str) -> bool:
    """True if no instance of ``cls`` has attribute ``name`` (see ``attribute``)."""
    key = (cls, name)
    missing = _NO_SUCH.get(key)
    if missing is None:
        missing = _NO_SUCH[key] = _no_such(*key)
    return missing


def attribute(obj: Any, name: str, default: Any = None) -> Any:
    """``getattr(obj, name, default)``, without pydantic's slow path for a name the model
    has not got (issue 47: a third of the rules' time at 1,000 entries)."""
    return default if attribute_missing(type(obj), name) else getattr(obj, name, default)


def citations(obj: Any) -> list[tuple[Loc, Any]]:
    """The references one nested model names, each with its loc inside the model: its
    `source` (when set) and every item of its `references` list (a hole too: a caller that
    touches it skips the entry, see ``rules.run_guarded``)."""
    source = attribute(obj, "source")
    listed = attribute(obj, "references")
    named: list[tuple[Loc, Any]] = [(("source",), source)] if isinstance(source, str) else []
    return named + [(("references", i), ref)
                    for i, ref in enumerate(listed if isinstance(listed, list) else [])]


Cited = tuple[Entry, Loc, Any]
"""(entry, loc of the citing value inside it, the reference id it names)."""


def _cites(cls: type) -> bool:
    """True if an instance of ``cls`` may name a reference (``citations``)."""
    return not (attribute_missing(cls, "source") and attribute_missing(cls, "references"))


def cited(catalog: Catalog) -> list[Cited]:
    """Every citation in the catalog (``citations`` of every nested model), found once per
    catalog for the rules that read them (issue 47: each rule used to walk them all)."""
    found = catalog.memo.get("cited")
    if found is None:
        found = catalog.memo["cited"] = [
            (entry, (*loc, *where), ref) for entry, loc, obj, _, _ in nested_models(catalog)
            if _cites(type(obj)) for where, ref in citations(obj)]
    return found


def citing_entries(catalog: Catalog) -> Counter[str]:
    """Reference id -> how many other entries cite it (an entry counts once, however often)."""
    pairs = {(entry.kind.name, entry.key, ref) for entry, _, ref in cited(catalog)
             if isinstance(ref, str) and not (entry.kind.name == "reference" and entry.key == ref)}
    return Counter(ref for _, _, ref in pairs)
