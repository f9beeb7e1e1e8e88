"""The field list of an entry without a page of its own (site/pages/views/generic.py, on the Data
quality page) shows what the entry states: no line for a setting it leaves at its default or an
empty list (a published run's dozen unset yes/no switches), every line for one it sets, even to
the default's value. On the fixture catalog's published run."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.pages.views import build_index
from tinkernomics.site.pages.views.generic import generic_views

REPO_ROOT = Path(__file__).resolve().parent.parent


def _labels(root: Path) -> list[str]:
    ctx = SiteContext(root=REPO_ROOT, catalog=load_valid_catalog(root))
    entries = [e for kind in generic_views(build_index(ctx.catalog, ctx.factor))
               for e in kind.entries if e.id == "fx-run"]
    assert len(entries) == 1
    return [f.label for f in entries[0].fields]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_valid(tmp_path)


def test_a_run_lists_what_it_states_not_its_defaults(root: Path) -> None:
    labels = _labels(root)
    assert {"Framework", "Mode", "Colocated"} <= set(labels)  # stated in the file
    assert "Expert loop" not in labels and "CPU offload" not in labels  # left at the default
    assert "Readings" not in labels


def test_a_default_the_entry_states_is_listed(root: Path) -> None:
    replace_in(root, "runs/fx-run.yaml", "colocated: true\n",
               "colocated: true\nexpert_loop: false\n")
    assert "Expert loop" in _labels(root)
