"""Provenance models (pipeline step 2): a figure, a list of figures or a claim with its source
and status. Every other model that holds a number holds one of these.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tinkernomics.catalog.fields import ASSERTED_BY_DESCRIPTION, AssertedBy, Id, Prose, Status, Unit
from tinkernomics.catalog.models.base import ProvenanceModel

LOCATOR_DESCRIPTION = (
    "Where in `source` a reviewer finds it in a minute: a section, table or figure with a few "
    "verbatim words to search for (`§4.2: \"we sample 64 outputs\"`), or, in a GitHub "
    "repository, the file, the line and the words on it (`configs/x.sh line 12 `--num-layers "
    "32``), which `make validate` checks in the copy kept under catalog/sources/. Required when "
    "status is `reported`."
)
LOCATOR_EXAMPLES = ["Table 1 (appendix A.13)", "§4.2: \"For each question, we sample 64 outputs.\"",
                    "scripts/models/qwen3.5-9B.sh line 10 `--num-layers 32`"]


LOCATOR_REQUIRED_WHEN = "status is `reported`"
"""When a model with a ``status`` needs its ``locator``: the scaffold writes the field as a
placeholder to fill in and the Fields reference says so (``rule_locator_required`` enforces it)."""


def locator_field() -> Any:
    """The ``locator`` field every figure and claim carries (one description for all)."""
    return Field(default=None, description=LOCATOR_DESCRIPTION, examples=LOCATOR_EXAMPLES)


class Figure(ProvenanceModel):
    """A number with its unit, its source and how far it is confirmed."""

    value: float = Field(description="The number, in `unit`. Lower bound when `high` is set.",
                         examples=[50, 4000, 0.4])
    high: float | None = Field(
        default=None, description="Upper bound, when the source gives a range (e.g. 2-4 weeks)."
    )
    approx: bool = Field(
        default=False, description="True when the source says 'about' / '~'; shown with ≈."
    )
    unit: Unit = Field(description="Unit of `value` (and `high`).")
    status: Status = Field(
        description=(
            "`reported`: stated in the cited source; `derived`: computed from cited inputs; "
            "`unverified`: no source confirms it (`asserted_by` says who gave it)."
        )
    )
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Id of the reference (catalog/references/) that backs it.",
                       examples=["grpo_deepseekmath"])
    locator: Prose | None = locator_field()
    note: Prose | None = Field(default=None, description="Context shown beside the figure.")
    reported_instead: Prose | None = Field(
        default=None,
        description=(
            "Required when status is `unverified`: what the sources do report instead "
            "(or where you looked and found nothing)."
        ),
    )


class FigureList(ProvenanceModel):
    """A short list of typical values (e.g. group sizes) with one shared provenance."""

    values: list[Annotated[int, Field(ge=0)]] = Field(
        min_length=1, description="Typical values, smallest first.", examples=[[8, 16]]
    )
    unit: Unit = Field(default=Unit.count, description="Unit of the values.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference id backing the values.",
                       examples=["grpo_deepseekmath"])
    locator: Prose | None = locator_field()
    note: Prose | None = Field(default=None, description="Context shown beside the values.")
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead."
    )


class Claim(ProvenanceModel):
    """A sentence with figures in it (e.g. a headline result), with its provenance."""

    text: Prose = Field(description="The claim, in markdown, figures included.")
    status: Status = Field(description="Provenance status; see Figure.status.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference id backing the claim.",
                       examples=["grpo_deepseekmath"])
    locator: Prose | None = locator_field()
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead."
    )
