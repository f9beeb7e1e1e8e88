"""Shared field types for the authoring models (pipeline step 2: pydantic validation).

Every constrained string the catalog uses (ids, URLs, prose) is an ``Annotated`` type here, so a
bad value is reported by pydantic at the exact field that holds it, and the same constraint
reaches the generated JSON Schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints
from pydantic_core import PydanticCustomError

from tinkernomics.markup import prose as markup_prose
from tinkernomics.markup.invisible import hidden_message

LEADING_WORD_PATTERN = r"^\w"
"""Text that starts with a letter or digit: never read as a spreadsheet formula in a CSV."""
ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"
"""Entry ids: lower case, digits, ``_ . -``; equal to the file name for one-file entries."""

Id = Annotated[
    str,
    StringConstraints(pattern=ID_PATTERN, max_length=80),
    Field(description="Lower-case id: letters, digits, '_', '.', '-'.", examples=["grpo"]),
]



@dataclass(frozen=True)
class LinkTo:
    """Marks an id field as a link to an entry of ``kind``: ``catalog/links.rule_links_exist``
    reads the marks off the models, so a new link is a field typed ``Link["kind"]``-style
    (``Annotated[Id, LinkTo("kind")]``), not a line in a rule. ``what`` names the target in
    the message (``unknown Tinker loss 'x'``); the kind's name by default."""

    kind: str
    what: str | None = None

    @property
    def label(self) -> str:
        return self.what or self.kind.replace("_", " ")


HardwareId = Annotated[Id, LinkTo("hardware")]
"""A link to a hardware entry (catalog/hardware/)."""
ModelId = Annotated[Id, LinkTo("model")]
"""A link to a language model entry (catalog/models/)."""
LossId = Annotated[Id, LinkTo("loss", "Tinker loss")]
"""A link to a Tinker loss entry (catalog/tinker/losses/)."""

TEXT_ERROR = "catalog_text"
"""Error type of text the sanitiser would change; its ``ctx`` carries the ``hint``."""
_MARKUP_CHARS = re.compile(r"[<>&\[\]\\#\n]")
"""Without any of these, Markdown writes nothing the sanitiser removes (no raw HTML, entity,
link, image, math or heading can start): a fast path that skips rendering, not a filter."""
_ANY_MARKUP = re.compile("[" + re.escape("<>&[]\\#\n" + markup_prose.MARKUP) + "]")
"""``_MARKUP_CHARS`` and what ``prose.over_budget`` counts: a text without any of them is
neither rendered nor counted (issue 47: most catalog strings are words and numbers)."""


def _safe_markup(text: str) -> str:
    """Prose reaches the page as written: rendered as the site renders it (Markdown, math), the
    allow-list sanitiser would remove nothing (no raw HTML, links http(s) or on this site,
    images from this site only). One verdict, the sanitiser's (``tinkernomics.markup``)."""
    if _ANY_MARKUP.search(text) is None:
        return text
    if _MARKUP_CHARS.search(text) is None and markup_prose.over_budget(text) is None:
        return text
    found = markup_prose.problems(text)
    if found:
        raise PydanticCustomError(TEXT_ERROR, "{message}",
                                  {"message": "; ".join(found), "hint": markup_prose.HINT})
    return text


def _safe_latex(latex: str) -> str:
    """LaTeX renders to MathML the sanitiser keeps whole (no \\href, \\style or HTML in \\text)."""
    found = markup_prose.latex_problems(latex)
    if found:
        raise PydanticCustomError(TEXT_ERROR, "{message}", {"message": "; ".join(found),
                                  "hint": "write math only: no \\href, \\style or HTML"})
    return latex


def _no_invisible(text: str) -> str:
    """Text shows what it says: no bidi controls (U+202A-U+202E, U+2066-U+2069), zero-width or
    other invisible format characters, control characters or line separators
    (``markup.invisible``), which can make text read differently from what a reviewer saw in the
    YAML. (Written as an entity or ``\\unicode``, the renderers' verdict reports them.)
    Printable text (``str.isprintable``: no Cc, Cf, Co, Cn, Zl, Zp, nor any space but ' ')
    holds none of them: asked first, in C, it spares the search of most texts (issue 47)."""
    if text.isprintable():
        return text
    message = hidden_message(text)
    if message is not None:
        raise ValueError(message)
    return text


Prose = Annotated[
    str,
    StringConstraints(min_length=1, max_length=4000, strip_whitespace=True),
    AfterValidator(_no_invisible),
    AfterValidator(_safe_markup),
    Field(description="Markdown text: links as [text](https://...); no raw HTML."),
]

ShortText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=300, strip_whitespace=True),
    AfterValidator(_no_invisible),
    AfterValidator(_safe_markup),
]

