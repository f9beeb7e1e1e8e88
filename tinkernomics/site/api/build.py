"""Builder of the public API (pipeline step 5): validated catalog -> public models of ``api``.

``build_api`` converts every entry of every published kind with its declared converter
(``site.kinds``: ``ApiSide.convert``; ``api.convert`` holds the converters and their rules).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site import kinds as site_kinds
from tinkernomics.site.api.convert import (
    Shared,
    citations,
    copy_entry,
    default_factor,
    latest_price_list,
)
from tinkernomics.site.api.documents import Collection, collections, single_documents
from tinkernomics.site.api.provenance import ApiModel


def _converter(c: Collection, shared: Shared) -> Callable[[Any], ApiModel]:
    api = site_kinds.site_kind(c.kind).api
    convert = api.convert if api is not None and api.convert else copy_entry(c.model, c.path)
    return lambda entry: convert(shared, entry)


@dataclass(frozen=True)
class ApiData:
    """Every public entry, by collection path then id (ids sorted), plus the single documents
    (``platform``: by kind name, None when the catalog lacks the entry)."""

    collections: dict[str, dict[str, ApiModel]]
    singles: dict[str, ApiModel | None]
    latest_price_list: str | None

    @property
    def platform(self) -> Any:
        """The Tinker platform's public model (None if the catalog has none)."""
        return self.singles.get("platform")


def build_api(catalog: Catalog) -> ApiData:
    """The public view of a validated catalog (no arithmetic here beyond derive's)."""
    shared = Shared(catalog, default_factor(catalog), citations(catalog),
                    latest_price_list(catalog))
    built: dict[str, dict[str, ApiModel]] = {}
    for c in collections():
        convert = _converter(c, shared)
        built[c.path] = {key: convert(entry) for key, entry in catalog.of(c.kind).items()}
    singles: dict[str, ApiModel | None] = {}
    for single in single_documents():
        entry = catalog.of(single.kind).get(single.entry_id)
        singles[single.kind] = None if entry is None else single.convert(shared, entry)
    return ApiData(built, singles, shared.latest)
