"""Where each kind of catalog entry is shown (pipeline step 6): the page that lists it, the element
id of one entry there, its name and its kind's title; and the per-build ``SiteIndex`` built from
them (back-links name and link every citing entry through these).

The catalog declares the kinds (``catalog.entries.KINDS``: model, folder, title, label); the site
attaches its page facts here, in ``KIND_PAGES`` keyed by kind name. A kind without a
registration is not an error: its entries are listed on the Data quality page, under "Other
catalog entries", one block each with the element id ``entry-<kind>-<id>`` (``views.generic``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tinkernomics.catalog.entries import KINDS, KINDS_BY_NAME, Catalog, Kind
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.provenancerules import PROVENANCE
from tinkernomics.catalog.walk import walk
from tinkernomics.derived import derive
from tinkernomics.site.pages.views.core import (
    DATA_QUALITY,
    FORMULAS,
    HARDWARE,
    REFERENCES,
    TINKER,
    Backlink,
    Origin,
    SiteIndex,
    algorithm_path,
    slug,
)

WAYS = "ways/"
"""The Ways to run page (``tinkernomics.site.ways``, docs/ways.md)."""


@dataclass(frozen=True)
class KindPage:
    """Where a kind's entries are shown: the page of an entry (by id) and its element id there
    (None when the entry is the whole page)."""

    page: Callable[[str], str]
    anchor: Callable[[str], str | None]
    generic: bool = False
    """True for a kind without a registration: listed by the generic section (``generic``)."""


def listed_on(page: str, prefix: str | None) -> KindPage:
    """Entries shown as blocks on one page, with the element id ``<prefix>-<id>`` (or the bare
    id when ``prefix`` is None)."""
    return KindPage(lambda _key: page, lambda key: f"{prefix}-{slug(key)}" if prefix else key)


def whole_page(page: Callable[[str], str]) -> KindPage:
    """Each entry is a page of its own (or the whole of one page)."""
    return KindPage(page, lambda _key: None)


KIND_PAGES: dict[str, KindPage] = {
    "algorithm": whole_page(algorithm_path),
    "reference": listed_on(REFERENCES, None),
    "formula": listed_on(FORMULAS, "formula"),
    "hardware": listed_on(HARDWARE, "hw"),
    "conversion": listed_on(HARDWARE, "conv"),
    "model": listed_on(TINKER, "model"),
    "loss": listed_on(TINKER, "loss"),
    "price_list": listed_on(TINKER, "prices"),
    "platform": whole_page(lambda _key: TINKER),
    "way": listed_on(WAYS, "way"),
    "cookbook": listed_on(WAYS, "cookbook"),
}
"""The site's page facts of each kind, by kind name; a declared kind missing here is shown by
the generic default (``kind_page``)."""

GENERIC_PAGE = DATA_QUALITY
"""Where entries of a kind without a registration are listed."""


def kind(name: str) -> Kind[Any]:
    """The declared kind ``name``; an undeclared one is a ValueError naming the declared ones."""
    found = KINDS_BY_NAME.get(name)
    if found is None:
        raise ValueError(f"unknown kind of entry {name!r} (declared in catalog/entries.py: "
                         f"{', '.join(k.name for k in KINDS)})")
    return found


def kind_page(name: str) -> KindPage:
    """The registration of kind ``name``, or the generic default for a declared kind."""
    registered = KIND_PAGES.get(name)
    if registered is not None:
        return registered
    prefix = f"entry-{slug(kind(name).name)}"
    return KindPage(lambda _key: GENERIC_PAGE, lambda key: f"{prefix}-{slug(key)}",
                    generic=True)


def generic_kinds() -> list[Kind[Any]]:
    """Declared kinds without a page registration, in catalog order."""
    return [k for k in KINDS if k.name not in KIND_PAGES]


def entry_anchor(kind_name: str, key: str) -> str | None:
    """Element id of an entry's block on its page (None when the entry is the whole page)."""
    return kind_page(kind_name).anchor(key)


def entry_page(kind_name: str, key: str) -> str:
    """Page path on which an entry is shown."""
    return kind_page(kind_name).page(key)


def entry_label(kind_name: str, model: Any) -> str:
    """How an entry is named in lists and links (its kind's ``label``)."""
    return kind(kind_name).label(model)


def kind_title(kind_name: str) -> str:
    return kind(kind_name).title


# --------------------------------------------------------------------------- the site index


def _sources_in(model: BaseModel) -> Iterator[str]:
    for _, obj, _, _ in walk(model):
        source = getattr(obj, "source", None)
        if isinstance(source, str):
            yield source
        yield from getattr(obj, "references", None) or []


def _unverified_items(catalog: Catalog) -> list[tuple[Origin, Any]]:
    """Every provenance-carrying value whose own status is unverified, in catalog order."""
    found: list[tuple[Origin, Any]] = []
    for entry in catalog.iter_entries():
        for loc, obj, _, _ in walk(entry.model):
            if isinstance(obj, PROVENANCE) and getattr(obj, "status", None) == Status.unverified:
                found.append((Origin(entry.kind.name, entry.key, loc), obj))
    return found


def _reference_order(catalog: Catalog) -> list[str]:
    refs = catalog.references
    return sorted(refs, key=lambda r: (not refs[r].key, refs[r].title.casefold(), r))


def build_index(catalog: Catalog, factor: derive.Factor) -> SiteIndex:
    backlinks: dict[str, list[Backlink]] = defaultdict(list)
    for entry in catalog.iter_entries():
        name = entry.kind.name
        if name == "reference":
            continue
        link = Backlink(entry.kind.label(entry.model), entry.kind.title,
                        entry_page(name, entry.key), entry_anchor(name, entry.key))
        for ref_id in dict.fromkeys(_sources_in(entry.model)):
            backlinks[ref_id].append(link)
    return SiteIndex(catalog, factor, _reference_order(catalog), dict(backlinks),
                     _unverified_items(catalog))
