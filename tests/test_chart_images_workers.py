"""Chart images drawn by worker threads while MkDocs renders pages (``images.ImageCache``'s
prefill): in parallel, once per image, stopped with their build, never outliving it; a
worker's error is raised where the build waits. Split from tests/test_chart_images.py."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_charts import (  # noqa: F401  (the fixtures: catalog, grpo)
    fitted_catalog_fixture,
    fitted_grpo_fixture,
)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import imagejobs, images, share
from tinkernomics.site.charts import spec as charts


def test_prefill_renders_missing_images_in_parallel_once(catalog: Catalog,
                                                         tmp_path: Path) -> None:
    cache = images.ImageCache(tmp_path)
    built = [charts.build_chart(catalog, cid) for cid in charts.chart_ids(catalog)]
    todo = [job for chart in built for job in imagejobs.jobs(chart, "https://example.org/tn/")]
    todo += [images.svg_job(images.site_card_svg(built[0], "tagline"), images.CARD_WIDTH_PX)] * 4
    assert len(todo) >= images.PARALLEL_MIN_IMAGES
    assert cache.prefill(todo) == len(todo) - 3  # the repeated card once
    assert cache.prefill(todo) == 0  # all cached now
    job = todo[0]
    assert cache.png(job) == images.render_png(job.svg(), job.width)  # same bytes as in-process


def _jobs(catalog: Catalog) -> list[images.ImageJob]:
    """One chart's images and eight cards: more jobs than workers, each kind of image (what
    the tests check holds for any number; every chart's images doubled the file's drawing)."""
    chart = charts.build_chart(catalog, charts.chart_ids(catalog)[0])
    jobs = list(imagejobs.jobs(chart, "https://example.org/tn/"))
    jobs += [images.svg_job(images.site_card_svg(chart, f"tagline {i}"), images.CARD_WIDTH_PX)
             for i in range(8)]
    return jobs


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Workers render only once the gate is open (opened at the end of the test at the latest,
    and then the workers are waited for, so none outlives its test)."""
    opened = threading.Event()
    real = images.render_png

    def render(svg_text: str, width: int) -> bytes:
        opened.wait(30)
        if "tagline 3" in svg_text and getattr(opened, "fail", False):
            raise ValueError("this SVG cannot be drawn")
        return real(svg_text, width)

    monkeypatch.setattr(images, "render_png", render)
    yield opened
    opened.set()
    for thread in threading.enumerate():
        if thread.name.startswith(images.THREAD_NAME):
            thread.join(30)


def test_start_prefill_returns_while_the_workers_render_and_wait_blocks_until_cached(
        catalog: Catalog, tmp_path: Path, gate: threading.Event) -> None:
    """The build goes on rendering pages while the images render: starting returns before any
    image is made, and ``wait`` returns once every one is in the cache."""
    cache = images.ImageCache(tmp_path / "cache")
    jobs = _jobs(catalog)
    prefill = cache.start_prefill(jobs)
    assert prefill.count == len(jobs)
    assert len(cache.todo(jobs)) == len(jobs)  # started, nothing rendered yet
    gate.set()
    assert prefill.wait() == len(jobs)
    assert cache.todo(jobs) == {}
    assert cache.start_prefill(jobs).count == 0  # all cached: no workers
    assert not list((tmp_path / "cache").glob("*.tmp"))


def test_a_workers_error_is_raised_by_wait(catalog: Catalog, tmp_path: Path,
                                          gate: threading.Event) -> None:
    gate.fail = True  # type: ignore[attr-defined]
    gate.set()
    prefill = images.ImageCache(tmp_path / "cache").start_prefill(_jobs(catalog))
    with pytest.raises(ValueError, match="cannot be drawn"):
        prefill.wait()


def test_the_workers_are_threads_of_the_build_and_render_the_same_bytes(
        catalog: Catalog, tmp_path: Path) -> None:
    """No worker process (nothing that could outlive a killed build); images drawn side by side
    in threads (ThorVG and Pillow shared by them) are the bytes drawn one at a time."""
    jobs = _jobs(catalog)
    cache = images.ImageCache(tmp_path / "cache")
    before = set(multiprocessing.active_children())
    prefill = cache.start_prefill(jobs)
    workers = {t.name for t in threading.enumerate() if t.name.startswith(images.THREAD_NAME)}
    assert set(multiprocessing.active_children()) == before
    assert prefill.wait() == len(jobs)
    assert workers and len(workers) <= (os.cpu_count() or 1)
    for job in jobs:
        assert cache.png(job) == images.render_png(job.svg(), job.width)


