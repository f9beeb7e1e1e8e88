"""The cyclic garbage collector and a build (issue 47): the catalog a build loads is set aside
from the collector's scans until the next load (``site.build._loaded``), and a process that
built a site exits without a last collection over everything it held
(``site.build.skip_exit_collection``); a one-shot build scans only the youngest generation
(``site.build.OneShotCollector``)."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinkernomics.site import build as sitebuild
from tinkernomics.site.build import OLD_GENERATIONS_AFTER, OneShotCollector

SCRIPT = """
import atexit, gc, sys
from pathlib import Path
from tinkernomics.site import build as sitebuild

def load(root, site_url="", theme=sitebuild.NO_THEME):
    return sitebuild.SiteContext(root=root, catalog=None, site_url=site_url, theme=theme)

sitebuild.SiteContext.load = staticmethod(load)
sitebuild.all_macros = lambda ctx: {}
gc.unfreeze = lambda: None  # leave the exit hook alone to freeze
# registered first, so it runs last: after the build's own exit hook
atexit.register(lambda: print("frozen", gc.get_freeze_count() > 0, flush=True))
sitebuild.shared_site(Path(sys.argv[1]))
sitebuild.shared_site(Path(sys.argv[1]))
"""


def test_a_build_process_skips_the_last_collection(tmp_path: Path) -> None:
    (tmp_path / "catalog").mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.split() == ["frozen", "True"]


@pytest.fixture
def stub_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """SiteContext.load stubbed (an empty context); the collector as it was after."""
    def load(root: Path, site_url: str = "",
             theme: sitebuild.ThemeProfile = sitebuild.NO_THEME) -> sitebuild.SiteContext:
        return sitebuild.SiteContext(root=root, catalog=None,  # type: ignore[arg-type]
                                     site_url=site_url, theme=theme)

    monkeypatch.setattr(sitebuild.SiteContext, "load", staticmethod(load))
    monkeypatch.setattr(sitebuild, "all_macros", lambda ctx: {})
    monkeypatch.setattr(sitebuild, "_SHARED", {})
    monkeypatch.delenv(sitebuild.CATALOG_ENV, raising=False)
    (tmp_path / "catalog").mkdir()
    gc.unfreeze()
    try:
        yield tmp_path / "catalog"
    finally:
        gc.unfreeze()


def test_the_loaded_catalog_is_not_scanned_again(stub_loads: Path, tmp_path: Path) -> None:
    ctx, _ = sitebuild.shared_site(tmp_path)
    assert gc.get_freeze_count() > 0
    assert all(ref is not ctx for ref in gc.get_objects())  # out of every generation


def test_a_reload_lets_the_last_catalog_go(stub_loads: Path, tmp_path: Path) -> None:
    """Under ``mkdocs serve`` a catalog edit loads it again: the old context, cycles and all,
    is collected, not kept frozen."""
    first, _ = sitebuild.shared_site(tmp_path)
    first.extra["self"] = first  # a cycle: only the collector frees it
    gone = weakref.ref(first)
    del first
    (stub_loads / "a.yaml").write_text("id: a\n", encoding="utf-8")
    second, _ = sitebuild.shared_site(tmp_path)
    gc.collect()
    assert gone() is None and second is not None


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[tuple[int, int, int]]:
    """The process's thresholds, put back after each test whatever it did."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


@pytest.mark.parametrize("command", ["build", "gh-deploy"])
def test_a_one_shot_build_scans_only_the_youngest_generation(command: str) -> None:
    collector = OneShotCollector()
    collector.begin(command)
    collector.build_starts()
    assert gc.get_threshold() == (700, OLD_GENERATIONS_AFTER, OLD_GENERATIONS_AFTER)


def test_serve_keeps_the_usual_thresholds() -> None:
    collector = OneShotCollector()
    collector.begin("serve")
    for _ in range(3):
        collector.build_starts()
        assert gc.get_threshold() == (700, 10, 10)


def test_a_second_build_in_the_same_process_collects_as_usual() -> None:
    """``mkdocs serve --clean`` reports ``build`` and then builds again on every edit."""
    collector = OneShotCollector()
    collector.begin("build")
    collector.build_starts()
    collector.build_starts()
    assert gc.get_threshold() == (700, 10, 10)
    collector.begin("build")  # a later startup of the same process changes nothing
    collector.build_starts()
    assert gc.get_threshold() == (700, 10, 10)


def test_a_custom_first_threshold_is_kept() -> None:
    gc.set_threshold(5000, 3, 4)
    collector = OneShotCollector()
    collector.begin("build")
    assert gc.get_threshold() == (5000, OLD_GENERATIONS_AFTER, OLD_GENERATIONS_AFTER)
    collector.build_starts()
    collector.build_starts()
    assert gc.get_threshold() == (5000, 3, 4)
