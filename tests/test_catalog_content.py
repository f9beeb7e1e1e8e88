"""Content checks on the real catalog (catalog/): every reference carries the date it was last
checked, and every figure marked `reported` cites a checked reference, not the original site.

The rules are functions over a loaded catalog so each has a failing case on a mutated copy of
the valid fixture as well as the pass on the real catalog.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

from helpers_catalog import copy_valid, replace_in

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.provenancerules import PROVENANCE
from tinkernomics.catalog.walk import walk
from tinkernomics.site.api.version import API_MAJOR
from tinkernomics.site.pages.views import build_index
from tinkernomics.site.pages.views.checks import STALE_AFTER_DAYS, reference_checks

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "catalog"
MIN_ALGORITHMS = 25


def unchecked_references(cat: Catalog) -> Iterator[str]:
    """References with no `checked` date."""
    for ref_id, ref in sorted(cat.references.items()):
        if ref.checked is None:
            yield ref_id


def unsourced_reported(cat: Catalog) -> Iterator[str]:
    """Values marked `reported` whose source is missing, unknown, the original site, or a
    reference that is itself unverified."""
    for entry in cat.iter_entries():
        for loc, obj, _parent, _field in walk(entry.model):
            if not isinstance(obj, PROVENANCE) or getattr(obj, "status", None) != Status.reported:
                continue
            sources = _sources(obj, entry.key)
            for source in sources or [None]:
                ref = cat.references.get(source) if source else None
                if ref is None or ref.status != Status.reported or source == "original_site":
                    yield f"{entry.kind.name} {entry.key} {'.'.join(map(str, loc))}: {source}"


def _sources(obj: object, entry_key: str) -> list[str]:
    if hasattr(obj, "source"):
        return [obj.source] if obj.source else []
    if hasattr(obj, "sources"):
        return list(obj.sources)
    return [entry_key] if type(obj).__name__ == "Reference" else []


# --------------------------------------------------------------------------- the real catalog


def test_every_reference_has_a_checked_date(catalog: Catalog) -> None:
    assert list(unchecked_references(catalog)) == []


def test_no_checked_date_is_in_the_future(catalog: Catalog) -> None:
    newest = max(ref.checked for ref in catalog.references.values() if ref.checked)
    assert newest <= dt.date(2026, 12, 31)
    for ref_id, ref in catalog.references.items():
        if ref.checked and ref.date:
            assert ref.checked >= ref.date, f"{ref_id} checked before it was published"


def test_every_reported_figure_cites_a_checked_source(catalog: Catalog) -> None:
    assert list(unsourced_reported(catalog)) == []


def test_catalog_has_enough_algorithms(catalog: Catalog) -> None:
    assert len(catalog.algorithms) >= MIN_ALGORITHMS


def test_every_algorithm_cites_its_own_paper(catalog: Catalog) -> None:
    """Each algorithm names at least one reference that is not a Tinker or site source."""
    generic = {"tinker_docs", "tinker_cookbook", "tinker_sdk", "original_site"}
    for algo_id, algo in catalog.algorithms.items():
        assert set(algo.references) - generic, f"{algo_id} cites only generic sources"


# --------------------------------------------------------------------------- failing cases


def test_a_reference_without_checked_date_is_found(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    cat, problems = load_catalog(root)
    assert problems == []
    missing = list(unchecked_references(cat))
    dated = [r for r in cat.references if r not in missing]
    assert dated, "the valid fixture should date its references"
    ref_file = f"references/{dated[0]}.yaml"
    text = (root / ref_file).read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("checked:"))
    replace_in(root, ref_file, line + "\n", "")
    cat, problems = load_catalog(root)
    if problems:  # `checked` is required: the validator itself reports it
        assert any(p.field == "checked" for p in problems)
    else:
        assert dated[0] in list(unchecked_references(cat))


def test_a_reported_figure_citing_the_original_site_is_found(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    cat, _ = load_catalog(root)
    assert list(unsourced_reported(cat)) == []
    replace_in(root, "algorithms/grpo.yaml", "  status: reported\n  source: grpo_deepseekmath",
               "  status: reported\n  source: original_site")
    cat, _ = load_catalog(root)
    assert [item for item in unsourced_reported(cat) if item.startswith("algorithm grpo")]


# --------------------------------------------------------------------------- the page section


def test_stale_and_missing_checks_are_flagged(catalog: Catalog) -> None:
    index = build_index(catalog, None)
    view = reference_checks(index)
    assert len(view.rows) == len(catalog.references)
    newest = max(ref.checked for ref in catalog.references.values() if ref.checked)
    assert view.as_of == newest.isoformat()
    for row in view.rows:
        ref = catalog.references[row.ref_id]
        age = (newest - ref.checked).days if ref.checked else None
        assert row.stale == (age is None or age > STALE_AFTER_DAYS)
    stale_first = [row.stale for row in view.rows]
    assert stale_first == sorted(stale_first, reverse=True)


def test_the_checks_table_lists_every_stale_check_and_counts_the_rest(catalog: Catalog) -> None:
    """The table does not grow with the catalog: every stale or missing check, then the current
    ones that go stale first; the others are counted under it (their dates are in the API)."""
    view = reference_checks(build_index(catalog, None))
    real_current = [row for row in view.rows if not row.stale]
    assert view.shown == [r for r in view.rows if r.stale] + real_current[:view.current_shown]
    assert view.not_shown == real_current[view.current_shown:]
    stale = dataclasses.replace(view.rows[-1], stale=True)
    small = dataclasses.replace(view, rows=[stale, *view.rows[:-1]], current_shown=3)
    current = [row for row in small.rows if not row.stale]
    assert small.shown == [row for row in small.rows if row.stale] + current[:3]
    assert small.not_shown == current[3:]
    assert view.api_href == f"../api/{API_MAJOR}/references.json"

