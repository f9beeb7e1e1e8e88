"""`make serve` (mkdocs serve) draws no chart PNGs: they serve link previews and image-only
hosts, not a local preview. The MkDocs hook reads the command (``on_startup``); the charts
feature then writes every other file of a chart, with the sizes a build's PNGs would have, and
starts no image worker. Also: the image cache is not inside Zensical's ``.cache/``.

The hook sets ``$TINKERNOMICS_CHART_IMAGES`` and ``$TINKERNOMICS_SERVE`` in the process that
runs it: here, the test process. Every build a later test starts inherits that environment, so
a value left behind would build sites without PNGs and with the serve page policy (pages that
differ from a clean build). ``hook_environment`` gives each test here its own copy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType

import pytest
from helpers_charts import (
    SHARED_SITE_URL,
    chart_file_names,
    fitted_catalog_fixture,  # noqa: F401  (the fixture: catalog)
    shared_fitted_site,
)
from helpers_site import load_hooks

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import images
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.postbuild.csp import SERVE_ENV

HOOK_ENV = (chartsite.CHART_IMAGES_ENV, SERVE_ENV)
"""What ``on_startup`` may set."""
REPO = Path(__file__).resolve().parents[1]


def hooks() -> ModuleType:
    return load_hooks("tn_hooks_serve")


def isolate_hook_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset what the hook may set, and restore it when ``monkeypatch`` undoes, also a variable
    that was unset (``delenv`` of an unset name records nothing to restore: set it first)."""
    for name in HOOK_ENV:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def hook_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_hook_environment(monkeypatch)


def test_the_hook_leaves_no_variable_behind_in_the_test_process() -> None:
    before = {name: os.environ.get(name) for name in HOOK_ENV}
    with pytest.MonkeyPatch.context() as patch:
        isolate_hook_environment(patch)
        hooks().on_startup(command="serve", dirty=False)
        assert os.environ[chartsite.CHART_IMAGES_ENV] == "0" and os.environ[SERVE_ENV] == "1"
    assert {name: os.environ.get(name) for name in HOOK_ENV} == before


@pytest.mark.parametrize(("command", "expected"), [("serve", "0"), ("build", None),
                                                   ("gh-deploy", None)])
def test_the_hook_turns_chart_images_off_for_serve_only(
        command: str, expected: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(chartsite.CHART_IMAGES_ENV, raising=False)
    hooks().on_startup(command=command, dirty=False)
    assert chartsite.os.environ.get(chartsite.CHART_IMAGES_ENV) == expected


def test_serve_keeps_images_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(chartsite.CHART_IMAGES_ENV, "1")
    hooks().on_startup(command="serve", dirty=False)
    assert chartsite.os.environ[chartsite.CHART_IMAGES_ENV] == "1"


def _served_outputs(catalog: Catalog, root: Path) -> Path:
    ctx = SiteContext(root=root, catalog=catalog, site_url=SHARED_SITE_URL)
    chartsite.start_outputs(ctx)
    assert ctx.extra["image_prefill"].count == 0  # images off: no worker starts
    chartsite.write_outputs(ctx, root / "site")
    return root / "site"


def test_without_images_every_other_chart_file_is_written_with_the_build_sizes(
        catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Served outputs beside the built ones of the same catalog (the run's shared write, whose
    build prefilled every image)."""
    monkeypatch.setenv(chartsite.IMAGE_CACHE_ENV, str(tmp_path / "cache"))
    built = shared_fitted_site()
    monkeypatch.setenv(chartsite.CHART_IMAGES_ENV, "0")
    monkeypatch.setattr(images, "render_png", _no_drawing)
    served = _served_outputs(catalog, tmp_path / "serve")
    assert not list(served.rglob("*.png"))
    assert images._ACTIVE == []
    for cid in charts.chart_ids(catalog):
        names = {p.name for p in (served / "embed" / cid).iterdir()}
        chart = chartsite._charts(SiteContext(root=tmp_path, catalog=catalog))[cid]
        assert names == {n for n in chart_file_names(chart) if not n.endswith(".png")}
        oembed = json.loads((served / "embed" / cid / "oembed.json").read_text())
        assert oembed == json.loads((built / "embed" / cid / "oembed.json").read_text())


def _no_drawing(*_args: object) -> bytes:
    raise AssertionError("a chart image was drawn while serving")


def test_the_image_cache_is_outside_zensicals_cache(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.delenv(chartsite.IMAGE_CACHE_ENV, raising=False)
    folder = chartsite.image_cache_folder(tmp_path)
    assert folder.parent == tmp_path and not folder.is_relative_to(tmp_path / ".cache")
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert f"/{chartsite.IMAGE_CACHE_DIR}/" in ignored
