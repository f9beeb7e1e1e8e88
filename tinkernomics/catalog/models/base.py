"""Base of the authoring models (pipeline step 2): strict config and the identifier type.

Every authoring model derives from ``StrictModel``: unknown fields and type coercion are errors.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints
from pydantic.json_schema import JsonDict

IDENT_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
Identifier = Annotated[str, StringConstraints(pattern=IDENT_PATTERN, max_length=40)]


class StrictModel(BaseModel):
    """Base for every authoring model: unknown fields and type coercion are errors."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        use_attribute_docstrings=True,
        json_schema_extra={"additionalProperties": False},
    )


UNVERIFIED_NEEDS_ASSERTED_BY: JsonDict = {
    "if": {"properties": {"status": {"const": "unverified"}}, "required": ["status"]},
    "then": {"required": ["asserted_by"]},
    "else": {"not": {"required": ["asserted_by"]}},
}
"""The rule ``rules.rule_asserted_by`` enforces, in JSON Schema, so editors flag it too."""


class ProvenanceModel(StrictModel):
    """Base for models with a `status`: an unverified one says who asserted it."""

    model_config = ConfigDict(
        json_schema_extra={"additionalProperties": False, "allOf": [UNVERIFIED_NEEDS_ASSERTED_BY]},
    )
