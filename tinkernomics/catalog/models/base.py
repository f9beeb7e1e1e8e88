"""Base of the authoring models (pipeline step 2): strict config and the identifier type.

Every authoring model derives from ``StrictModel``: unknown fields and type coercion are errors.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

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
