"""Where each kind of catalog entry is shown (pipeline step 6): the page that lists it, the element
id of one entry there, its name and its kind's title; and the per-build ``SiteIndex`` built from
them (back-links name and link every citing entry through these).

The catalog declares the kinds (``catalog.entries.KINDS``: model, folder, title, label); the site
declares its side of each in ``site.kinds`` (``SiteKind.page``, a ``KindPage``). A kind without
a page there is not an error: its entries are listed on the Data quality page, under "Other
catalog entries", one block each with the element id ``entry-<kind>-<id>`` (``views.generic``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from tinkernomics.catalog.entries import KINDS, Catalog, Kind
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.provenancerules import PROVENANCE
from tinkernomics.catalog.walk import nested_models
from tinkernomics.derived import derive
from tinkernomics.site.kinds import KindPage, site_kind
from tinkernomics.site.pages.views.core import (
    DATA_QUALITY,
    Backlink,
    Origin,
    SiteIndex,
    slug,
)
from tinkernomics.site.paths import TINKER, WAYS  # noqa: F401 - re-exported (calculator, ways)

GENERIC_PAGE = DATA_QUALITY
"""Where entries of a kind without a page of its own are listed."""


def kind(name: str) -> Kind[Any]:
    """The declared kind ``name``; an undeclared one is a ValueError naming the declared ones."""
    return site_kind(name).kind


def kind_page(name: str) -> KindPage:
    """The page facts of kind ``name`` (its declaration's, or the generic default)."""
    declared = site_kind(name).page
    if declared is not None:
        return declared
    prefix = f"entry-{slug(kind(name).name)}"
    return KindPage(lambda _key: GENERIC_PAGE, lambda key: f"{prefix}-{slug(key)}",
                    generic=True)


def generic_kinds() -> list[Kind[Any]]:
    """Declared kinds without a page of their own, in catalog order."""
    return [k for k in KINDS if site_kind(k.name).page is None]


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


def _sources(obj: Any) -> Iterator[str]:
    """The references one nested model cites (its ``source``, its ``references``)."""
    source = getattr(obj, "source", None)
    if isinstance(source, str):
        yield source
    yield from getattr(obj, "references", None) or []


def _walked(catalog: Catalog) -> tuple[dict[tuple[str, str], list[str]],
                                       list[tuple[Origin, Any]]]:
    """From one pass over the catalog's nested models (``walk.nested_models``, walked once for
    the rules; the index walked every entry twice more, issue 47): the references each entry
    cites, in order, by (kind, key), and every provenance-carrying value whose own status is
    unverified, in catalog order."""
    cited: dict[tuple[str, str], list[str]] = defaultdict(list)
    unverified: list[tuple[Origin, Any]] = []
    for entry, loc, obj, _, _ in nested_models(catalog):
        name = entry.kind.name
        if name != "reference":
            cited[(name, entry.key)].extend(_sources(obj))
        if isinstance(obj, PROVENANCE) and getattr(obj, "status", None) == Status.unverified:
            unverified.append((Origin(name, entry.key, loc), obj))
    return cited, unverified


def _reference_order(catalog: Catalog) -> list[str]:
    refs = catalog.references
    return sorted(refs, key=lambda r: (not refs[r].key, refs[r].title.casefold(), r))


def build_index(catalog: Catalog, factor: derive.Factor) -> SiteIndex:
    cited, unverified = _walked(catalog)
    backlinks: dict[str, list[Backlink]] = defaultdict(list)
    for entry in catalog.iter_entries():
        name = entry.kind.name
        if name == "reference":
            continue
        link = Backlink(entry.kind.label(entry.model), entry.kind.title,
                        entry_page(name, entry.key), entry_anchor(name, entry.key))
        for ref_id in dict.fromkeys(cited.get((name, entry.key), ())):
            backlinks[ref_id].append(link)
    return SiteIndex(catalog, factor, _reference_order(catalog), dict(backlinks), unverified)
