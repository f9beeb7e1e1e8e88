"""Public API models and their builder (pipeline step 5 -> 6: derived view models for /api/v1/).

The public API has its own pydantic classes, separate from the authoring models in
``models.py``: the catalog may grow or rename fields for contributors without breaking people who
read ``/api/v1/``; the API changes only with a version bump and a ``CHANGELOG_API.md`` entry
(``schema_guard`` and tests/test_api_schema.py enforce that).

``api_build.build_api(catalog)`` fills these models from a validated catalog (derived figures
come from ``derive``); ``api_files`` serialises them into JSON, CSV and a zip.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model, model_validator

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import AssertedBy, Status, Unit

API_VERSION = "1.2.0"
"""Semantic version of the public API. Bump it (and add a CHANGELOG_API.md entry) whenever the
generated schema changes: patch for wording, minor for additions, major (new /api/vN/) for
anything that breaks a reader."""

API_MAJOR = "v1"
SEMVER_PATTERN = r"^1\.\d+\.\d+$"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ASSERTED_BY_API = ("Who asserted an unverified value: `original_site`, `contributor` or "
                   "`secondary_source`; null unless `status` is `unverified`.")

# --------------------------------------------------------------------------- base and provenance


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
        "/api/v1/.",
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


_PROVENANCE_RULE = {
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
    note: str | None = Field(description="Context (markdown).")
    reported_instead: str | None = Field(description="For unverified values: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)


class Claim(ApiModel):
    """A sentence with figures in it, with its provenance."""

    text: str = Field(description="The claim (markdown).")
    status: Status = Field(description="Provenance status; see Figure.status.")
    source: str = Field(description="Reference id backing the claim.")
    reported_instead: str | None = Field(description="For unverified claims: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)


class Citation(ApiModel):
    """An entry that cites a reference."""

    kind: str = Field(description="Kind of the citing entry.", examples=["algorithm"])
    id: str = Field(description="Id of the citing entry.")


# --------------------------------------------------------------------------- entries


class Reference(ApiModel):
    """A paper, post, documentation page or data source."""

    id: str = Field(description="Reference id; figures name it in `source`.")
    title: str = Field(description="Title of the work.")
    authors: str = Field(description="Authors or organisation.")
    venue: str | None = Field(description="Venue or kind of publication.")
    year: int | None = Field(description="Publication year.")
    date: dt.date | None = Field(description="Publication or snapshot date.")
    url: str | None = Field(description="Canonical URL; null only for unverified references.")
    checked: dt.date = Field(description="When the citation was last checked against the source.")
    status: Status = Field(description="`reported` when the citation was checked.")
    reported_instead: str | None = Field(description="For unverified references: what was found.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    key: bool = Field(description="True for the site's key references.")
    label: str | None = Field(description="Short label for lists.")
    further_reading: str | None = Field(description="Why it is worth reading, when listed.")
    summary: str | None = Field(description="What the source confirms.")
    cited_by: list[Citation] = Field(description="Entries citing it, by kind then id.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class CurvePoint(ApiModel):
    """A point of a fitted ScaleRL curve."""

    gb200_hours: float = Field(description="Compute, in GB200-hours.")
    h100_equivalent_hours: float | None = Field(
        description="The same compute in H100-hours; null if the catalog has no conversion."
    )
    reward_percent: float = Field(description="Fitted pass rate R(C), in percent.")


class Curve(ApiModel):
    """R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) sampled on a shared log grid."""

    status: Literal[Status.derived] = Field(description="Always `derived`.")
    derivation: Derivation = Field(description="Inputs of the curve.")
    points: list[CurvePoint] = Field(description="Points, by increasing compute.")


class ScaleRL(ApiModel):
    """ScaleRL sigmoid fit and what is derived from it."""

    model: str = Field(description="Model the fit was made on.")
    dataset: str = Field(description="Data of the fit.")
    A: Figure = Field(description="Asymptotic pass rate, percent.")
    B: Figure = Field(description="Scaling exponent.")
    C_mid: Figure = Field(description="Compute at half the gain, GB200-hours.")
    R0: Figure | None = Field(description="Starting pass rate, percent; null means 0.")
    C_mid_h100_equivalent: Figure | None = Field(
        description="C_mid in H100-hours of equal peak dense BF16 compute (derived)."
    )
    curve: Curve = Field(description="The fitted curve (derived).")


class Algorithm(ApiModel):
    """An RL post-training algorithm and its cost and memory profile."""

    id: str = Field(description="Algorithm id.")
    name: str = Field(description="Short name.")
    full_name: str = Field(description="Expanded name.")
    attribution: str = Field(description="Who introduced it.")
    year: int = Field(description="Year of the original paper.")
    models_in_memory: list[m.ModelRole] = Field(description="Models held in memory.")
    needs_critic: bool = Field(description="True if a value model is trained.")
    needs_reward_model: bool = Field(description="True if a learned reward model scores rollouts.")
    memory_profile: m.MemoryProfile = Field(description="Coarse memory class.")
    typical_k: FigureList = Field(description="Typical optimisation passes K per batch.")
    typical_g: FigureList | None = Field(description="Typical group size G; null if N/A.")
    async_support: bool = Field(description="True if it tolerates off-policy rollouts.")
    online: bool = Field(description="False for offline methods.")
    tinker_losses: list[str] = Field(description="Tinker loss ids it maps to, primary first.")
    tinker_mapping: str | None = Field(description="How it runs on Tinker (markdown).")
    scalerl: ScaleRL | None = Field(description="ScaleRL fit, if any.")
    notes: str = Field(description="What sets it apart (markdown).")
    claims: list[Claim] = Field(description="Headline results with sources.")
    references: list[str] = Field(description="Reference ids it rests on.")
    page: str = Field(description="Its page on the site, relative to the site root.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class Variable(ApiModel):
    """A variable of a formula."""

    name: str = Field(description="Name used in `expression`.")
    symbol: str = Field(description="LaTeX symbol.")
    meaning: str = Field(description="What it stands for.")
    unit: Unit = Field(description="Unit.")
    unit_label: str = Field(description="Short label of the unit.")
    example: float = Field(description="Value used in the worked example.")


class WorkedExample(ApiModel):
    """A formula evaluated at its variables' example values."""

    inputs: dict[str, float] = Field(description="Variable name -> example value.")
    result: Figure = Field(description="The result (derived).")


