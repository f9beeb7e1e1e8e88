"""`make serve` (mkdocs serve) draws no chart PNGs: they serve link previews and image-only
hosts, not a local preview. The MkDocs hook reads the command (``on_startup``); the charts
feature then writes every other file of a chart, with the sizes a build's PNGs would have, and
starts no image worker. Also: the image cache is not inside Zensical's ``.cache/``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from helpers_charts import fitted_catalog_fixture  # noqa: F401  (the fixture: catalog)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import images
from tinkernomics.site.charts import spec as charts

REPO = Path(__file__).resolve().parents[1]


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tn_hooks_serve",
                                                  REPO / "macros" / "mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def _outputs(catalog: Catalog, root: Path) -> Path:
    ctx = SiteContext(root=root, catalog=catalog, site_url="https://example.org/tn/")
    chartsite.start_outputs(ctx)
    assert ctx.extra["image_prefill"].count in (0, len(chartsite._image_jobs(ctx)))
    chartsite.write_outputs(ctx, root / "site")
    return root / "site"


def test_without_images_every_other_chart_file_is_written_with_the_build_sizes(
        catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(chartsite.IMAGE_CACHE_ENV, str(tmp_path / "cache"))
    built = _outputs(catalog, tmp_path / "build")
    monkeypatch.setenv(chartsite.CHART_IMAGES_ENV, "0")
    monkeypatch.setattr(images, "render_png", _no_drawing)
    served = _outputs(catalog, tmp_path / "serve")
    assert not list(served.rglob("*.png"))
    assert images._ACTIVE == []
    for cid in charts.chart_ids(catalog):
        names = {p.name for p in (served / "embed" / cid).iterdir()}
        assert names == {n for n in chartsite.DATA_FILES if not n.endswith(".png")} | {
            "index.html"}
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
