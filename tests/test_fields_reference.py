"""The Fields reference page is generated from the models: every field of every kind and shared
part is there with its description, requiredness and allowed values; every in-page link lands."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from tinkernomics.catalog.entries import KINDS
from tinkernomics.catalog.fields import STATUS_MEANINGS, UNIT_LABELS, Unit
from tinkernomics.site.contributing.feature import (
    anchor,
    fields_reference,
    kind_anchor,
    shared_parts,
)
from tinkernomics.site.contributing.fieldsdoc import field_docs, nested_models

PAGE = fields_reference()


def _section(heading_id: str) -> str:
    """The markdown between the heading with ``{#heading_id}`` and the next heading."""
    match = re.search(rf"^#+ .*\{{#{re.escape(heading_id)}\}}\n(.*?)(?=^#+ |\Z)", PAGE,
                      re.MULTILINE | re.DOTALL)
    assert match, heading_id
    return match[1]


def _rows(section: str) -> dict[str, list[str]]:
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if cells and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


def _cases() -> list[tuple[str, type[BaseModel]]]:
    return [(kind_anchor(k), k.model) for k in KINDS] + [(anchor(m), m) for m in shared_parts()]


@pytest.mark.parametrize(("heading_id", "model"), _cases(), ids=lambda v: getattr(v, "__name__", v))
def test_every_field_has_a_row_with_its_description(heading_id: str,
                                                    model: type[BaseModel]) -> None:
    rows = _rows(_section(heading_id))
    docs = field_docs(model)
    assert list(rows) == [d.name for d in docs]
    for doc in docs:
        _, required, kind, description = rows[doc.name]
        assert required.startswith("**required**" if doc.required else "optional"), doc.name
        if doc.required_when:
            assert f"**required** when {doc.required_when}" in required, doc.name
        assert " ".join(doc.description.split()) in description.replace("\\|", "|"), doc.name
        if set(doc.allowed) == set(STATUS_MEANINGS):
            assert "](#status)" in kind, doc.name  # the status section lists them
        elif set(doc.allowed) == set(Unit):
            assert "](#units)" in kind, doc.name
        elif doc.allowed:
            assert all(f"`{v}`" in kind for v in doc.allowed), doc.name


def test_every_nested_model_of_every_kind_has_a_section() -> None:
    for kind in KINDS:
        for model in nested_models(kind.model):
            assert f"{{#{anchor(model)}}}" in PAGE, model.__name__


def test_every_in_page_link_has_its_heading() -> None:
    targets = set(re.findall(r"\]\(#([\w-]+)\)", PAGE))
    defined = set(re.findall(r"\{#([\w-]+)\}", PAGE))
    assert targets and targets <= defined, targets - defined


def test_units_and_statuses_are_listed() -> None:
    units = _rows(_section("units"))
    assert set(units) == {u.value for u in Unit}
    for unit in Unit:
        assert UNIT_LABELS[unit] in units[unit.value][1] or not UNIT_LABELS[unit]
    statuses = _rows(_section("status"))
    for status, meaning in STATUS_MEANINGS.items():
        assert statuses[status.value][1] == meaning
