"""Links between entries (pipeline step 3): one rule, read off the models' field types.

A field that names another entry is typed with a ``fields.LinkTo`` mark (``HardwareId``,
``ModelId``, ``LossId``, or ``Annotated[Id, LinkTo("kind")]`` for a new one), alone or in a list.
``link_fields`` finds the marked fields of a model class (once per class); ``rule_links_exist``
checks every marked value of every nested model against the ids of its kind, so a kind with a
link needs no line in any rule. ``run_kind_rules`` runs each kind's own rules (``Kind.rules``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel

from tinkernomics.catalog.entries import KINDS, Catalog
from tinkernomics.catalog.fields import LinkTo
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.rules import _unknown_id, run_guarded
from tinkernomics.catalog.walk import nested_models


def _mark(annotation: Any) -> tuple[LinkTo, bool] | None:
    """The link mark of a field's type and whether it is a list; None for a plain field."""
    if get_origin(annotation) is list:
        found = _mark(get_args(annotation)[0])
        return (found[0], True) if found else None
    args = get_args(annotation)
    if get_origin(annotation) is Annotated:
        marks = [a for a in args[1:] if isinstance(a, LinkTo)]
        return (marks[0], False) if marks else _mark(args[0])
    for arg in args:  # an optional link: X | None
        if arg is not type(None) and (found := _mark(arg)):
            return found
    return None


@cache
def link_fields(cls: type[BaseModel]) -> tuple[tuple[str, LinkTo, bool], ...]:
    """(field name, link mark, is a list) of every link field of ``cls``."""
    found = []
    for name, info in cls.model_fields.items():
        marks = [a for a in info.metadata if isinstance(a, LinkTo)]
        if marks:
            found.append((name, marks[0], False))
        elif (mark := _mark(info.annotation)) is not None:
            found.append((name, *mark))
    return tuple(found)


def rule_links_exist(catalog: Catalog) -> Iterator[Problem]:
    """Every link field (typed ``LinkTo``) names an existing entry of its kind."""
    for entry, loc, obj, _, _ in nested_models(catalog):
        cls: type[BaseModel] = type(obj)
        for name, link, many in link_fields(cls):
            value = getattr(obj, name)
            items = enumerate(value) if many else [(None, value)]
            for i, wanted in items:
                if wanted is None or wanted in catalog.known_ids(link.kind):
                    continue
                where = (*loc, name) if i is None else (*loc, name, i)
                yield _unknown_id(catalog, entry, where, wanted, link.kind, link.label)


def run_kind_rules(catalog: Catalog) -> list[Problem]:
    """The typed-link rule and every kind's own rules (``Kind.rules``), around partial
    entries' holes like the shared rules."""
    problems = run_guarded(rule_links_exist, catalog)
    for kind in KINDS:
        for rule in kind.rules:
            problems.extend(run_guarded(rule, catalog))
    return problems
