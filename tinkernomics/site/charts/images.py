"""PNG images of charts, made at build time without a browser (pipeline step 6, output).

``chart.png`` is the downloadable SVG (``svg.standalone_svg``: title, axes, legend, credit,
licence, URL and date; light theme) rasterised 1200 px wide. ``card.png`` is a 1200x630
link-preview card (title, chart, credit); ``site_card_svg`` is the card of pages without a chart.

Rasteriser: ThorVG through the ``thorvg-python`` wheel (a ctypes binding that ships libthorvg;
no system libraries, no browser), fed the image SVG as ``charts.raster.rewrite`` turns it into
what ThorVG's SVG loader draws right (our CSS as attributes, a Roboto face per weight, anchors
and baseline resolved). Fonts are deterministic: Roboto is loaded from the ``font-roboto`` wheel
and nothing else, so a build draws the same pixels on every machine. Pillow (a wheel, no system
libraries) then stores each image with a 64-colour palette compressed with its ``optimize``
option. An image costs about 0.045-0.08 s (GRPO's chart.png 0.077 s, was 0.176 s with resvg-py),
most of it Pillow's compression, so images are cached by content (``ImageCache``): a rebuild
renders only charts that changed, and a cold build renders them in worker processes
(``ImageCache.start_prefill``), under MkDocs started before the pages so they render while
MkDocs renders its pages. Each build touches the images it uses and deletes those unused for 30
days (``ImageCache.prune``), so a cache kept between CI runs stays the site's size.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import os
import shutil
import signal
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache, lru_cache
from html import escape
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from tinkernomics.site.charts import raster
from tinkernomics.site.charts.spec import LICENCE, PUBLISHER, Chart
from tinkernomics.site.charts.svg import (
    FONT,
    LAYOUTS,
    SVG_CACHE_SIZE,
    placed_chart,
    standalone_svg,
    svg_height,
)

if TYPE_CHECKING:
    from PIL import Image

PNG_WIDTH_PX = 1200
CARD_WIDTH_PX = 1200
CARD_HEIGHT_PX = 630
INK = "#1f2328"
MUTED = "#57606a"
ACCENT = "#3f51b5"
"""Material's indigo, the site's primary colour."""


def render_png(svg_text: str, width: int) -> bytes:
    """Rasterise an SVG to PNG bytes at ``width`` px with ThorVG and the bundled Roboto
    (``raster.rasterise``), then store it with a palette (``palette_png``)."""
    return palette_png(raster.rasterise(svg_text, width))


PALETTE_COLOURS = 64
"""Flat chart colours plus their anti-aliased edges fit in 64 entries; no dithering, so flat
areas stay flat. A third of the file (GRPO's chart.png 108 -> 31 KB) at no visible cost; 32
entries are too few (the comparison chart loses its grid lines)."""


PNG_OPTIMIZE = True
"""Pillow's ``optimize`` (zlib level 9): the same pixels in about 9% fewer bytes (GRPO's chart.png
34.4 -> 31.5 KB) for about 0.04 s more per image (0.007 -> 0.046 s), now over half an image's
cost but paid once: images are cached, and the 1,000-algorithm site is over its size target."""


def palette_png(image: Image.Image) -> bytes:
    """An RGB image as an 8-bit palette PNG (Pillow's fast octree quantiser, deterministic)."""
    from PIL import Image

    rgb = image if image.mode == "RGB" else image.convert("RGB")
    quantised = rgb.quantize(
        colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantised.save(out, "PNG", optimize=PNG_OPTIMIZE)
    return out.getvalue()


@cache
def renderer_version() -> str:
    """Part of the cache key: a new ThorVG, font or Pillow package, another SVG rewrite
    (``raster.REWRITE_VERSION``), or other palette or PNG settings re-render every image."""
    versions = [metadata.version(dist) for dist in ("thorvg-python", "font-roboto", "pillow")]
    return "|".join([*versions, f"rewrite{raster.REWRITE_VERSION}", f"palette{PALETTE_COLOURS}",
                     f"optimize{int(PNG_OPTIMIZE)}"])


PRUNE_AFTER_DAYS = 30.0
"""Cached images unused this long are deleted after a build (``ImageCache.prune``)."""
STALE_TEMPORARY_S = 3600.0
"""A worker's temporary file this old was left by a stopped build; ``prune`` deletes it."""


@dataclass(frozen=True)
class ImageCache:
    """PNG files keyed by a hash of (SVG text, width, renderer version); ``folder`` None
    renders every time."""

    folder: Path | None = None

    def _path(self, svg_text: str, width: int) -> Path | None:
        if self.folder is None:
            return None
        key = hashlib.sha256(f"{renderer_version()}|{width}|{svg_text}".encode()).hexdigest()
        return self.folder / f"{key}.png"

    def _cached(self, path: Path, svg_text: str, width: int) -> None:
        """The image is in the cache at ``path``, marked in use (``prune`` keeps it)."""
        if path.is_file():
            os.utime(path)
        else:
            _store(path, render_png(svg_text, width))

    def png(self, svg_text: str, width: int) -> bytes:
        path = self._path(svg_text, width)
        if path is None:
            return render_png(svg_text, width)
        self._cached(path, svg_text, width)
        return path.read_bytes()

    def place(self, svg_text: str, width: int, dest: Path) -> tuple[int, int]:
        """Put the image at ``dest`` and return its (width, height): a hard link to the cached
        file where the file systems allow one, else a copy. A rebuild at 1,000 algorithms then
        writes no image bytes (copying its 1,010 PNGs took about 0.6 CPU s, mostly the
        kernel's); nothing writes into a built PNG, so the shared file stays the cache's."""
        path = self._path(svg_text, width)
        if path is None:
            data = render_png(svg_text, width)
            dest.write_bytes(data)
            return png_size(data)
        self._cached(path, svg_text, width)
        dest.unlink(missing_ok=True)  # never write through an earlier build's link
        try:
            os.link(path, dest)
        except OSError:  # another file system, or links not allowed: copy
            shutil.copyfile(path, dest)
        with path.open("rb") as head:
            return png_size(head.read(PNG_HEADER_BYTES))

    def todo(self, jobs: list[tuple[str, int]]) -> dict[tuple[str, int], Path]:
        """The (SVG, width) jobs not in the cache yet, each with the path it goes to."""
        paths = {job: self._path(*job) for job in dict.fromkeys(jobs)}
        return {job: path for job, path in paths.items()
                if path is not None and not path.is_file()}

    def start_prefill(self, jobs: list[tuple[str, int]]) -> Prefill:
        """Start rendering the jobs not cached yet in worker processes (one per core) and return
        at once: the build goes on rendering pages while they work, and ``Prefill.wait`` before
        the images are placed. Each worker stores its images in the cache itself. Fewer than
        ``PARALLEL_MIN_IMAGES`` are left to ``place`` (starting processes would cost more)."""
        todo = self.todo(jobs)
        if len(todo) < PARALLEL_MIN_IMAGES:
            return Prefill(None, [], 0)
        work = [(svg_text, width, str(path)) for (svg_text, width), path in todo.items()]
        workers = min(len(work), os.cpu_count() or 1)
        size = max(1, len(work) // (8 * workers))  # small chunks: a cancel drops the rest
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent)
        chunks = [pool.submit(_render_and_store_all, work[i:i + size])
                  for i in range(0, len(work), size)]
        prefill = Prefill(pool, chunks, len(work))
        _ACTIVE.append(prefill)
        _stop_all_at_exit()
        return prefill

    def prefill(self, jobs: list[tuple[str, int]]) -> int:
        """Render the jobs not cached yet in parallel processes and wait for them: images are
        most of a first build's time on a large catalog. Returns how many it rendered."""
        return self.start_prefill(jobs).wait()

    def prune(self, max_age_days: float = PRUNE_AFTER_DAYS) -> int:
        """Delete cached images no build has used for ``max_age_days`` (each use touches its
        file), so a cache kept between CI runs holds what the site shows and not every chart
        it ever showed. Returns how many it deleted."""
        if self.folder is None or not self.folder.is_dir():
            return 0
        now = time.time()
        cutoff = now - max_age_days * 86400
        old = [p for p in self.folder.glob("*.png") if p.stat().st_mtime < cutoff]
        for path in old:
            path.unlink(missing_ok=True)
        for tmp in self.folder.glob("*.tmp"):  # half-written by a worker that was stopped
            with contextlib.suppress(OSError):
                if tmp.stat().st_mtime < now - STALE_TEMPORARY_S:
                    tmp.unlink()
        return len(old)


PARALLEL_MIN_IMAGES = 8
"""Below this many images to render, starting worker processes costs more than it saves."""


@dataclass(eq=False)
class Prefill:
    """Images being rendered by worker processes (``ImageCache.start_prefill``)."""

    pool: ProcessPoolExecutor | None
    chunks: list[Future[None]]
    count: int

    def wait(self) -> int:
        """Block until every image is in the cache; a worker's error (or a worker's death) is
        raised here. Returns how many were rendered."""
        if self.pool is None:
            return 0
        try:
            for chunk in self.chunks:
                chunk.result()
        finally:
            self.pool.shutdown()
            self.pool = None
            self._forget()
        return self.count

    def _forget(self) -> None:
        if self in _ACTIVE:
            _ACTIVE.remove(self)

    def cancel(self) -> None:
        """Stop the workers and drop their work (a build that failed before placing its
        images: its workers must not run on beside the next build)."""
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        self._forget()
        terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
        if terminate is not None:
            terminate()
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
            process.join()


_ACTIVE: list[Prefill] = []
"""Prefills started and neither waited for nor cancelled (``stop_all`` stops them)."""


def stop_all() -> None:
    """Stop every prefill still running: a build that failed left them (``mkdocs serve``
    starts the next build), or the process is exiting before it waited for them."""
    while _ACTIVE:
        _ACTIVE[-1].cancel()


@cache
def _stop_all_at_exit() -> None:
    """Register ``stop_all`` to run when the process exits, once. Without it a build that
    raised would wait at exit for every image still queued: ``concurrent.futures``' exit hook
    waits for the queue, and threading's exit hooks (that one and this) run before
    ``atexit``'s, the last registered first."""
    register = getattr(threading, "_register_atexit", None)
    if register is not None:
        register(stop_all)


PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when the thread that forked it exits."""


def _die_with_parent() -> None:
    """In a worker, first: end when the build process ends, however it ends. A build killed
    (SIGKILL, or SIGTERM, which runs no exit hook) would otherwise leave its workers waiting
    on their queue for ever. Linux only; elsewhere the exit hook is all there is."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # the build ended before the line above ran
        os._exit(0)


def _render_and_store_all(jobs: list[tuple[str, int, str]]) -> None:
    """In a worker: render each (SVG, width, path) job of one chunk and store it where
    ``ImageCache._path`` put it (whole or not at all, so the build never reads half an image)."""
    for svg_text, width, path in jobs:
        _store(Path(path), render_png(svg_text, width))


def _store(path: Path, data: bytes) -> None:
    """Write a cache file whole or not at all (a temporary file per process, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _text(x: float, y: float, text: str, size: int, *, fill: str = INK, weight: int = 400,
          anchor: str = "start") -> str:
    return (f'<text x="{x}" y="{y}" font-family="{FONT}" font-size="{size}" '
            f'font-weight="{weight}" fill="{fill}" text-anchor="{anchor}">{escape(text)}</text>')


def _card(title: str, subtitle: str, chart: Chart, footer: str) -> str:
    """A 1200x630 card: a title (and subtitle) over the chart, a credit line at the bottom."""
    w, h = CARD_WIDTH_PX, CARD_HEIGHT_PX
    top = 118 if subtitle else 92
    box_h = h - top - 58
    inner_w, inner_h = LAYOUTS["wide"].width, svg_height(chart)
    box_w = min(w - 80, box_h * inner_w / inner_h)
    inner = placed_chart(chart, ((w - box_w) / 2, top, box_w, box_h), f"tn-card-{chart.id}")
    parts = [
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>',
        f'<rect x="0" y="0" width="{w}" height="10" fill="{ACCENT}"/>',
        _text(40, 66, title, 38, weight=700),
        _text(40, 102, subtitle, 22, fill=MUTED) if subtitle else "",
        inner,
        _text(40, h - 22, footer, 20, fill=MUTED),
    ]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" '
            f'height="{h}">' + "".join(parts) + "</svg>")


def _host(site_url: str) -> str:
    return site_url.split("://", 1)[-1].rstrip("/") if site_url else ""


@lru_cache(maxsize=SVG_CACHE_SIZE)
def card_svg(chart: Chart, site_url: str = "") -> str:
    """The link-preview card of one chart."""
    footer = " · ".join(p for p in (PUBLISHER, f"data {LICENCE}", _host(site_url)) if p)
    return _card(chart.title, "", chart, footer)


def site_card_svg(chart: Chart, tagline: str, site_url: str = "") -> str:
    """The link-preview card of pages without a chart: the site's name over a chart."""
    footer = " · ".join(p for p in (_host(site_url), f"data {LICENCE}") if p)
    return _card(PUBLISHER, tagline, chart, footer)


def jobs(chart: Chart, site_url: str) -> list[tuple[str, int]]:
    """The (SVG, width) pairs of a chart's ``chart.png`` and ``card.png``."""
    return [(standalone_svg(chart, site_url), PNG_WIDTH_PX),
            (card_svg(chart, site_url), CARD_WIDTH_PX)]


def chart_png(chart: Chart, site_url: str, cache: ImageCache) -> bytes:
    return cache.png(standalone_svg(chart, site_url), PNG_WIDTH_PX)


def card_png(chart: Chart, site_url: str, cache: ImageCache) -> bytes:
    return cache.png(card_svg(chart, site_url), CARD_WIDTH_PX)


PNG_HEADER_BYTES = 24
"""The signature and the IHDR chunk up to the height: all ``png_size`` reads."""


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk; ValueError if it is not a PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