class Formula(ApiModel):
    """A FLOP or VRAM formula."""

    id: str = Field(description="Formula id.")
    kind: m.FormulaKind = Field(description="`flops` or `vram`.")
    name: str = Field(description="Component it prices.")
    order: int = Field(description="Position in its table.")
    latex: str = Field(description="Display form (LaTeX).")
    expression: str = Field(description="Arithmetic over the variables (+ - * / ** and parens).")
    result_unit: Unit = Field(description="Unit of the result.")
    variables: list[Variable] = Field(description="Every variable it uses.")
    description: str = Field(description="What it counts and leaves out (markdown).")
    status: Status = Field(description="Provenance status of the formula.")
    source: str = Field(description="Reference id backing it.")
    reported_instead: str | None = Field(description="For unverified formulas: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    worked_example: WorkedExample = Field(description="Evaluated at the example values.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class RentalPrice(ApiModel):
    """A dated rental price for one GPU."""

    provider: str = Field(description="Provider or index.")
    date: str = Field(description="When the price held.")
    price: Figure = Field(description="USD per GPU-hour.")


class Hardware(ApiModel):
    """An accelerator and the specs the cost formulas need."""

    id: str = Field(description="Hardware id.")
    name: str = Field(description="Display name.")
    bf16_dense_tflops: Figure = Field(description="Peak dense BF16, TFLOP/s.")
    memory_gb: Figure = Field(description="Memory per GPU, GB.")
    bandwidth_tb_s: Figure | None = Field(description="Memory bandwidth, TB/s.")
    power_w: Figure | None = Field(description="Board power, W.")
    rental_prices: list[RentalPrice] = Field(description="Dated rental prices.")
    notes: str | None = Field(description="Notes (markdown).")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class Conversion(ApiModel):
    """A compute-equivalence factor between two accelerators."""

    id: str = Field(description="Conversion id.")
    from_hardware: str = Field(description="Hardware id converted from.")
    to_hardware: str = Field(description="Hardware id converted to.")
    basis: str = Field(description="How the factor is derived.")
    description: str = Field(description="Why this basis, and its limits (markdown).")
    factor: Figure = Field(description="The factor (derived from the two hardware entries).")
    legacy_factor: Figure | None = Field(description="A factor used before, for the record.")
    alternatives: list[Claim] = Field(description="Other defensible factors, with sources.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class LanguageModel(ApiModel):
    """A base model offered for training."""

    id: str = Field(description="Model id; price rows name it.")
    name: str = Field(description="Name as the provider lists it.")
    family: str = Field(description="Model family.")
    architecture: m.Architecture = Field(description="`dense` or `moe`.")
    vision: bool = Field(description="True if it takes image input.")
    total_params: Figure = Field(description="Total parameters, billions.")
    active_params: Figure | None = Field(description="Active parameters (MoE), billions.")
    d_model: Figure | None = Field(description="Hidden size.")
    notes: str | None = Field(description="Notes (markdown).")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class PriceRow(ApiModel):
    """Per-token prices of one model (and variant) in a price list."""

    model: str = Field(description="Model id (models/<id>.json).")
    model_name: str = Field(description="The model's name.")
    variant: str | None = Field(description="Variant suffix, e.g. long context.")
    prefill: Figure = Field(description="USD per 1M prefill tokens.")
    sample: Figure = Field(description="USD per 1M sampled tokens.")
    train: Figure = Field(description="USD per 1M trained tokens.")
    note: str | None = Field(description="Note on the row.")


class PriceList(ApiModel):
    """A dated snapshot of Tinker's price list; rows inherit its status and source."""

    id: str = Field(description="Price list id.")
    effective: dt.date = Field(description="Date the prices took effect or were captured.")
    latest: bool = Field(description="True for the most recent snapshot.")
    title: str = Field(description="Short description.")
    status: Status = Field(description="Default status of its prices.")
    source: str = Field(description="Default source of its prices.")
    reported_instead: str | None = Field(description="For an unverified list: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)
    storage_usd_per_gb_month: Figure | None = Field(description="Checkpoint storage price.")
    cached_prefill_discount: Figure | None = Field(description="Discount on cached prefill.")
    rows: list[PriceRow] = Field(description="One row per model and variant.")
    notes: str | None = Field(description="Caveats (markdown).")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class LossInput(ApiModel):
    """A per-token input array of a Tinker loss."""

    name: str = Field(description="Key in `loss_fn_inputs`.")
    dtype: str = Field(description="Element type.")
    description: str = Field(description="What it holds.")


class Hyperparameter(ApiModel):
    """A key of a loss's `loss_fn_config`."""

    name: str = Field(description="Key in `loss_fn_config`.")
    description: str = Field(description="What it does.")
    default: Figure | None = Field(description="Documented default.")


class Loss(ApiModel):
    """A Tinker loss function."""

    id: str = Field(description="Loss id (Tinker's loss_fn string for built-ins).")
    name: str = Field(description="Display name.")
    builtin: bool = Field(description="True for built-in losses.")
    order: int = Field(description="Position in the losses table.")
    inputs: list[LossInput] = Field(description="Per-token inputs.")
    outputs: list[str] = Field(description="Per-token outputs.")
    hyperparameters: list[Hyperparameter] = Field(description="`loss_fn_config` keys.")
    latex: str = Field(description="The loss (LaTeX).")
    description: str = Field(description="What it computes (markdown).")
    claims: list[Claim] = Field(description="Costs or caveats, sourced.")
    references: list[str] = Field(description="Reference ids.")
    api_path: str = Field(description="This entry's file, relative to /api/v1/.")


class Primitive(ApiModel):
    """A Tinker client call."""

    name: str = Field(description="Method name.")
    client: str = Field(description="Client class.")
    signature: str = Field(description="Call signature.")
    description: str = Field(description="What it does.")
    core: bool = Field(description="True for the four core primitives.")
    phase: m.Phase | None = Field(description="RL phase it serves.")
    source: str = Field(description="Reference id.")


class TokenType(ApiModel):
    """A kind of token billed separately."""

    id: str = Field(description="`prefill`, `sample` or `train`.")
    name: str = Field(description="Display name.")
    description: str = Field(description="What is billed as this kind.")


class AbsorbedItem(ApiModel):
    """Infrastructure the managed trainer takes off your hands."""

    name: str = Field(description="Short name.")
    description: str = Field(description="What it involves.")


class SpectrumPoint(ApiModel):
    """A point on the control-versus-burden spectrum."""

    name: str = Field(description="Kind of tool.")
    examples: str = Field(description="Examples.")
    control: str = Field(description="How much of the loop you control.")
    burden: str = Field(description="What you must operate.")
    description: str = Field(description="The trade-off.")


class SetupCost(ApiModel):
    """One-off engineering cost of self-hosting an RL stack."""

    duration: Figure = Field(description="Engineering time, weeks.")
    hourly_rate: Figure = Field(description="Engineer rate, USD per hour.")
    hours_per_week: Figure = Field(description="Working hours per week.")
    total: Figure = Field(description="Total as the original site states it, USD.")
    computed_total: Figure = Field(
        description="duration x hours_per_week x hourly_rate, USD (derived; compare `total`)."
    )
    description: str = Field(description="Why it matters.")


class Platform(ApiModel):
    """Tinker as a platform."""

    id: str = Field(description="Always `tinker`.")
    intro: str = Field(description="What Tinker is.")
    primitives: list[Primitive] = Field(description="Client calls.")
    phases: str = Field(description="How the primitives map onto RL phases.")
    token_types: list[TokenType] = Field(description="The three billed token kinds.")
    pricing_rationale: str = Field(description="Why per-token pricing.")
    absorbs: list[AbsorbedItem] = Field(description="What the abstraction absorbs.")
    setup_cost: SetupCost = Field(description="Cost of building it yourself.")
    spectrum: list[SpectrumPoint] = Field(description="The abstraction spectrum.")
    spectrum_intro: str = Field(description="The trade-off.")
    gpu_hours_hide: str = Field(description="Why GPU-hours hide the real cost.")
    gpu_hours_claims: list[Claim] = Field(description="Sourced figures about phase time.")
    general_purpose_note: str = Field(description="Tinker is a trainer, not an RL framework.")
    grpo_note: str = Field(description="How GRPO runs on the built-in losses.")
    references: list[str] = Field(description="Reference ids.")
    api_path: str = Field(description="This file, relative to /api/v1/.")


# --------------------------------------------------------------------------- collections


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


_CHANGELOG_HEADING = re.compile(r"^## \[?(\d+\.\d+\.\d+)\]?", re.MULTILINE)


def changelog_versions(text: str) -> list[str]:
    """Versions with a ``## X.Y.Z`` heading in CHANGELOG_API.md, newest (first) first."""
    return _CHANGELOG_HEADING.findall(text)


def _semver(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def schema_body(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without its version: what changes when the public models change."""
    return {k: v for k, v in schema.items() if k != "version"}


@dataclass(frozen=True)
class GuardProblem:
    """Why the committed schema may not stand. ``code`` says whether regenerating fixes it."""

    code: Literal["changelog", "backwards", "unbumped", "stale"]
    message: str

    @property
    def fixed_by_regenerating(self) -> bool:
        return self.code == "stale"


def schema_guard(committed: dict[str, Any] | None, generated: dict[str, Any],
                 changelog: str) -> list[GuardProblem]:
    """Problems of the committed schema against the generated one (empty list: all good).

    A changed schema needs a bumped ``API_VERSION``, a changelog entry for it (the newest one)
    and the committed copy regenerated; a version going backwards is refused too.
    """
    version = generated["version"]
    problems = []
    versions = changelog_versions(changelog)
    if version not in versions:
        problems.append(GuardProblem("changelog", f"CHANGELOG_API.md has no '## {version}' "
                                     f"entry for API_VERSION {version}"))
    elif versions[0] != version:
        problems.append(GuardProblem("changelog", f"the newest CHANGELOG_API.md entry is "
                                     f"{versions[0]}, but API_VERSION is {version}"))
    if committed is None:
        return [*problems, GuardProblem(
            "stale", "no committed API schema: run `tinkernomics api schema`")]
    old = str(committed.get("version", "0.0.0"))
    if _semver(version) < _semver(old):
        problems.append(GuardProblem(
            "backwards", f"API_VERSION {version} is older than the committed schema's {old}"))
    if schema_body(committed) != schema_body(generated) and old == version:
        problems.append(GuardProblem("unbumped", (
            f"the public API schema changed but API_VERSION is still {version}: bump it in "
            "tinkernomics/api.py, describe the change under a new heading in CHANGELOG_API.md, "
            "then run `tinkernomics api schema`")))
    elif committed != generated:
        problems.append(GuardProblem(
            "stale", "the committed API schema is stale: run `tinkernomics api schema`"))
    return problems
