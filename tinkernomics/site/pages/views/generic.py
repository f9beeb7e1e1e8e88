"""The generic view of a kind the site has no page for (pipeline step 6): its entries as blocks
on the Data quality page, under "Other catalog entries" (``views.kinds.kind_page``'s default).

Each entry shows its name, id and its top-level fields: figures, figure lists and claims with
their provenance (an unverified one gets its element id, so the Data quality page links to it),
other values as plain text (escaped by the template, never read as markdown or HTML). A list of
nested models (a published run's stages) shows each item's fields the same way, labelled with
the item's number; other nested models are left out: a kind that needs them shown declares a
page of its own (``site.kinds``). A field the kind's declaration says another page shows in full
(``SiteKind.elsewhere``: a published run's notes, on the Back-test page) is named with a link to
the entry's part there instead of repeated (issue 47: the notes were ~160 KB of the page).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Kind
from tinkernomics.site.kinds import ShownOn, site_kind
from tinkernomics.site.pages.views.core import Links, Origin, Shown, SiteIndex, slug, yes_no
from tinkernomics.site.pages.views.kinds import GENERIC_PAGE, entry_anchor, generic_kinds
from tinkernomics.site.pages.views.references import field_words

SCALARS = (str, int, float, dt.date, Enum)


@dataclass(frozen=True)
class GenericField:
    label: str
    text: str
    shown: Shown | None = None
    href: str = ""
    """Set for a field shown on another page: ``text`` names the page, linked here."""


@dataclass(frozen=True)
class GenericEntryView:
    id: str
    anchor: str
    label: str
    fields: list[GenericField]


@dataclass(frozen=True)
class GenericKindView:
    title: str
    anchor: str
    entries: list[GenericEntryView]


def _text(value: Any) -> str | None:
    """A plain value as text; None for what the generic view does not show (nested models)."""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, SCALARS):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, SCALARS) for v in value):
        return ", ".join(_text(v) or "" for v in value)
    return None


def _field(index: SiteIndex, name: str, value: Any, origin: Origin,
           links: Links) -> GenericField | None:
    label = field_words(name)
    if isinstance(value, m.Figure):
        return GenericField(label, "", index.figure(value, links, origin))
    if isinstance(value, m.FigureList):
        return GenericField(label, "", index.figure_list(value, links, origin))
    if isinstance(value, m.Claim):
        return GenericField(label, "", index.claim(value, links, origin))
    text = _text(value)
    return None if text is None else GenericField(label, text)


def _items(index: SiteIndex, kind: Kind[Any], key: str, name: str, items: list[BaseModel],
           links: Links) -> list[GenericField]:
    """The fields of each nested model of a list, labelled '<field> <n>: <subfield>'."""
    found = []
    for i, item in enumerate(items):
        for sub in type(item).model_fields:
            value = getattr(item, sub)
            if value is None:
                continue
            shown = _field(index, sub, value, Origin(kind.name, key, (name, i, sub)), links)
            if shown is not None:
                found.append(GenericField(f"{field_words(name)} {i + 1}: {shown.label}",
                                          shown.text, shown.shown))
    return found


def _elsewhere(name: str, key: str, shown: ShownOn, links: Links) -> GenericField:
    """Field ``name`` of entry ``key`` as a link to the page that shows it in full."""
    return GenericField(field_words(name), f"on {shown.title}",
                        href=links.to(shown.page, shown.anchor(key)))


def _entry(index: SiteIndex, kind: Kind[Any], key: str, links: Links) -> GenericEntryView:
    model = index.catalog.entry(kind.name, key).model
    elsewhere = site_kind(kind.name).elsewhere
    fields = []
    stated = model.model_fields_set
    for name in type(model).model_fields:
        value = getattr(model, name)
        if name == "id" or value is None or value == [] or name not in stated:
            continue  # what the entry states: no unset default, no empty list
        if name in elsewhere:
            fields.append(_elsewhere(name, key, elsewhere[name], links))
            continue
        if isinstance(value, list) and value and all(isinstance(v, BaseModel) for v in value):
            fields += _items(index, kind, key, name, value, links)
            continue
        found = _field(index, name, value, Origin(kind.name, key, (name,)), links)
        if found is not None:
            fields.append(found)
    return GenericEntryView(key, entry_anchor(kind.name, key) or key, kind.label(model), fields)


def generic_views(index: SiteIndex) -> list[GenericKindView]:
    """Every kind without a page registration that has entries, in catalog order."""
    links = Links(GENERIC_PAGE)
    views = []
    for kind in generic_kinds():
        keys = sorted(index.catalog.entries.get(kind.name, {}))
        if keys:
            views.append(GenericKindView(kind.title, f"entries-{slug(kind.name)}",
                                         [_entry(index, kind, key, links) for key in keys]))
    return views