Latex = Annotated[
    str,
    StringConstraints(min_length=1, max_length=400),
    AfterValidator(_no_invisible),
    AfterValidator(_safe_latex),
    Field(description="LaTeX (rendered to MathML at build time).", examples=[r"\\frac{a}{b}"]),
]

_URL = re.compile(r"^https?://[^\s/$.?#][^\s<>\"]*$")


def _http_url(url: str) -> str:
    """URLs are absolute http(s) links."""
    if not _URL.match(url):
        raise ValueError("must be an absolute http:// or https:// URL")
    return url


Url = Annotated[
    str,
    AfterValidator(_http_url),
    AfterValidator(_no_invisible),
    Field(description="Absolute http(s) URL.", examples=["https://arxiv.org/abs/2402.03300"]),
]


class Status(StrEnum):
    """How much a figure can be trusted."""

    reported = "reported"
    derived = "derived"
    unverified = "unverified"


STATUS_MEANINGS: dict[Status, str] = {
    Status.reported: "stated in the cited source",
    Status.derived: "computed here from cited inputs",
    Status.unverified: "no source found that confirms it; `asserted_by` says who gave it",
}


class AssertedBy(StrEnum):
    """Who asserted an unverified figure (required with `status: unverified`, refused otherwise)."""

    original_site = "original_site"
    contributor = "contributor"
    secondary_source = "secondary_source"


ASSERTED_BY_MEANINGS: dict[AssertedBy, str] = {
    AssertedBy.original_site: "as given by the original site",
    AssertedBy.contributor: "added by a contributor",
    AssertedBy.secondary_source: "as given by a secondary source",
}

ASSERTED_BY_DESCRIPTION = (
    "Who asserted it; required when `status` is `unverified`, refused otherwise. "
    "`original_site`: as given by the original site; `contributor`: added by a contributor, "
    "not yet checked; `secondary_source`: taken from a secondary source (a blog, a summary) "
    "that the cited source does not confirm."
)


def status_meaning(status: Status, asserted_by: AssertedBy | str | None = None) -> str:
    """What a status means for one value: an unverified value says who asserted it."""
    if status == Status.unverified:
        if not asserted_by:  # a value computed here from unverified inputs
            return "no source found that confirms it"
        return f"{ASSERTED_BY_MEANINGS[AssertedBy(asserted_by)]}; no source found that confirms it"
    return STATUS_MEANINGS[status]


class Unit(StrEnum):
    """Units a figure may carry. Add one here (and to UNIT_LABELS) when a new kind is needed."""

    percent = "percent"
    fraction = "fraction"
    ratio = "ratio"
    dimensionless = "dimensionless"
    multiplier = "multiplier"
    count = "count"  # type: ignore[assignment]  # shadows str.count; "count" is catalog vocabulary
    parameters = "parameters"
    billion_parameters = "billion_parameters"
    tokens = "tokens"
    tokens_per_second = "tokens_per_second"
    gb200_hours = "gb200_hours"
    gpu_hours = "gpu_hours"
    seconds = "seconds"
    hours = "hours"
    days = "days"
    weeks = "weeks"
    steps = "steps"
    gpus = "gpus"
    tflops = "tflops"
    flops = "flops"
    bytes = "bytes"
    gb = "gb"
    mb = "mb"
    tb_per_second = "tb_per_second"
    watts = "watts"
    usd = "usd"
    usd_per_hour = "usd_per_hour"
    usd_per_gpu_hour = "usd_per_gpu_hour"
    usd_per_million_tokens = "usd_per_million_tokens"
    usd_per_gb_month = "usd_per_gb_month"


UNIT_LABELS: dict[Unit, str] = {
    Unit.percent: "%",
    Unit.fraction: "",
    Unit.ratio: "×",
    Unit.dimensionless: "",
    Unit.multiplier: "×",
    Unit.count: "",
    Unit.parameters: "parameters",
    Unit.billion_parameters: "B parameters",
    Unit.tokens: "tokens",
    Unit.tokens_per_second: "tokens/s",
    Unit.gb200_hours: "GB200-hours",
    Unit.gpu_hours: "GPU-hours",
    Unit.seconds: "s",
    Unit.hours: "h",
    Unit.days: "days",
    Unit.weeks: "weeks",
    Unit.steps: "steps",
    Unit.gpus: "GPUs",
    Unit.tflops: "TFLOP/s",
    Unit.flops: "FLOP",
    Unit.bytes: "bytes",
    Unit.gb: "GB",
    Unit.mb: "MB",
    Unit.tb_per_second: "TB/s",
    Unit.watts: "W",
    Unit.usd: "USD",
    Unit.usd_per_hour: "USD/h",
    Unit.usd_per_gpu_hour: "USD/GPU-hour",
    Unit.usd_per_million_tokens: "USD per 1M tokens",
    Unit.usd_per_gb_month: "USD per GB-month",
}
