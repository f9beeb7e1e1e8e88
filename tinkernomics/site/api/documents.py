"""The API's documents: collections, the envelope of each document kind, the JSON Schema.

Every file under /api/v1/ is one document ``{api_version, kind, result[, count]}``; ``RESPONSES``
maps each kind to its envelope model and ``api_schema`` is their union, discriminated by kind.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, create_model

from tinkernomics.site.api.entries import (
    Algorithm,
    Conversion,
    Formula,
    Hardware,
    LanguageModel,
    Loss,
    Platform,
    PriceList,
    Reference,
)
from tinkernomics.site.api.provenance import ApiModel
from tinkernomics.site.api.version import API_MAJOR, API_VERSION, SCHEMA_DIALECT, SEMVER_PATTERN


@dataclass(frozen=True)
class Collection:
    """A kind of entry published as ``<path>.json`` (all) and ``<path>/<id>.json`` (one)."""

    path: str
    kind: str
    model: type[ApiModel]
    title: str
    description: str


COLLECTIONS: tuple[Collection, ...] = (
    Collection("algorithms", "algorithm", Algorithm, "Algorithms",
               "RL post-training algorithms: memory profile, typical K and G, ScaleRL fit with "
               "derived H100-equivalent hours and curve points."),
    Collection("references", "reference", Reference, "References",
               "Every source a figure cites, with the entries that cite it."),
    Collection("formulas", "formula", Formula, "Formulas",
               "FLOP and VRAM formulas with variables and a derived worked example."),
    Collection("hardware", "hardware", Hardware, "Hardware",
               "Accelerator specs and dated rental prices."),
    Collection("conversions", "conversion", Conversion, "Conversions",
               "Compute-equivalence factors between accelerators (derived)."),
    Collection("models", "model", LanguageModel, "Models",
               "Base language models offered for training on Tinker."),
    Collection("prices", "price_list", PriceList, "Tinker prices",
               "Dated Tinker price lists; every price carries the list's status and source "
               "unless its row overrides them."),
    Collection("losses", "loss", Loss, "Tinker losses",
               "Tinker loss functions with inputs and hyperparameters."),
)
COLLECTIONS_BY_PATH = {c.path: c for c in COLLECTIONS}
PLATFORM_PATH = "platform.json"


class Envelope(ApiModel):
    """Fields every API document starts with."""

    api_version: str = Field(pattern=SEMVER_PATTERN, description="Version of the public API.")


class CollectionInfo(ApiModel):
    """One collection listed in the index."""

    name: str = Field(description="Collection name.")
    title: str = Field(description="Human title.")
    description: str = Field(description="What it holds.")
    kind: str = Field(description="`kind` of its item documents.")
    path: str = Field(description="All items, relative to /api/v1/.")
    item_path: str = Field(description="One item; replace {id}.")
    csv: str | None = Field(description="CSV of the collection, if any.")
    count: int = Field(description="Number of items.")
    ids: list[str] = Field(description="Item ids, sorted.")


class FileInfo(ApiModel):
    """A published file with its size and checksum."""

    path: str = Field(description="Path relative to /api/v1/.")
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
    archive: str = Field(description="Zip with every JSON and CSV file and a README.")
    collections: list[CollectionInfo] = Field(description="Collections, in a fixed order.")
    platform: str | None = Field(description="The Tinker platform document, if present.")
    latest_price_list: str | None = Field(description="Id of the newest Tinker price list.")
    csv: list[str] = Field(description="CSV files.")
    files: list[FileInfo] = Field(
        description="Every other file with its checksum (not the index itself, nor the zip)."
    )


def _responses() -> list[type[ApiModel]]:
    """One envelope model per document kind (index, platform, each collection and item)."""
    made: list[type[ApiModel]] = [
        create_model("IndexDocument", __base__=Envelope,
                     kind=(Literal["index"], Field(description="Document kind.")),
                     result=(Index, Field(description="The index."))),
        create_model("PlatformDocument", __base__=Envelope,
                     kind=(Literal["platform"], Field(description="Document kind.")),
                     result=(Platform, Field(description="The platform."))),
    ]
    for c in COLLECTIONS:
        name = c.model.__name__
        made.append(create_model(
            f"{name}Document", __base__=Envelope,
            kind=(Literal[c.kind], Field(description="Document kind.")),  # type: ignore[valid-type]
            result=(c.model, Field(description=f"One {c.kind}.")),
        ))
        made.append(create_model(
            f"{name}CollectionDocument", __base__=Envelope,
            kind=(Literal[f"{c.kind}_collection"],  # type: ignore[valid-type]
                  Field(description="Document kind.")),
            count=(int, Field(description="Number of items.")),
            result=(list[c.model], Field(description=f"Every {c.kind}, by id.")),
        ))
    return made


RESPONSES: dict[str, type[ApiModel]] = {
    r.model_fields["kind"].annotation.__args__[0]: r  # type: ignore[union-attr]
    for r in _responses()
}
"""Document kind -> envelope model."""


# --------------------------------------------------------------------------- schema


def api_schema() -> dict[str, Any]:
    """The JSON Schema of every API document (a union discriminated by ``kind``)."""
    union = Annotated[Union[tuple(RESPONSES.values())],  # noqa: UP007 - runtime tuple
                      Field(discriminator="kind")]
    schema = TypeAdapter(union).json_schema(mode="serialization")
    schema["$schema"] = SCHEMA_DIALECT
    schema["title"] = f"tinker-nomics public API {API_MAJOR}"
    schema["description"] = (
        "Every document under /api/v1/ validates against this schema; `kind` says which one."
    )
    schema["version"] = API_VERSION
    return schema


def document(kind: str, result: Any, *, count: int | None = None) -> dict[str, Any]:
    """A validated API document, as plain JSON data."""
    data: dict[str, Any] = {"api_version": API_VERSION, "kind": kind, "result": result}
    if count is not None:
        data["count"] = count
    return RESPONSES[kind].model_validate(data).model_dump(mode="json")

