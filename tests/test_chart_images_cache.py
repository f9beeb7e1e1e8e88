"""The chart image cache when it cannot be written (issue 26): a read-only folder, a full disk,
a file where the folder should be. The build goes on with one warning line, renders the images
without caching, leaves no temporary file and writes nothing when nothing needs writing.

Tests run as root, where a read-only mode does not stop writes: the folder is put under a file,
or the os functions raise ``OSError`` (EROFS, ENOSPC) as such a file system would."""

from __future__ import annotations

import dataclasses
import errno
import logging
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers_charts import (  # noqa: F401  (the fixtures: catalog, grpo)
    fitted_catalog_fixture,
    fitted_grpo_fixture,
)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import imagejobs, images
from tinkernomics.site.charts import spec as charts

LOGGER = images.__name__


def _warnings(caplog: pytest.LogCaptureFixture, folder: Path) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == LOGGER and r.levelno == logging.WARNING and str(folder) in r.getMessage()]


def _all_jobs(catalog: Catalog) -> list[images.ImageJob]:
    built = [charts.build_chart(catalog, cid) for cid in charts.chart_ids(catalog)]
    return [job for chart in built for job in imagejobs.jobs(chart, "https://example.org/tn/")]


def _place_all(cache: images.ImageCache, jobs: list[images.ImageJob], site: Path) -> None:
    """What the outputs step does: prefill, then place every image; checks the placed bytes."""
    cache.prefill(jobs)
    site.mkdir(parents=True, exist_ok=True)
    for i, job in enumerate(jobs):
        dest = site / f"{i}.png"
        assert cache.place(job, dest)[0] == job.width
        assert dest.read_bytes() == images.render_png(job.svg(), job.width)
    assert cache.prune() == 0


def _raise(code: int) -> Callable[..., None]:
    def fail(*_args: object, **_kwargs: object) -> None:
        raise OSError(code, os.strerror(code))
    return fail


