"""How the API is rendered (issue 47: the work of one build, not its output): the collector is
paused for the render and restored after, even when it fails, and every curve is sampled on the
one published grid."""

from __future__ import annotations

import gc

import pytest
from helpers_api import FIXED_TIME, catalog, documents

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.api import files as api_files
from tinkernomics.site.api.build import ApiData
from tinkernomics.site.api.convert import CURVE_DIGITS, GRID_GB200, curve_grid


def test_the_render_runs_with_the_collector_paused_and_restores_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    build = api_files.build_api

    def watched(cat: Catalog) -> ApiData:
        seen.append(gc.isenabled())
        return build(cat)

    monkeypatch.setattr(api_files, "build_api", watched)
    assert gc.isenabled()
    api_files.render_api(catalog("fixture"), last_changed=FIXED_TIME)
    assert seen == [False]  # old: the collector re-scanned the render's tree, freeing nothing
    assert gc.isenabled()


def test_a_failed_render_gives_the_collector_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_cat: Catalog) -> ApiData:
        assert not gc.isenabled()
        raise RuntimeError("boom")

    monkeypatch.setattr(api_files, "build_api", broken)
    with pytest.raises(RuntimeError, match="boom"):
        api_files.render_api(catalog("fixture"), last_changed=FIXED_TIME)
    assert gc.isenabled()


def test_a_render_inside_a_paused_collector_leaves_it_paused() -> None:
    gc.disable()
    try:
        api_files.render_api(catalog("fixture"), last_changed=FIXED_TIME)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_every_curve_is_sampled_on_the_one_published_grid() -> None:
    assert tuple(float(f"{c:.{CURVE_DIGITS}g}") for c in curve_grid()) == GRID_GB200
    curves = [doc["result"]["scalerl"]["curve"]["points"]
              for path, doc in documents("fixture").items()
              if path.startswith("algorithms/") and doc["result"]["scalerl"] is not None]
    assert curves
    h100 = [p["h100_equivalent_hours"] for p in curves[0]]
    for points in curves:
        assert tuple(p["gb200_hours"] for p in points) == GRID_GB200
        assert [p["h100_equivalent_hours"] for p in points] == h100
