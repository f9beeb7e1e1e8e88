"""A kind of catalog entry is declared once (ARCHITECTURE.md, "Where to add things").

A throwaway kind -- a model with an id and a name, a folder, a title -- is declared for each test
(``KINDS.declared``), one entry of it is written into a copy of the fixture catalog, and with no
other change it validates, is shown on the site (every page macro renders; the entry has its
page and anchor) and is published in the API (index, collection file, item file, schema).
Pages and API are built in-process, as the build's features do, so the declaration reaches them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, run_validate, write_file
from pydantic import Field

from tinkernomics.catalog.entries import KINDS, Catalog, Kind
from tinkernomics.catalog.fields import HardwareId, Id, ModelId, ShortText
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.models import Figure, StrictModel
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.schema import render_schemas
from tinkernomics.site import paths, reserved
from tinkernomics.site.api.documents import collections
from tinkernomics.site.api.files import render_api
from tinkernomics.site.api.generic import Unpublishable, public_model
from tinkernomics.site.api.provenance import ApiModel
from tinkernomics.site.api.version import API_MAJOR
from tinkernomics.site.build import SiteContext
from tinkernomics.site.contributing.scaffold import render_entry, scaffold_kinds
from tinkernomics.site.kinds import SITE_KINDS, ApiSide, SiteKind, listed_on
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages import views

REPO_ROOT = Path(__file__).resolve().parent.parent
WHEN = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


class Gadget(StrictModel):
    """A throwaway kind of entry, declared by this test only."""

    id: Id = Field(description="Gadget id.")
    name: ShortText = Field(description="Its name.")


GADGET = Kind("gadget", Gadget, "gadgets", "Gadgets")


@pytest.fixture
def gadget_root(tmp_path: Path) -> Iterator[Path]:
    """The fixture catalog plus one gadget, with the gadget kind declared."""
    root = copy_valid(tmp_path)
    write_file(root, "gadgets/sprocket.yaml", "id: sprocket\nname: Sprocket\n")
    with KINDS.declared(GADGET):
        yield root


@pytest.fixture
def gadget_catalog(gadget_root: Path) -> Catalog:
    return load_valid_catalog(gadget_root)


def test_the_entry_of_a_declared_kind_validates(gadget_root: Path) -> None:
    run = run_validate(gadget_root.parent)
    assert run.code == 0, run.out + run.err
    assert run.problems == []


def test_without_the_declaration_its_folder_is_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "gadgets/sprocket.yaml", "id: sprocket\nname: Sprocket\n")
    run = run_validate(tmp_path)
    assert run.code == 1
    assert [p.message for p in run.problems] == ["gadgets/ is not a catalog folder"]


def test_every_page_renders_and_the_entry_has_a_page_and_an_anchor(
        gadget_catalog: Catalog) -> None:
    ctx = SiteContext(root=REPO_ROOT, catalog=gadget_catalog)
    for name, macro in pages.PAGE_MACROS.items():
        if name == "algorithm_page":
            for algo_id in gadget_catalog.algorithms:
                macro(ctx, algo_id)
        else:
            macro(ctx)
    page = views.entry_page("gadget", "sprocket")
    anchor = views.entry_anchor("gadget", "sprocket")
    assert (page, anchor) == (views.DATA_QUALITY, "entry-gadget-sprocket")
    markdown = pages.data_quality_page(ctx)
    assert "#### Sprocket {#entry-gadget-sprocket}" in markdown.splitlines()
    assert "<li>Id: <code>sprocket</code></li>" in markdown
    assert views.kind_title("gadget") == "Gadgets"


def test_the_entry_is_in_the_api_index_and_its_collection(gadget_catalog: Catalog) -> None:
    files = render_api(gadget_catalog, last_changed=WHEN)
    index = json.loads(files["index.json"])["result"]
    listed = {c["name"]: c for c in index["collections"]}["gadgets"]
    assert (listed["kind"], listed["path"], listed["count"]) == ("gadget", "gadgets.json", 1)
    item = {"id": "sprocket", "name": "Sprocket", "api_path": "gadgets/sprocket.json"}
    collection = json.loads(files["gadgets.json"])
    assert (collection["kind"], collection["count"], collection["result"]) == (
        "gadget_collection", 1, [item])
    assert json.loads(files["gadgets/sprocket.json"])["result"] == item
    assert "GadgetCollectionDocument" in json.loads(files["schema.json"])["$defs"]


def test_the_new_command_and_the_editor_schemas_cover_it(gadget_root: Path) -> None:
    assert "gadget" in scaffold_kinds()
    assert "name:" in render_entry(GADGET, "widget").splitlines()
    assert "gadget.schema.json" in render_schemas()


def test_a_declaration_ends_with_its_block() -> None:
    with KINDS.declared(GADGET):
        assert "gadgets" in [c.path for c in collections()]
    assert GADGET not in KINDS
    assert "gadgets" not in [c.path for c in collections()]
    assert "gadget" not in scaffold_kinds()


def test_clashing_declarations_are_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"kind 'gadget' .* clashes with kind 'algorithm'"):
        KINDS.declare(Kind("gadget", Gadget, "algorithms", "Gadgets"))
    clash = Kind("gadget", Gadget, "gadgets/prices", "Gadgets")
    with KINDS.declared(clash), pytest.raises(
            ValueError, match="'prices' of kind 'gadget' clashes with kind 'price_list'"):
        collections()


class Nested(StrictModel):
    """A nested model without a public twin."""

    label: ShortText = Field(description="A label.")


class Boxed(StrictModel):
    """A kind whose model holds a nested model the generic API model cannot carry."""

    id: Id = Field(description="Id.")
    weight: Figure = Field(description="A figure (has a public twin).")
    box: Nested = Field(description="A nested model (has none).")


def test_a_kind_the_generic_api_model_cannot_carry_is_named() -> None:
    with pytest.raises(Unpublishable, match="kind 'boxed': field 'box' holds a Nested"):
        public_model(Kind("boxed", Boxed, "boxes", "Boxes"))


def test_the_site_declarations_name_declared_kinds_only() -> None:
    declared = {k.name for k in KINDS}
    assert {sk.kind.name for sk in SITE_KINDS} <= declared
    assert all(KINDS.by_name[sk.kind.name] is sk.kind for sk in SITE_KINDS)


# ---------------------------------------------------------------- a kind with a site side


class Dataset(StrictModel):
    """A throwaway kind with links (typed ``LinkTo``) and a site side of its own."""

    id: Id = Field(description="Dataset id.")
    name: ShortText = Field(description="Its name.")
    measured_on: HardwareId = Field(description="Hardware it was measured on.")
    models: list[ModelId] = Field(default_factory=list, description="Models trained on it.")


class PublicDataset(ApiModel):
    """The dataset as published: a public shape of its own."""

    id: str = Field(description="Dataset id.")
    title: str = Field(description="Its name, upper case.")
    api_path: str = Field(description="This entry's file.")


DATASET = Kind("dataset", Dataset, "datasets", "Datasets")
DATASET_SITE = SiteKind(DATASET, listed_on(paths.HARDWARE, "ds"), ApiSide(
    "data-sets", PublicDataset, "Datasets, measured.", csv=None,
    convert=lambda _shared, d: PublicDataset(id=d.id, title=d.name.upper(),
                                             api_path=f"data-sets/{d.id}.json")))
DATASET_YAML = "id: tulu\nname: Tulu mix\nmeasured_on: h100\nmodels: [qwen3-8b]\n"


@pytest.fixture
def dataset_root(tmp_path: Path) -> Iterator[Path]:
    """The fixture catalog plus one dataset, with the kind and its site side declared."""
    root = copy_valid(tmp_path)
    write_file(root, "datasets/tulu.yaml", DATASET_YAML)
    with KINDS.declared(DATASET), SITE_KINDS.declared(DATASET_SITE):
        yield root


def test_a_link_field_is_checked_from_its_type(dataset_root: Path) -> None:
    assert run_validate(dataset_root.parent).problems == []
    write_file(dataset_root, "datasets/tulu.yaml",
               "id: tulu\nname: Tulu mix\nmeasured_on: h200\nmodels: [qwen3-8b, qwen9]\n")
    found = {(p.where, p.message) for p in run_validate(dataset_root.parent).problems}
    assert found == {("catalog/datasets/tulu.yaml:3:14: measured_on", "unknown hardware 'h200'"),
                     ("catalog/datasets/tulu.yaml:4:20: models[1]", "unknown model 'qwen9'")}


def test_the_declared_page_places_the_entry_and_reserves_its_anchors(
        dataset_root: Path) -> None:
    assert views.entry_page("dataset", "tulu") == paths.HARDWARE
    assert views.entry_anchor("dataset", "tulu") == "ds-tulu"
    assert DATASET not in views.generic_kinds()
    patterns = {(ns.kind, ns.pattern) for ns in reserved.namespaces()}
    assert {("dataset", "hardware/#ds-{}"),
            ("dataset", f"api/{API_MAJOR}/data-sets/{{}}.json")} <= patterns


def test_the_declared_api_side_publishes_the_entry(dataset_root: Path) -> None:
    files = render_api(load_valid_catalog(dataset_root), last_changed=WHEN)
    index = json.loads(files["index.json"])["result"]
    listed = {c["name"]: c for c in index["collections"]}["data-sets"]
    assert (listed["kind"], listed["description"]) == ("dataset", "Datasets, measured.")
    item = {"id": "tulu", "title": "TULU MIX", "api_path": "data-sets/tulu.json"}
    assert json.loads(files["data-sets/tulu.json"])["result"] == item
    assert json.loads(files["data-sets.json"])["result"] == [item]
    assert "PublicDatasetCollectionDocument" in json.loads(files["schema.json"])["$defs"]


def _no_tulu(catalog: Catalog) -> Iterator[Problem]:
    """A rule of the dataset kind only: no dataset is called tulu."""
    for key in catalog.of("dataset"):
        if key == "tulu":
            yield catalog.problem("dataset", key, ("id",), "no tulu here")


def test_a_kinds_own_rules_run(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "datasets/tulu.yaml", DATASET_YAML)
    ruled = Kind("dataset", Dataset, "datasets", "Datasets", rules=(_no_tulu,))
    with KINDS.declared(ruled):
        problems = run_validate(tmp_path).problems
    assert [(p.where, p.message) for p in problems] == [
        ("catalog/datasets/tulu.yaml:1:5: id", "no tulu here")]
