"""The contributor pages' macros (pipeline step 6, a feature module in ``site.build.FEATURES``).

``fields_reference()`` renders the **Fields reference** page from the models' field
documentation (``fieldsdoc``): one table per kind of entry, one per shared part (Figure,
Claim, ...), then the units and statuses. Nothing on that page is typed twice: the
descriptions are the ones editors show from the JSON Schemas and the scaffold writes as comments.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from tinkernomics.catalog.entries import KINDS, Kind
from tinkernomics.catalog.fields import (
    ASSERTED_BY_MEANINGS,
    STATUS_MEANINGS,
    UNIT_LABELS,
    Status,
    Unit,
)
from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.contributing.fieldsdoc import (
    NO_DEFAULT,
    FieldDoc,
    field_docs,
    flow,
    nested_models,
)

UNITS_ANCHOR = "units"
STATUS_ANCHOR = "status"


def anchor(model: type[BaseModel]) -> str:
    return f"part-{model.__name__.lower()}"


def kind_anchor(kind: Kind) -> str:
    return f"kind-{kind.name.replace('_', '-')}"


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _code(value: object) -> str:
    return f"`{flow(value)}`"


def _type_cell(doc: FieldDoc) -> str:
    if doc.model is not None:
        link = f"[{doc.model.__name__}](#{anchor(doc.model)})"
        return f"list of {link}" if doc.many else link
    if doc.allowed and set(doc.allowed) == {u.value for u in Unit}:
        return f"a [unit](#{UNITS_ANCHOR})"
    if doc.allowed and set(doc.allowed) == {s.value for s in Status}:
        return f"a [status](#{STATUS_ANCHOR})"
    if doc.allowed:  # every value, however many: there is no other place that lists them
        prefix = "list, each one of" if doc.many else "one of"
        return f"{prefix}: " + ", ".join(f"`{v}`" for v in doc.allowed)
    return _cell(doc.type_label)


def _required_cell(doc: FieldDoc) -> str:
    if doc.required:
        return "**required**"
    if doc.required_when:
        return f"optional; **required** when {doc.required_when}"
    if doc.default is None or doc.default is NO_DEFAULT:
        return "optional"
    return f"optional (default {_code(doc.default)})"


def _description_cell(doc: FieldDoc) -> str:
    parts = [_cell(doc.description)]
    if doc.units:
        parts.append("Unit: " + ", ".join(f"`{u}`" for u in doc.units) + ".")
    if doc.examples:
        word = "Example" if len(doc.examples) == 1 else "Examples"
        parts.append(f"{word}: " + ", ".join(_code(e) for e in doc.examples) + ".")
    return " ".join(p for p in parts if p)


def field_table(model: type[BaseModel]) -> list[str]:
    """A markdown table of every field of ``model``."""
    rows = ["| Field | Required | Type | Description |", "|---|---|---|---|"]
    for doc in field_docs(model):
        rows.append(f"| `{doc.name}` | {_required_cell(doc)} | {_type_cell(doc)} | "
                    f"{_description_cell(doc)} |")
    return rows


def _summary(model: type[BaseModel]) -> str:
    return " ".join((model.__doc__ or "").split())


def _kind_section(kind: Kind) -> list[str]:
    where = f"catalog/{kind.folder}/<id>.yaml"
    if kind.name == "platform":
        where = f"catalog/{kind.folder}/tinker.yaml"
    return [f"### {kind.title} {{#{kind_anchor(kind)}}}", "",
            f"{_summary(kind.model)} One entry per file: `{where}`; editor schema "
            f"`catalog/schema/{kind.schema_file()}`.", "", *field_table(kind.model), ""]


def shared_parts() -> list[type[BaseModel]]:
    """Nested models used by the kinds, each once, in order of first use."""
    seen: list[type[BaseModel]] = []
    for kind in KINDS:
        for model in nested_models(kind.model):
            if model not in seen:
                seen.append(model)
    return seen


def _part_section(model: type[BaseModel]) -> list[str]:
    return [f"### {model.__name__} {{#{anchor(model)}}}", "", _summary(model), "",
            *field_table(model), ""]


def _units_section() -> list[str]:
    rows = ["| Unit | Shown as |", "|---|---|"]
    rows += [f"| `{unit.value}` | {_cell(UNIT_LABELS[unit]) or '(no label)'} |" for unit in Unit]
    return [f"## Units {{#{UNITS_ANCHOR}}}", "", "A figure's `unit` is one of these.", "",
            *rows, ""]


def _status_section() -> list[str]:
    rows = ["| Status | Meaning |", "|---|---|"]
    rows += [f"| `{status.value}` | {_cell(meaning)} |" for status, meaning in
             STATUS_MEANINGS.items()]
    who = ["| `asserted_by` | Meaning |", "|---|---|"]
    who += [f"| `{a.value}` | {_cell(meaning)} |" for a, meaning in ASSERTED_BY_MEANINGS.items()]
    return [f"## Status {{#{STATUS_ANCHOR}}}", "",
            "Every figure, claim and formula says how far it can be trusted.", "", *rows, "",
            "An `unverified` value also says who asserted it (`asserted_by`, required with "
            "`unverified` and refused with any other status):", "", *who, ""]


def _sections() -> Iterator[str]:
    yield "## Kinds of entries"
    yield ""
    for kind in KINDS:
        yield from _kind_section(kind)
    yield "## Shared parts"
    yield ""
    yield "Fields whose type is one of these hold a nested mapping (or a list of them)."
    yield ""
    for model in shared_parts():
        yield from _part_section(model)
    yield from _units_section()
    yield from _status_section()


def fields_reference() -> str:
    """Markdown of the whole Fields reference (kinds, shared parts, units, statuses)."""
    return "\n".join(_sections()).rstrip() + "\n"


def macros(ctx: SiteContext) -> dict[str, Macro]:
    return {"fields_reference": fields_reference}
