"""The API's documents: collections, the envelope of each document kind, the JSON Schema.

Every file under /api/v2/ is one document ``{api_version, kind, result[, count]}``.
A collection document's ``result`` lists lean entries (``api.summaries``: a few fields and
the entry's ``api_path``), an item document's ``result`` is the whole entry.
``collections()`` lists what is published of each declared kind (its ``site.kinds``
declaration, or the generic default), ``single_documents()`` the kinds published as one
document, ``responses()`` maps each document kind to its envelope model and ``api_schema`` is
their union, discriminated by kind.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, create_model

from tinkernomics.catalog.entries import KINDS, Kind
from tinkernomics.site import kinds as site_kinds
from tinkernomics.site.api.convert import Convert, copy_single
from tinkernomics.site.api.generic import public_model
from tinkernomics.site.api.provenance import ApiModel
from tinkernomics.site.api.summaries import summary_model
from tinkernomics.site.api.version import (  # noqa: F401 - PLATFORM_PATH re-exported
    API_MAJOR,
    API_ROOT,
    API_VERSION,
    PLATFORM_PATH,
    SCHEMA_DIALECT,
    SEMVER_PATTERN,
)


@dataclass(frozen=True)
class Collection:
    """A kind of entry published as ``<path>.json`` (every entry, lean) and ``<path>/<id>.json``
    (one, whole)."""

    path: str
    kind: str
    model: type[ApiModel]
    title: str
    description: str
    csv: str | None = None
    """The CSV file of the collection, if any (named in the index)."""


@dataclass(frozen=True)
class SingleDocument:
    """A kind published as one document ``<file>``: its only entry (``Kind.single``)."""

    kind: str
    entry_id: str
    file: str
    model: type[ApiModel]
    description: str
    convert: Convert = field(compare=False)


RESERVED_PATHS = frozenset({"index", "schema", "tinkernomics-data"})
"""Files of the API's own beside the collections (and the single documents')."""


def _generic(kind: Kind[Any]) -> Collection:
    path = kind.folder.rsplit("/", 1)[-1]
    return Collection(path, kind.name, public_model(kind), kind.title,
                      f"{kind.title}: every entry, as the catalog holds it.")


def _collection(kind: Kind[Any]) -> Collection:
    found = site_kinds.site_kind(kind.name).api
    if found is None:
        return _generic(kind)
    return Collection(found.path, kind.name, found.model, found.title or kind.title,
                      found.description, found.csv)


def _declared_api() -> list[site_kinds.SiteKind]:
    return [sk for sk in site_kinds.SITE_KINDS
            if sk.api is not None and sk.kind.name in {k.name for k in KINDS}]


def single_documents() -> tuple[SingleDocument, ...]:
    """The kinds published as one document (the Tinker platform's ``platform.json``)."""
    made = []
    for sk in _declared_api():
        api = sk.api
        if api is not None and api.single:
            file = f"{api.path}.json"
            convert = api.convert or copy_single(api.model, file)
            made.append(SingleDocument(sk.kind.name, sk.kind.single or "", file, api.model,
                                       api.description, convert))
    return tuple(made)


def collections() -> tuple[Collection, ...]:
    """Every published collection: the kinds whose declaration (``site.kinds``) says how, in
    declaration order, then the rest of ``KINDS``. Two kinds on one path is a ValueError naming
    both."""
    singles = single_documents()
    kinds = [sk.kind for sk in _declared_api() if sk.kind.name not in {s.kind for s in singles}]
    kinds += [k for k in KINDS if site_kinds.site_kind(k.name).api is None]
    made: dict[str, Collection] = {}
    for kind in kinds:
        c = _collection(kind)
        taken = made.get(c.path)
        if taken is not None or c.path in RESERVED_PATHS | {s.file[:-5] for s in singles}:
            other = f"kind {taken.kind!r}" if taken else "a file of the API"
            raise ValueError(f"API collection {c.path!r} of kind {kind.name!r} clashes with "
                             f"{other}: give kind {kind.name!r} a path of its own in its "
                             "declaration (site/kinds.py SITE_KINDS)")
        made[c.path] = c
    return tuple(made.values())


class Envelope(ApiModel):
    """Fields every API document starts with."""

    api_version: str = Field(pattern=SEMVER_PATTERN, description="Version of the public API.")


class CollectionInfo(ApiModel):
    """One collection listed in the index."""

    name: str = Field(description="Collection name.")
    title: str = Field(description="Human title.")
    description: str = Field(description="What it holds.")
    kind: str = Field(description="`kind` of its item documents.")
    path: str = Field(description=f"Every item, lean (its id, the fields to filter and sort "
                      f"on, `api_path`), relative to {API_ROOT}.")
    item_path: str = Field(description="One whole item; replace {id}.")
    csv: str | None = Field(description="CSV of the collection, if any.")
    count: int = Field(description="Number of items.")


class FileInfo(ApiModel):
    """A published file with its size and checksum."""

    path: str = Field(description=f"Path relative to {API_ROOT}.")
    bytes: int = Field(description="Size in bytes.")
    sha256: str = Field(description="SHA-256 of the file, hex.")


class Index(ApiModel):
    """What the API holds and when its data last changed."""

    title: str = Field(description="Name of the API.")
    last_changed: dt.datetime = Field(
        description="When the catalog data last changed (UTC): SOURCE_DATE_EPOCH if set, else "
        "the newest commit touching catalog/."
    )
    licence: str = Field(description="Licence of the data.")
    licence_url: str = Field(description="Licence text.")
    schema_path: str = Field(description="JSON Schema of every document.")
    archive: str = Field(description="Zip with every other file and a README; each "
                         "collection's item documents are in it once, as `<collection>.jsonl` "
                         "(one document per line, the bytes of its `item_path` file).")
    collections: list[CollectionInfo] = Field(description="Collections, in a fixed order.")
    platform: str | None = Field(description="The Tinker platform document, if present.")
    latest_price_list: str | None = Field(description="Id of the newest Tinker price list.")
    csv: list[str] = Field(description="CSV files.")
    files: list[FileInfo] = Field(
        description="Every other file with its checksum (not the index itself, nor the zip)."
    )


@lru_cache(maxsize=8)
def _responses(published: tuple[Collection, ...],
               singles: tuple[SingleDocument, ...]) -> dict[str, type[ApiModel]]:
    """One envelope model per document kind (index, platform, each collection and item)."""
    index: Any = Literal["index"]
    made: list[type[ApiModel]] = [
        create_model("IndexDocument", __base__=Envelope,
                     kind=(index, Field(description="Document kind.")),
                     result=(Index, Field(description="The index."))),
    ]
    for single in singles:
        kind: Any = Literal[single.kind]
        made.append(create_model(
            f"{single.model.__name__}Document", __base__=Envelope,
            kind=(kind, Field(description="Document kind.")),
            result=(single.model, Field(description=f"The {single.kind}."))))
    for c in published:
        name = c.model.__name__
        # Types built at run time from the declared kinds: typed Any, as a checker cannot
        # follow a Literal of a value.
        one: Any = Literal[c.kind]
        many: Any = Literal[f"{c.kind}_collection"]
        lean: Any = summary_model(c.kind, c.model)
        items: Any = list[lean]  # a model made at run time
        made.append(create_model(
            f"{name}Document", __base__=Envelope,
            kind=(one, Field(description="Document kind.")),
            result=(c.model, Field(description=f"One {c.kind}.")),
        ))
        made.append(create_model(
            f"{name}CollectionDocument", __base__=Envelope,
            kind=(many, Field(description="Document kind.")),
            count=(int, Field(description="Number of items.")),
            result=(items, Field(description=f"Every {c.kind}, by id, lean: the whole entry "
                                 "is the document at its `api_path`.")),
        ))
    return {_kind_of(r): r for r in made}


def _kind_of(model: type[ApiModel]) -> str:
    """The ``kind`` literal an envelope model accepts."""
    annotation: Any = model.model_fields["kind"].annotation
    return str(annotation.__args__[0])


def responses() -> dict[str, type[ApiModel]]:
    """Document kind -> envelope model, for the kinds declared now."""
    return _responses(collections(), single_documents())


# --------------------------------------------------------------------------- schema


def api_schema() -> dict[str, Any]:
    """The JSON Schema of every API document (a union discriminated by ``kind``)."""
    union: Any = Annotated[Union[tuple(responses().values())],  # noqa: UP007 - runtime tuple
                           Field(discriminator="kind")]
    schema = TypeAdapter(union).json_schema(mode="serialization")
    schema["$schema"] = SCHEMA_DIALECT
    schema["title"] = f"tinker-nomics public API {API_MAJOR}"
    schema["description"] = (
        f"Every document under {API_ROOT} validates against this schema; `kind` says which one."
    )
    schema["version"] = API_VERSION
    return schema


def document(kind: str, result: Any, *, count: int | None = None,
             models: dict[str, type[ApiModel]] | None = None) -> dict[str, Any]:
    """A validated API document, as plain JSON data (``models``: ``responses()``, looked up
    once by a caller that makes thousands of documents)."""
    data: dict[str, Any] = {"api_version": API_VERSION, "kind": kind, "result": result}
    if count is not None:
        data["count"] = count
    return (models or responses())[kind].model_validate(data).model_dump(mode="json")


def item_document(kind: str, validated: dict[str, Any]) -> dict[str, Any]:
    """The document of one entry whose result ``validated`` is an item of its collection's
    document, already validated and dumped there by the same model: the same data
    ``document(kind, validated)`` returns, without validating it a second time."""
    return {"api_version": API_VERSION, "kind": kind, "result": validated}



def collection_document(kind: str, lean: list[dict[str, Any]]) -> dict[str, Any]:
    """The document of a collection whose lean entries (``summaries.summary`` of validated
    whole entries) are ``lean``: what ``document(f"{kind}_collection", lean, count=...)``
    returns, without validating each entry a second time."""
    return {"api_version": API_VERSION, "kind": f"{kind}_collection", "count": len(lean),
            "result": lean}
