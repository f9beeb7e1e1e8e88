"""Public API models shared by every entry: the base class, figures and their provenance.

Part of the public models (``api.models`` re-exports them): a figure carries its value, unit,
status (reported, derived, unverified), source and, when derived, how it was computed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import JsonDict

from tinkernomics.catalog.fields import AssertedBy, Status, Unit

ASSERTED_BY_API = ("Who asserted an unverified value: `original_site`, `contributor` or "
                   "`secondary_source`; null unless `status` is `unverified`.")


class ApiModel(BaseModel):
    """Base of every public model: closed objects, every key always present (null when empty)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_serialization_defaults_required=True,
        json_schema_extra={"additionalProperties": False},
    )


class DerivationInput(ApiModel):
    """A named input of a computed figure."""

    name: str = Field(description="Name of the input in `expression`.")
    value: float = Field(description="Value used, in `unit`.")
    unit: Unit = Field(description="Unit of `value`.")
    status: Status | None = Field(
        description="Status of the input figure; null for a formula's illustrative example value."
    )
    source: str | None = Field(description="Reference id of the input; null if it is derived.")
    path: str | None = Field(
        description="Where the input lives in this API: `<file>#<JSON pointer>`, relative to "
        "/api/v2/.",
        examples=["hardware/h100.json#/result/bf16_dense_tflops"],
    )


class Derivation(ApiModel):
    """How a derived figure was computed."""

    method: str = Field(description="Name of the computation in tinkernomics.derived.derive.",
                        examples=["h100_equivalent_hours"])
    expression: str = Field(description="The computation over the named inputs.",
                            examples=["C_mid * factor"])
    inputs: list[DerivationInput] = Field(description="Every input, in expression order.")
    inputs_status: Literal[Status.reported, Status.unverified] = Field(
        description="`unverified` if any input, followed back to the catalog, is unverified."
    )
    sources: list[str] = Field(description="Reference ids behind the inputs, sorted.")


_PROVENANCE_RULE: JsonDict = {
    "if": {"properties": {"status": {"const": "derived"}}, "required": ["status"]},
    "then": {"anyOf": [{"properties": {"source": {"type": "string"}}},
                       {"properties": {"derivation": {"type": "object"}}}]},
    "else": {"properties": {"derivation": {"type": "null"}, "source": {"type": "string"}}},
}
"""Reported and unverified figures name a source; derived ones a source or a derivation."""


class Figure(ApiModel):
    """A number with its unit, its source and its status."""

    model_config = ConfigDict(json_schema_extra={"additionalProperties": False,
                                                 "allOf": [_PROVENANCE_RULE]})

    value: float = Field(description="The number, in `unit`; the lower bound when `high` is set.")
    high: float | None = Field(description="Upper bound when the source gives a range.")
    approx: bool = Field(description="True when the source says 'about'.")
    unit: Unit = Field(description="Unit of `value` and `high`.")
    unit_label: str = Field(description="Short label of the unit for display.")
    status: Status = Field(
        description="`reported`: stated in the source; `derived`: computed from cited inputs, "
        "by this site's build (`derivation` says how) or by the catalog's authors from "
        "`source` (`note` says how); `unverified`: no source confirms it (`asserted_by` says "
        "who gave it)."
    )
    source: str | None = Field(
        description="Reference id backing the figure (references/<id>.json); null when the "
        "build computed it (see `derivation`)."
    )
    locator: str | None = Field(
        description="Where in `source` it is stated (section, table, figure, file and line, or "
        "the quoted sentence); null when not given.")
    note: str | None = Field(description="Context for the figure (markdown).")
    reported_instead: str | None = Field(
        description="For unverified figures: what the sources report instead (markdown)."
    )
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    derivation: Derivation | None = Field(
        description="How the build computed it; null for figures taken from the catalog."
    )

    @model_validator(mode="after")
    def _provenance(self) -> Figure:
        if self.status != Status.derived and (self.source is None or self.derivation):
            raise ValueError("a reported or unverified figure has a source and no derivation")
        if self.status == Status.derived and self.source is None and self.derivation is None:
            raise ValueError("a derived figure has a source or a derivation")
        return self


class FigureList(ApiModel):
    """Typical values (e.g. group sizes) with one shared provenance."""

    values: list[int] = Field(description="Typical values, smallest first.")
    unit: Unit = Field(description="Unit of the values.")
    unit_label: str = Field(description="Short label of the unit for display.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    source: str = Field(description="Reference id backing the values.")
    locator: str | None = Field(
        description="Where in `source` it is stated (section, table, figure, file and line, or "
        "the quoted sentence); null when not given.")
    note: str | None = Field(description="Context (markdown).")
    reported_instead: str | None = Field(description="For unverified values: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)


class Claim(ApiModel):
    """A sentence with figures in it, with its provenance."""

    text: str = Field(description="The claim (markdown).")
    status: Status = Field(description="Provenance status; see Figure.status.")
    source: str = Field(description="Reference id backing the claim.")
    locator: str | None = Field(
        description="Where in `source` it is stated (section, table, figure, file and line, or "
        "the quoted sentence); null when not given.")
    reported_instead: str | None = Field(description="For unverified claims: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)


class Citation(ApiModel):
    """An entry that cites a reference."""

    kind: str = Field(description="Kind of the citing entry.", examples=["algorithm"])
    id: str = Field(description="Id of the citing entry.")

