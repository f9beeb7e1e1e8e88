"""A field another page shows in full is not repeated by the generic view (issue 47's size
margin): a published run's notes are on the Back-test page, so its block on the Data quality page
names them with a link there (``SiteKind.elsewhere``, ``views.generic``); a kind without the
declaration keeps the field in full. On the fixture catalog, and on the toy runs of
``helpers_runs`` for the Back-test page (which prices them; never today's runs)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, write_file
from helpers_runs import run, with_runs
from markupsafe import escape
from pydantic import Field

from tinkernomics.catalog.entries import KINDS, Catalog, Kind
from tinkernomics.catalog.fields import Id, Prose, ShortText
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.models import StrictModel
from tinkernomics.site.build import SiteContext
from tinkernomics.site.calculator import backtestpage
from tinkernomics.site.calculator.feature import _render
from tinkernomics.site.kinds import SITE_KINDS, ShownOn, SiteKind, site_kind
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.paths import BACKTEST, DATA_QUALITY, backtest_anchor

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTES = "Said once: the run's own caveat & its why"
RUN_ID = "fx-run"
"""The fixture catalog's run (no notes)."""
NOTED = "noted"


def _catalog(root: Path) -> Catalog:
    return load_valid_catalog(root)


@pytest.fixture(scope="module")
def noted(catalog: Catalog) -> Catalog:
    """The toy catalog with one run, which has notes, and one without."""
    return with_runs(catalog, run(NOTED, 10.0, notes=NOTES, framework="Toy stack"),
                     run("plain", 10.0))


def _data_quality(catalog: Catalog) -> str:
    return pages.data_quality_page(SiteContext(root=REPO_ROOT, catalog=catalog))


def _entry_block(page: str, kind: str, key: str) -> str:
    """The field list of one entry's block in the generic section."""
    return page.split(f"{{#entry-{kind}-{key}}}", 1)[1].split("</ul>", 1)[0]


def test_a_runs_notes_are_given_once_and_linked_from_the_data_quality_page(
        noted: Catalog) -> None:
    data_quality = _data_quality(noted)
    backtest = _render("backtest.html", **backtestpage.view(noted))
    text = "own caveat &amp; its why"  # as both pages escape it
    assert (data_quality.count(text), backtest.count(text)) == (0, 1)
    anchor = backtest_anchor(NOTED)
    assert f'<h3 id="{anchor}"' in backtest
    block = _entry_block(data_quality, "run", NOTED)
    assert f'<li>Notes: <a href="../backtest/#{anchor}">on the Back-test page</a></li>' in block
    # every other field stays: the name, plain values, figures with their provenance
    assert f"<li>Name: {NOTED}</li>" in block and "<li>Framework: Toy stack</li>" in block
    assert "Notes:" not in _entry_block(data_quality, "run", "plain")
    assert re.search(r"<li>Actual GPU hours: <span class=\"tn-fig\"", block)
    assert re.search(r"<li>Stages 1: Steps: <span class=\"tn-fig\"", block)


def test_a_run_without_notes_has_no_notes_line(valid_catalog_dir: Path) -> None:
    block = _entry_block(_data_quality(_catalog(valid_catalog_dir)), "run", RUN_ID)
    assert "Notes:" not in block and "<li>Framework: Fixture stack</li>" in block


def test_the_declaration_names_the_back_test_page() -> None:
    shown = site_kind("run").elsewhere["notes"]
    assert (shown.page, shown.anchor("x")) == (BACKTEST, backtest_anchor("x"))
    assert all(not sk.elsewhere for sk in SITE_KINDS if sk.kind.name != "run")


# ---------------------------------------------------------------- a kind declared here


class Gizmo(StrictModel):
    """A throwaway kind with notes, listed by the generic view."""

    id: Id = Field(description="Gizmo id.")
    name: ShortText = Field(description="Its name.")
    notes: Prose | None = Field(default=None, description="Anything.")


GIZMO = Kind("gizmo", Gizmo, "gizmos", "Gizmos")
GIZMO_NOTES = "A gizmo's notes, long enough to matter"


@pytest.fixture
def gizmo_root(tmp_path: Path) -> Iterator[Path]:
    root = copy_valid(tmp_path)
    write_file(root, "gizmos/cog.yaml", f'id: cog\nname: Cog\nnotes: "{GIZMO_NOTES}"\n')
    with KINDS.declared(GIZMO):
        yield root


def test_a_kind_without_the_declaration_keeps_its_field(gizmo_root: Path) -> None:
    block = _entry_block(_data_quality(_catalog(gizmo_root)), "gizmo", "cog")
    assert f"<li>Notes: {escape(GIZMO_NOTES)}</li>" in block


def test_a_kind_that_declares_a_field_shown_elsewhere_links_it(gizmo_root: Path) -> None:
    shown = ShownOn("the Data quality page", DATA_QUALITY, lambda key: f"cog-notes-{key}")
    with SITE_KINDS.declared(SiteKind(GIZMO, elsewhere={"notes": shown})):
        block = _entry_block(_data_quality(_catalog(gizmo_root)), "gizmo", "cog")
    assert GIZMO_NOTES not in block and "<li>Name: Cog</li>" in block
    assert '<li>Notes: <a href="#cog-notes-cog">on the Data quality page</a></li>' in block
