"""PNG images of charts, made at build time without a browser (pipeline step 6, output).

``chart.png`` is the downloadable SVG (``svg.standalone_svg``: title, axes, legend, credit,
licence, URL and date; light theme) rasterised 1200 px wide; ``chart-dark.png``,
``chart-narrow.png`` and ``chart-narrow-dark.png`` are its variants (``share.VARIANTS``).
``card.png`` is a 1200x630 link-preview card with a layout of its own, legible at preview size
(``charts.cardsvg``: title, finding, chart, credit); ``site_card_svg`` is the card of pages
without a chart.

Rasteriser: ThorVG through the ``thorvg-python`` wheel (no system libraries, no browser), fed the
image SVG as ``charts.raster._prepared`` resolves it (a Roboto face per weight, anchors and
baseline). Roboto comes from the ``font-roboto`` wheel and nothing else, so a build draws the
same pixels on every machine. Pillow then stores each image with a palette of its most frequent
colours, compressed by libdeflate (``pngpalette``). Images are cached
by what they show (``ImageCache``, ``ImageJob``): a chart's image by the chart's data, the
variant and the source of the modules that write its SVG (``svg_code_version``), so a rebuild
finds a cached image without making its SVG, and renders only charts that changed; a cold
build renders them in worker threads (``ImageCache.start_prefill``), under MkDocs started
before the pages so they render while MkDocs renders its pages. Each build deletes the images
unused for 30 days (``ImageCache.prune``), so a cache kept between CI runs stays the site's
size. Timings:
``benchmarks/bench_images.py``.

Why so: kaleido and Playwright need a browser, CairoSVG the Cairo system library, Pillow draws
no SVG, resvg was several times slower. ThorVG is MIT; its binding is LGPL-2.1, used unmodified
as an installed dependency, never shipped in the site. Threads, not processes: ThorVG and
Pillow release the GIL and a thread cannot outlive its build (processes needed ``prctl`` and
private APIs to stop). ThorVG is not safe from two threads (lazily shared glyphs: images came
out different, once a crash), so one thread draws at a time (``raster._THORVG``). A failed build
or the next ``mkdocs serve`` build stops the workers left running (``stop_all``); the pool holds
one job per worker, so a shut-down pool finishes only the images being drawn. Under
``make serve`` no PNG is drawn (``TINKERNOMICS_CHART_IMAGES=0``, set by the MkDocs hook).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from tinkernomics.site.charts import pngpalette, raster
from tinkernomics.site.charts.cardsvg import card_svg, site_card_svg  # noqa: F401 (re-exported)
from tinkernomics.site.charts.imagejobs import (  # noqa: F401 (re-exported)
    ImageJob,
    all_jobs,
    card_job,
    chart_key,
    svg_code_version,
    svg_job,
    variant_jobs,
)
from tinkernomics.site.charts.pngpalette import DEFLATE_LEVEL, EDGE_ENTRIES, PALETTE_COLOURS
from tinkernomics.site.identity import CARD_HEIGHT_PX, CARD_WIDTH_PX  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from PIL import Image

def render_png(svg_text: str, width: int) -> bytes:
    """Rasterise an SVG to PNG bytes at ``width`` px with ThorVG and the bundled Roboto
    (``raster.rasterise``), then store it with a palette (``palette_png``)."""
    return palette_png(raster.rasterise(svg_text, width))


PNG_OPTIMIZE = True
"""Write the PNG with libdeflate (``pngpalette.png_file``): the same pixels in about a fifth
fewer bytes than Pillow's zlib level 9, paid once (images are cached)."""


def palette_png(image: Image.Image) -> bytes:
    """An RGB image as a palette PNG (``pngpalette.palette_png``)."""
    return pngpalette.palette_png(image, optimize=PNG_OPTIMIZE)


@cache
def renderer_version() -> str:
    """Part of the cache key: a new ThorVG, font, Pillow or deflate package, another SVG rewrite
    (``raster.REWRITE_VERSION``), or other palette or PNG settings re-render every image."""
    versions = [metadata.version(dist)
                for dist in ("thorvg-python", "font-roboto", "pillow", "deflate")]
    return "|".join([*versions, f"rewrite{raster.REWRITE_VERSION}",
                     f"frequent{PALETTE_COLOURS}+{EDGE_ENTRIES}",
                     f"optimize{int(PNG_OPTIMIZE)}", f"deflate{DEFLATE_LEVEL}"])


PRUNE_AFTER_DAYS = 30.0
"""Cached images unused this long are deleted after a build (``ImageCache.prune``)."""
TOUCH_AFTER_S = 86400.0
"""A cached image a build uses is marked in use (its mtime set, which ``prune`` reads) when its
mark is older than this: a month's margin stays, and a rebuild of a fresh cache writes nothing."""
STALE_TEMPORARY_S = 3600.0
"""A temporary file this old was left by a build that was killed; ``prune`` deletes it."""
THREAD_NAME = "tn-image"
"""Prefix of the image worker threads' names."""

