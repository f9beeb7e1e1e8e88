"""The reference model (pipeline step 2): a paper, post or page that figures cite."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from tinkernomics.catalog.fields import (
    ASSERTED_BY_DESCRIPTION,
    AssertedBy,
    Id,
    Prose,
    ShortText,
    Status,
    Url,
)
from tinkernomics.catalog.models.base import ProvenanceModel


class Reference(ProvenanceModel):
    """A paper, post, documentation page or data source that figures cite."""

    id: Id = Field(description="Equal to the file name without `.yaml`.",
                   examples=["grpo_deepseekmath"])
    title: ShortText = Field(description="Exact title of the work.")
    authors: ShortText = Field(description="Authors or organisation, e.g. 'Shao et al.'.")
    venue: ShortText | None = Field(
        default=None, description="Venue or kind: 'arXiv 2402.03300', 'NSDI 2025', 'Blog'."
    )
    year: int | None = Field(default=None, ge=1950, le=2100, description="Publication year.")
    date: dt.date | None = Field(
        default=None, description="Publication or snapshot date, YYYY-MM-DD, when known."
    )
    url: Url | None = Field(
        default=None, description="Canonical http(s) URL. Only an unverified reference may omit it."
    )
    checked: dt.date = Field(
        description=(
            "When someone last checked this citation (title, authors, date, link, and the figures "
            "citing it) against the source itself, YYYY-MM-DD. The Data quality page flags checks "
            "more than a year old."
        ),
        examples=["2026-12-01"],
    )
    status: Status = Field(
        default=Status.reported,
        description="`reported` when the citation itself was checked; `unverified` otherwise.",
    )
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what could and could not be found."
    )
    key: bool = Field(
        default=False, description="True for the site's list of key references."
    )
    label: ShortText | None = Field(
        default=None, description="Short label shown in the key-references list, if not the title."
    )
    further_reading: Prose | None = Field(
        default=None, description="If set, the reference is listed under Further reading with this."
    )
    summary: Prose | None = Field(
        default=None, description="What the source confirms, in a sentence or two."
    )
