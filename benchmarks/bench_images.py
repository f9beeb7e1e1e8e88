"""Chart image workers: do ThorVG, Pillow and libdeflate release the GIL enough for threads?

Renders the same N chart images (the real catalog's charts and cards, under distinct site URLs so
every SVG differs) one at a time, with 1 and 2 worker threads, and with 2 worker processes
(``concurrent.futures``) for comparison, and prints wall and CPU seconds of each, and the
images' bytes (each is drawn, mapped to its palette and written with libdeflate,
``charts.pngpalette``: a PNG writer that held the GIL, as oxipng's binding does, would show
here as 2 threads no faster than 1). The image
workers (``tinkernomics.site.charts.images``) are threads because 2 threads come close to 2
processes here. Last measured (40 real-catalog images, 2 cores shared with other jobs, medians
of 3): 1 thread 2.23 s, 2 threads 1.47 s (1.52x), 2 worker processes 1.16 s (1.92x). An image
costs about 0.045-0.08 s, over half of it Pillow's compression (ThorVG draws in 8-16 ms; resvg,
the rasteriser before it, took 0.10-0.15 s an image); the first build at 1,000 algorithms spends
about 53 CPU s on its 1,010 images (``bench_scale.py``).

    .venv/bin/python benchmarks/bench_images.py          # 60 images
    .venv/bin/python benchmarks/bench_images.py 200
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.charts import imagejobs, images
from tinkernomics.site.charts import spec as charts

ROOT = Path(__file__).resolve().parents[1]


def jobs(count: int) -> list[tuple[str, int]]:
    catalog = load_valid_catalog(ROOT / "catalog")
    built = [charts.build_chart(catalog, cid) for cid in charts.chart_ids(catalog)]
    out: list[tuple[str, int]] = []
    i = 0
    while len(out) < count:
        out += [(job.svg(), job.width) for chart in built
                for job in imagejobs.jobs(chart, f"https://e{i}.org/")]
        i += 1
    return out[:count]


def timed(make: Callable[[], Executor], work: list[tuple[str, int]]) -> tuple[float, float, int]:
    """(wall, CPU of this process) seconds to render ``work`` in ``make()``'s workers, and the
    images' bytes."""
    wall, cpu = time.perf_counter(), time.process_time()
    with make() as pool:
        pngs = list(pool.map(images.render_png, *zip(*work, strict=True)))
    return time.perf_counter() - wall, time.process_time() - cpu, sum(map(len, pngs))


ROUNDS = 3
"""The three set-ups run alternately this many times and their medians are compared: on a
shared machine the speed drifts over a run."""


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 60
    work = jobs(count)
    images.render_png(*work[0])  # fonts and engine loaded before timing
    runs = {"1 thread": lambda: ThreadPoolExecutor(1), "2 threads": lambda: ThreadPoolExecutor(2),
            "2 processes": lambda: ProcessPoolExecutor(2)}
    walls: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, make in runs.items():
            wall, cpu, size = timed(make, work)
            walls[name].append(wall)
            print(f"{name:12s} {count} images: wall {wall:6.2f} s "
                  f"({wall / count * 1000:5.1f} ms an image), CPU here {cpu:6.2f} s, "
                  f"{size / count / 1e3:.1f} KB an image", flush=True)
    median = {name: statistics.median(times) for name, times in walls.items()}
    print(f"medians of {ROUNDS}: " + ", ".join(f"{n} {t:.2f} s" for n, t in median.items()))
    print(f"speed-up of 2 threads over 1: {median['1 thread'] / median['2 threads']:.2f}x; "
          f"2 processes over 1 thread: {median['1 thread'] / median['2 processes']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