log = logging.getLogger(__name__)
_STATE = threading.Lock()
"""Guards the two tables below (worker threads and the build's thread both use them)."""
_UNWRITABLE: dict[Path, str] = {}
"""Cache folders that could not be written, with why (warned about once per process)."""
_UNSTORED: dict[Path, bytes] = {}
"""Images the workers rendered that such a folder could not store, until they are placed."""


@dataclass(frozen=True)
class ImageCache:
    """PNG files keyed by a hash of (job key, width, renderer version); ``folder`` None
    renders every time. A folder that cannot be written (read-only, full, a file in the way)
    gives one warning, and the images are rendered without caching. ``draw`` False (``mkdocs
    serve``) places no image: ``place`` only says the size it would have."""

    folder: Path | None = None
    draw: bool = True

    def _path(self, job: ImageJob) -> Path | None:
        if self.folder is None:
            return None
        text = f"{renderer_version()}|{job.width}|{job.key}"
        return self.folder / f"{hashlib.sha256(text.encode()).hexdigest()}.png"

    def _ready(self, path: Path, job: ImageJob) -> bytes | None:
        """None once the image is in the cache at ``path`` (marked in use, so ``prune`` keeps
        it); its bytes if the cache could not store it."""
        try:
            age = time.time() - path.stat().st_mtime
        except OSError:
            data = _take_unstored(path) or render_png(job.svg(), job.width)
            return None if _store(path, data) else data
        if age > TOUCH_AFTER_S:
            _write_or_warn(path.parent, os.utime, path)
        return None

    def png(self, job: ImageJob) -> bytes:
        path = self._path(job)
        if path is None:
            return render_png(job.svg(), job.width)
        data = self._ready(path, job)
        return path.read_bytes() if data is None else data

    def place(self, job: ImageJob, dest: Path, measure: bool = True) -> tuple[int, int]:
        """Put the image at ``dest`` and return its (width, height): a hard link to the cached
        file where the file systems allow one, else a copy, so a rebuild writes no image bytes;
        nothing writes into a built PNG, so the shared file stays the cache's. ``measure``
        False returns (0, 0) for a linked image without opening it (one file read fewer for
        each image whose size nobody asks; issue 47)."""
        if not self.draw:
            return raster.size(job.svg(), job.width)
        path = self._path(job)
        data = render_png(job.svg(), job.width) if path is None else self._ready(path, job)
        dest.unlink(missing_ok=True)  # never write through an earlier build's link
        if data is not None or path is None:  # no cache, or the cache could not store it
            data = data if data is not None else render_png(job.svg(), job.width)
            dest.write_bytes(data)
            return png_size(data)
        try:
            os.link(path, dest)
        except OSError:  # another file system, or links not allowed: copy
            shutil.copyfile(path, dest)
        if not measure:
            return (0, 0)
        with path.open("rb") as head:
            return png_size(head.read(PNG_HEADER_BYTES))

    def todo(self, jobs: list[ImageJob]) -> dict[ImageJob, Path]:
        """The jobs not in the cache yet, each with the path it goes to (no SVG is made)."""
        paths = {job: self._path(job) for job in dict.fromkeys(jobs)}
        return {job: path for job, path in paths.items()
                if path is not None and not path.is_file() and path not in _UNSTORED}

    def start_prefill(self, jobs: list[ImageJob]) -> Prefill:
        """Start rendering the jobs not cached yet in worker threads (one per core) and return
        at once: the build goes on rendering pages while they work (Pillow's palette and
        compression, most of an image's time, release the GIL; ThorVG draws one image at a
        time), and ``Prefill.wait`` before the images are placed. Each worker stores its
        images in the cache itself."""
        todo = self.todo(jobs) if self.draw else {}
        if len(todo) < PARALLEL_MIN_IMAGES:
            return Prefill([], 0)
        work = list(todo.items())
        prefill = Prefill(work, min(len(work), os.cpu_count() or 1))
        _ACTIVE.append(prefill)
        return prefill

    def prefill(self, jobs: list[ImageJob]) -> int:
        """Render the jobs not cached yet in worker threads and wait for them: images are
        most of a first build's time on a large catalog. Returns how many it rendered."""
        return self.start_prefill(jobs).wait()

    def prune(self, max_age_days: float = PRUNE_AFTER_DAYS) -> int:
        """Delete cached images no build has used for ``max_age_days`` (each use marks its
        file), so a cache kept between CI runs holds what the site shows and not every chart
        it ever showed, and temporaries a killed build left. Returns how many it deleted."""
        folder = self.folder
        if folder is None or not self.draw or folder in _UNWRITABLE or not folder.is_dir():
            return 0
        now = time.time()
        old = [p for p in folder.glob("*.png") if p.stat().st_mtime < now - max_age_days * 86400]
        stale = [p for p in folder.glob("*.tmp") if p.stat().st_mtime < now - STALE_TEMPORARY_S]
        for path in (*old, *stale):
            if not _write_or_warn(folder, path.unlink, missing_ok=True):
                return 0
        return len(old)