@pytest.mark.sweep  # a failure path of the build's tooling: .ci/run's group
def test_a_cache_folder_that_cannot_be_made_warns_once_and_the_images_are_placed(
        catalog: Catalog, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache's parent should be")
    folder = blocker / "images"
    caplog.set_level(logging.WARNING, logger=LOGGER)
    _place_all(images.ImageCache(folder), _all_jobs(catalog), tmp_path / "site")
    [line] = _warnings(caplog, folder)
    assert "cannot be written" in line and "without caching" in line and "\n" not in line


@pytest.mark.sweep  # a failure path of the build's tooling: .ci/run's group
def test_a_full_disk_leaves_no_temporary_file(catalog: Catalog, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "cache"
    real = Path.write_bytes

    def half_then_full(self: Path, data: bytes) -> int:
        if self.suffix != ".tmp":
            return real(self, data)
        real(self, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_bytes", half_then_full)
    caplog.set_level(logging.WARNING, logger=LOGGER)
    _place_all(images.ImageCache(folder), _all_jobs(catalog), tmp_path / "site")
    assert list(folder.iterdir()) == []
    [line] = _warnings(caplog, folder)
    assert os.strerror(errno.ENOSPC) in line


def test_a_read_only_warm_cache_is_read_without_a_write(
        catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A rebuild from a fresh cache writes nothing to it (no ``os.utime``); a read-only one is
    then used as it is, without a warning."""
    folder = tmp_path / "cache"
    jobs = _all_jobs(catalog)
    images.ImageCache(folder).prefill(jobs)
    for name in ("utime", "replace", "unlink", "link"):
        monkeypatch.setattr(images.os, name, _raise(errno.EROFS))
    monkeypatch.setattr(Path, "write_bytes", _raise(errno.EROFS))
    monkeypatch.setattr(Path, "mkdir", _raise(errno.EROFS))
    caplog.set_level(logging.WARNING, logger=LOGGER)
    cache = images.ImageCache(folder)
    assert cache.prefill(jobs) == 0
    for job in jobs:
        assert images.png_size(cache.png(job))[0] == job.width
    assert cache.prune() == 0
    assert _warnings(caplog, folder) == []


def test_a_read_only_cache_with_old_images_warns_once_and_still_serves_them(
        catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "cache"
    jobs = _all_jobs(catalog)
    images.ImageCache(folder).prefill(jobs)
    month_ago = time.time() - (images.PRUNE_AFTER_DAYS + 1) * 86400
    for path in folder.glob("*.png"):
        os.utime(path, (month_ago, month_ago))
    monkeypatch.setattr(images.os, "utime", _raise(errno.EROFS))
    monkeypatch.setattr(Path, "unlink", _raise(errno.EROFS))
    caplog.set_level(logging.WARNING, logger=LOGGER)
    cache = images.ImageCache(folder)
    for job in jobs:
        assert images.png_size(cache.png(job))[0] == job.width
    assert cache.prune() == 0  # nothing deleted, no traceback
    assert len(list(folder.glob("*.png"))) == len(jobs)
    [line] = _warnings(caplog, folder)
    assert os.strerror(errno.EROFS) in line


def test_a_fresh_image_is_not_touched_and_an_old_one_is(grpo: charts.Chart,
                                                        tmp_path: Path) -> None:
    cache = images.ImageCache(tmp_path)
    job = imagejobs.jobs(grpo, "")[1]
    cache.png(job)
    [path] = tmp_path.glob("*.png")
    recent = time.time() - images.TOUCH_AFTER_S / 2
    os.utime(path, (recent, recent))
    cache.png(job)
    assert path.stat().st_mtime == pytest.approx(recent)
    old = time.time() - 2 * images.TOUCH_AFTER_S
    os.utime(path, (old, old))
    cache.png(job)
    assert path.stat().st_mtime > time.time() - 60


def test_a_cached_chart_image_is_found_and_placed_without_making_its_svg(
        grpo: charts.Chart, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 47: a rebuild looked every image up by its SVG text, so it made every variant's
    SVG of every chart to find them cached. Keyed by the chart, a hit makes none."""
    cache = images.ImageCache(tmp_path / "cache")
    cache.prefill(images.all_jobs(grpo, ""))

    def no_svg(*args: object, **kwargs: object) -> str:
        raise AssertionError("an SVG was made for a cached image")

    monkeypatch.setattr(imagejobs, "standalone_svg", no_svg)
    monkeypatch.setattr(imagejobs, "card_svg", no_svg)
    jobs = images.all_jobs(grpo, "")
    assert cache.todo(jobs) == {}
    for i, job in enumerate(jobs):
        assert cache.place(job, tmp_path / f"{i}.png")[0] == job.width


def test_a_chart_image_key_follows_the_chart_the_site_and_the_svg_code(
        grpo: charts.Chart, monkeypatch: pytest.MonkeyPatch) -> None:
    key = images.chart_key(grpo, "")
    assert "object at 0x" not in repr(grpo)  # no address: the same key in every process
    assert images.chart_key(dataclasses.replace(grpo, title="Other"), "") != key
    assert images.chart_key(grpo, "https://example.org/") != key
    images.svg_code_version.cache_clear()
    monkeypatch.setattr(imagejobs, "SVG_MODULES", imagejobs.SVG_MODULES[:-1])
    try:
        assert images.chart_key(grpo, "") != key
    finally:
        images.svg_code_version.cache_clear()


def test_a_chart_image_key_is_the_same_in_another_process(grpo: charts.Chart) -> None:
    """String hashing differs between processes: the key must not depend on it."""
    script = ("import sys, pickle; from tinkernomics.site.charts import images; "
              "print(images.chart_key(pickle.loads(sys.stdin.buffer.read()), ''))")
    done = subprocess.run([sys.executable, "-c", script], input=pickle.dumps(grpo),
                          capture_output=True, check=True, env={**os.environ,
                                                                "PYTHONHASHSEED": "12345"})
    assert done.stdout.decode().strip() == images.chart_key(grpo, "")