def test_cancel_stops_the_workers_and_prune_clears_what_they_left(
        catalog: Catalog, tmp_path: Path, gate: threading.Event) -> None:
    cache = images.ImageCache(tmp_path / "cache")
    jobs = _jobs(catalog)
    prefill = cache.start_prefill(jobs)
    prefill.cancel()
    # cancel returned while the workers are still stuck drawing: it did not await them
    assert any(t.is_alive() for t in threading.enumerate()
               if t.name.startswith(images.THREAD_NAME))
    assert prefill.wait() == 0 and len(cache.todo(jobs)) == len(jobs)
    gate.set()
    for thread in threading.enumerate():
        if thread.name.startswith(images.THREAD_NAME):
            thread.join(30)
    workers = min(len(jobs), os.cpu_count() or 1)
    assert len(jobs) - len(cache.todo(jobs)) <= workers  # only the images being drawn
    folder = tmp_path / "cache"
    folder.mkdir(exist_ok=True)
    stale, fresh = folder / "a.123.tmp", folder / "b.456.tmp"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"being written")
    hours_ago = time.time() - 2 * images.STALE_TEMPORARY_S
    os.utime(stale, (hours_ago, hours_ago))
    cache.prune()
    assert not stale.exists() and fresh.exists()


@pytest.mark.sweep  # a failure path of the build's tooling: .ci/run's group
def test_a_new_build_stops_the_workers_of_one_that_failed(
        catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        gate: threading.Event) -> None:
    """``mkdocs serve``: a build that failed after starting its images leaves workers behind;
    the next build's start stops them, and its outputs wait for its own."""
    from tinkernomics.site.build import SiteContext

    monkeypatch.setenv(chartsite.IMAGE_CACHE_ENV, str(tmp_path / "cache"))
    ctx = SiteContext(root=tmp_path, catalog=catalog, site_url="https://example.org/tn/")
    chartsite.start_outputs(ctx)  # the failed build: its workers wait at the gate
    failed = ctx.extra["image_prefill"]
    again = SiteContext(root=tmp_path, catalog=catalog, site_url="https://example.org/tn/")
    chartsite.start_outputs(again)
    assert failed.pool is None  # stopped
    gate.set()
    chartsite.write_outputs(again, tmp_path / "site")
    assert images._ACTIVE == []
    for cid in charts.chart_ids(catalog):
        png = (tmp_path / "site" / "embed" / cid / "chart.png").read_bytes()
        assert images.png_size(png)[0] == share.WIDE_PX


EXIT_SCRIPT = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from helpers_charts import fitted_catalog
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import images
from tinkernomics.site.charts import spec as charts

root = Path(sys.argv[1])
started = root / "started"

def stuck(svg_text, width):  # each image takes 1 s
    with started.open("a") as out:
        out.write("image\\n")
    time.sleep(1)
    return b""

images.render_png = stuck
catalog = fitted_catalog(root / "catalog")
chart = charts.build_chart(catalog, charts.chart_ids(catalog)[0])
jobs = [images.svg_job(images.site_card_svg(chart, f"tagline {i}"), 1200) for i in range(120)]
images.ImageCache(root / "cache").start_prefill(jobs)
time.sleep(0.5)
raise SystemExit(3)  # a build that failed before waiting for its images
"""


@pytest.mark.sweep  # a failure path of the build's tooling: .ci/run's group
def test_a_build_that_raises_exits_after_the_images_being_drawn(tmp_path: Path) -> None:
    """Not after its whole queue (120 images of 1 s): only the one each worker is drawing."""
    import subprocess

    tests = Path(__file__).parent
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT, str(tmp_path), str(tests)],
                          capture_output=True, text=True, timeout=200)
    assert done.returncode == 3, done.stderr
    drawn = (tmp_path / "started").read_text().count("image")
    assert 1 <= drawn <= (os.cpu_count() or 1) < 120  # not the queue, only what was drawing


KILLED_SCRIPT = EXIT_SCRIPT.replace(
    'time.sleep(0.5)\nraise SystemExit(3)  # a build that failed before waiting for its images',
    'while not started.exists():\n    time.sleep(0.05)\nprint("drawing", flush=True)\n'
    'time.sleep(600)')


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_killed_build_leaves_no_worker_behind(tmp_path: Path) -> None:
    """A build killed outright runs no exit hook: its workers, threads of the build process
    (no child process), end with it."""
    import signal
    import subprocess

    assert "time.sleep(600)" in KILLED_SCRIPT
    build = subprocess.Popen([sys.executable, "-c", KILLED_SCRIPT, str(tmp_path),
                              str(Path(__file__).parent)], stdout=subprocess.PIPE, text=True)
    try:
        assert build.stdout is not None and build.stdout.readline().strip() == "drawing"
        threads = len(list(Path(f"/proc/{build.pid}/task").iterdir()))
        assert threads > 1, "the workers are not threads of the build"
        assert _children(build.pid) == [], "the build started worker processes"
        build.send_signal(signal.SIGKILL)
        build.wait(timeout=30)
        assert not Path(f"/proc/{build.pid}").exists()
    finally:
        build.kill()


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found