PARALLEL_MIN_IMAGES = 2
"""A single missing image is rendered where it is placed, in the build's own thread."""


class Prefill:
    """Images being rendered by worker threads (``ImageCache.start_prefill``): a
    ``concurrent.futures.ThreadPoolExecutor`` given one job per worker at a time. A killed
    build takes its threads with it; a pool shut down (``cancel``, or the interpreter exiting
    after a build that raised, when ``submit`` refuses work) finishes only the images being
    drawn, not a queue of them."""

    def __init__(self, work: list[tuple[ImageJob, Path]], workers: int) -> None:
        self.count = len(work)
        self._jobs = deque(work)
        self._left = len(work)
        self._error: BaseException | None = None
        self._changed = threading.Condition()
        self.pool = (ThreadPoolExecutor(max_workers=workers, thread_name_prefix=THREAD_NAME)
                     if work else None)
        for _ in range(workers):
            self._feed()

    def _feed(self) -> None:
        """Hand the pool the next job, if it still takes work."""
        with self._changed:
            if self.pool is None or not self._jobs:
                return
            job, pool = self._jobs.popleft(), self.pool
        try:
            pool.submit(self._run, *job)
        except RuntimeError:  # shut down: cancelled, or the interpreter is exiting
            self._close(cancel=True)

    def _run(self, job: ImageJob, path: Path) -> None:
        try:
            _render_and_store(job, path)
        except BaseException as err:  # raised by ``wait`` in the build's thread
            with self._changed:
                self._error = self._error or err
                self._changed.notify_all()
            return
        with self._changed:
            self._left -= 1
            self._changed.notify_all()
        self._feed()

    def wait(self) -> int:
        """Block until every image is in the cache; a worker's error is raised here (the rest
        are dropped). Returns how many were rendered (0 if cancelled)."""
        with self._changed:
            self._changed.wait_for(
                lambda: self.pool is None or self._left == 0 or self._error is not None)
            if self.pool is None:
                return 0
            error = self._error
        self._close(cancel=error is not None)
        if error is not None:
            raise error
        return self.count

    def cancel(self) -> None:
        """Drop the images not started and let the workers end after the ones being drawn (a
        build that failed before placing its images: they must not render beside the next)."""
        self._close(cancel=True)

    def _close(self, cancel: bool) -> None:
        with self._changed:
            pool, self.pool = self.pool, None
            self._jobs.clear()
            self._changed.notify_all()
        if pool is not None:
            pool.shutdown(wait=not cancel, cancel_futures=cancel)
        with contextlib.suppress(ValueError):
            _ACTIVE.remove(self)


_ACTIVE: list[Prefill] = []
"""Prefills started and neither waited for nor cancelled (``stop_all`` stops them)."""


def stop_all() -> None:
    """Stop every prefill still running: a build that failed left them (``mkdocs serve``
    starts the next build)."""
    while _ACTIVE:
        _ACTIVE[-1].cancel()


def _render_and_store(job: ImageJob, path: Path) -> None:
    """In a worker: render one job and store it where ``ImageCache._path`` put it (whole or
    not at all, so the build never reads half an image), or keep it for ``place`` if the cache
    cannot be written."""
    data = render_png(job.svg(), job.width)
    if not _store(path, data):
        with _STATE:
            _UNSTORED[path] = data


def _take_unstored(path: Path) -> bytes | None:
    with _STATE:
        return _UNSTORED.pop(path, None)


def _store(path: Path, data: bytes) -> bool:
    """Write a cache file whole or not at all (a temporary file per thread, then renamed);
    False, leaving nothing behind, if the cache folder cannot be written."""
    if path.parent in _UNWRITABLE:
        return False
    tmp = path.with_suffix(f".{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        _unwritable(path.parent, err)
        return False
    return True


def _write_or_warn(folder: Path, write: Callable[..., object], *args: object,
                   **kwargs: object) -> bool:
    """Run one write into the cache folder; False (and the warning) if it cannot be written."""
    try:
        write(*args, **kwargs)
    except OSError as err:
        _unwritable(folder, err)
        return False
    return True


def _unwritable(folder: Path, err: OSError) -> None:
    """Note that ``folder`` cannot be written; the first time, say so in one line."""
    with _STATE:
        if folder in _UNWRITABLE:
            return
        _UNWRITABLE[folder] = reason = err.strerror or str(err)
    log.warning("warning: the chart image cache %s cannot be written (%s); chart images are "
                "rendered without caching", folder, reason)


PNG_HEADER_BYTES = 24
"""The signature and the IHDR chunk up to the height: all ``png_size`` reads."""


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk; ValueError if it is not a PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
