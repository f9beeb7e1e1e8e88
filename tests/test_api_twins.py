"""Public API models read off their authoring models (site/api/twins.py): a field added to an
authoring model reaches its public twin (and so the schema guard asks for a version bump),
wording for API readers is kept, and a twin that cannot be read off says why."""

from __future__ import annotations

import pytest
from pydantic import Field

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import ShortText
from tinkernomics.catalog.models import StrictModel
from tinkernomics.site.api import entries, twins
from tinkernomics.site.api.provenance import Figure


class Gizmo(StrictModel):
    """An authoring model of this test."""

    name: ShortText = Field(description="Its name (catalog advice here).")
    weight: m.Figure = Field(description="A figure.")
    parts: list[m.Claim] = Field(default_factory=list, description="Claims.")
    note: ShortText | None = Field(default=None, description="A note.")


class Nested(StrictModel):
    """A nested model with no public twin."""

    label: ShortText = Field(description="A label.")


class Boxed(StrictModel):
    """An authoring model holding it."""

    box: Nested = Field(description="The box.")


def test_a_twin_has_the_authoring_fields_in_order_with_public_types() -> None:
    class PublicGizmo(twins.Twin, of=Gizmo, described={"name": "Its name."}):
        """A gizmo, as published."""

    fields = PublicGizmo.model_fields
    assert list(fields) == ["name", "weight", "parts", "note"]
    assert fields["weight"].annotation is Figure  # the public figure
    assert fields["parts"].annotation == list[twins.PUBLIC[m.Claim]]
    assert fields["note"].is_required()  # public fields are all required, null when absent
    assert (fields["name"].description, fields["note"].description) == ("Its name.", "A note.")
    assert twins.PUBLIC[Gizmo] is PublicGizmo


def test_a_field_typed_in_the_body_keeps_its_place_and_new_ones_go_last() -> None:
    class PublicGizmo(twins.Twin, of=Gizmo):
        """A gizmo with a derived weight."""

        weight: str = Field(description="Computed here.")
        api_path: str = Field(description="Its file.")

    assert list(PublicGizmo.model_fields) == ["name", "weight", "parts", "note", "api_path"]
    assert PublicGizmo.model_fields["weight"].annotation is str


def test_describing_a_field_the_model_lacks_is_an_error() -> None:
    with pytest.raises(TypeError, match="described names no field of Gizmo: colour"):
        class _Bad(twins.Twin, of=Gizmo, described={"colour": "Red."}):
            """Misspelt."""


def test_a_nested_model_without_a_twin_is_named() -> None:
    with pytest.raises(twins.NoPublicTwin, match=r"_Boxed\.box holds a Nested"):
        class _Boxed(twins.Twin, of=Boxed):
            """Cannot be read off."""


def test_the_published_twins_follow_their_authoring_models() -> None:
    """Every twin the API declares lists its authoring model's fields first, in order."""
    declared = [(a, p) for a, p in twins.PUBLIC.items() if issubclass(p, twins.Twin)]
    assert (m.Hardware, entries.Hardware) in declared and len(declared) >= 20
    for authoring, public in declared:
        assert list(public.model_fields)[:len(authoring.model_fields)] == list(
            authoring.model_fields), public.__name__


def test_a_published_runs_stage_is_read_off_its_authoring_model() -> None:
    """The API's run stage is a twin of the authoring stage (a setting added to a run's stage
    reaches the API with it), every field worded for API readers."""
    from tinkernomics.catalog.models import runs
    from tinkernomics.site.api import runs as api_runs

    public = twins.PUBLIC[runs.RunStage]
    assert public is api_runs.RunStage and issubclass(public, twins.Twin)
    assert list(public.model_fields) == list(runs.RunStage.model_fields)
    assert set(api_runs.STAGE_DESCRIBED) == set(runs.RunStage.model_fields)
