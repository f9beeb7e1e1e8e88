"""Benchmark: build time and page weight of the site at 100 and 1,000 synthetic algorithms.

Builds, in one run and on this machine (synthetic catalogs from ``benchmarks/synth.py``):

1. the real site (0 extra algorithms), then 100 and 1,000 extra algorithms, each the way
   ``make build`` builds (``tinkernomics validate`` is timed apart; ``mkdocs build --strict``);
2. the same-content floor at 1,000: bare Material (theme + search, no macros, no markdown
   extensions) building, for every algorithm page of the 1,000 build, the article HTML that page
   has, pasted as raw HTML into a plain page; a second floor does the same for every page of
   the site (index, data quality, references... too);
3. bare Material with 1,000 thin pages (a title and one sentence each).

The 1,000 build is then run again in the same project: a contributor's rebuild, with the chart
images (``embed/<id>/chart.png`` and ``card.png``, about 0.05-0.08 s each to render) already in the
project's image cache; the first build renders every one of them. The rebuild and the floor run
alternately, ``--pairs`` times (3), and their medians are compared: the machine's speed drifts.

Times are CPU seconds of each build process (the machine may be shared; wall time is printed
too). Prints times and ratios -- build/floor at 1,000 (target <= 2), time(1,000)/time(100) (target
<= 11) -- site sizes (target < 100 MB at 1,000), the largest pages raw and gzipped, the
algorithms index gzipped (target < 300 KB) and GRPO's page at 0 and 1,000 extra algorithms
(target: no larger). Exit status 1 if a target is missed.

Usage: .venv/bin/python benchmarks/bench_scale.py [--sizes 100 1000] [--keep DIR] [--profile]
[--pairs 3]
(``--profile`` also writes a cProfile of the largest build to DIR/profile.out; a few minutes.)
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import make_project
from timing import build_env, child_cpu

BIN = Path(sys.executable).parent
TIMEOUT_S = 1800
TARGET_FLOOR_RATIO = 2.0
TARGET_LINEARITY = 11.0
TARGET_SITE_MB = 100.0
TARGET_INDEX_GZ_KB = 300.0
GRPO_SLACK_BYTES = 200
"""GRPO's page may grow only by the extra digits of its citation numbers."""
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
BARE_CONFIG = """site_name: floor
use_directory_urls: true
theme:
  name: material
  font: false
plugins:
  - search
not_in_nav: |
  /algorithms/*.md
"""


@dataclass(frozen=True)
class Built:
    label: str
    seconds: float
    """CPU seconds (user + system) of the build process: robust on a machine shared with other
    jobs, where wall time depends on the load. Wall seconds are printed beside it."""
    site: Path
    wall: float = 0.0


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of running ``cmd`` to completion."""
    cpu, start = child_cpu(), time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=build_env(), check=True, timeout=TIMEOUT_S,
                   stdout=subprocess.DEVNULL)
    return child_cpu() - cpu, time.perf_counter() - start


def mkdocs_build(project: Path, label: str, profile: Path | None = None) -> Built:
    site = project / "site"
    cmd = [str(BIN / "mkdocs"), "build", "--strict", "--quiet", "-d", str(site)]
    if profile is not None:
        cmd = [sys.executable, "-m", "cProfile", "-o", str(profile), *cmd]
    cpu, wall = timed(cmd, project)
    return Built(label, cpu, site, wall)


def build_catalog(n: int, work: Path, profile: Path | None = None) -> tuple[Built, float]:
    project = make_project(n, work / f"n{n}")
    validate = timed([str(BIN / "tinkernomics"), "validate", "catalog"], project)[0]
    return mkdocs_build(project, f"site, {n} extra algorithms", profile), validate


def bare_project(dest: Path, pages: dict[str, str]) -> Path:
    """A bare Material project whose docs/<path> files have the given markdown."""
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "docs").mkdir(parents=True)
    (dest / "mkdocs.yml").write_text(BARE_CONFIG, encoding="utf-8")
    (dest / "docs" / "index.md").write_text("# Floor\n", encoding="utf-8")
    for rel, text in pages.items():
        path = dest / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return dest


def article_pages(site: Path, *, algorithms_only: bool) -> dict[str, str]:
    """Every built page's article HTML as a raw-HTML markdown page (docs path -> text)."""
    pages = {}
    for html in sorted(site.rglob("index.html")):
        rel = html.parent.relative_to(site).as_posix()
        if rel in (".", "") or rel.startswith(("embed", "api")):
            continue
        if algorithms_only and not (rel.startswith("algorithms/") and rel.count("/") == 1):
            continue
        match = _ARTICLE.search(html.read_text(encoding="utf-8"))
        if match:
            pages[f"{rel}.md"] = f"<div>\n{match.group(1).strip()}\n</div>\n"
    return pages


def thin_pages(n: int) -> dict[str, str]:
    return {f"algorithms/thin_{i:04d}.md": f"# Thin {i}\n\nA thin page.\n"
            for i in range(1, n + 1)}


def bare_build(work: Path, label: str, pages: dict[str, str]) -> Built:
    return mkdocs_build(bare_project(work / label.split(",")[0].replace(" ", "_"), pages), label)


def size_mb(site: Path) -> float:
    return sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 1e6


def page_kb(path: Path) -> tuple[float, float]:
    data = path.read_bytes()
    return len(data) / 1e3, len(gzip.compress(data, 6)) / 1e3


AREAS = (("chart images (embed/*/chart.png, card.png)", lambda r: r.startswith("embed/")
          and r.endswith(".png")),
         ("other per-chart files (embed/: page, SVG, CSV, JSON, oEmbed, series)",
          lambda r: r.startswith("embed/")),
         ("algorithm pages", lambda r: r.startswith("algorithms/")),
         ("API (api/)", lambda r: r.startswith("api/")),
         ("search index", lambda r: r.startswith("search/")),
         ("theme and vendor assets", lambda r: r.startswith("assets/")),
         ("everything else", lambda r: True))
"""Where a site's bytes go, first match wins: the per-chart files are what #14 (charts where
bloggers publish) asks of every chart; the rest is the site's pages and data."""


def breakdown(site: Path) -> list[tuple[str, int, float]]:
    """(area, files, MB) of the site, in AREAS' order."""
    totals = {name: [0, 0] for name, _ in AREAS}
    for path in site.rglob("*"):
        if path.is_file():
            rel = path.relative_to(site).as_posix()
            name = next(name for name, match in AREAS if match(rel))
            totals[name][0] += 1
            totals[name][1] += path.stat().st_size
    return [(name, files, size / 1e6) for name, (files, size) in totals.items()]


def largest_pages(site: Path, count: int = 6) -> list[tuple[str, float, float]]:
    pages = sorted(site.rglob("*.html"), key=lambda p: p.stat().st_size, reverse=True)
    return [(p.relative_to(site).as_posix(), *page_kb(p)) for p in pages[:count]]


def report(builds: list[Built], validates: dict[str, float], floors: list[Built],
           rebuild: Built) -> list[str]:
    """Print the figures; return the targets missed."""
    print(f"\n{'build':<52}{'CPU s':>9}{'wall s':>9}{'site MB':>10}")
    for b in [*builds, rebuild, *floors]:
        print(f"{b.label:<52}{b.seconds:>9.1f}{b.wall:>9.1f}{size_mb(b.site):>10.1f}")
    for label, seconds in validates.items():
        print(f"{'tinkernomics validate, ' + label:<52}{seconds:>9.1f}")
    missed = []
    small, big = builds[1], builds[-1]
    floor, floor_all = floors[0], floors[1]
    checks = [
        ("build / same-content floor (algorithm pages), 1,000", big.seconds / floor.seconds,
         TARGET_FLOOR_RATIO),
        ("rebuild / same-content floor (algorithm pages), 1,000", rebuild.seconds / floor.seconds,
         TARGET_FLOOR_RATIO),
        ("build / same-content floor (every page), 1,000", big.seconds / floor_all.seconds, None),
        # wall: the first build renders its images in worker processes beside the pages
        ("build / same-content floor, wall seconds, 1,000", big.wall / floor.wall, None),
        ("build / bare Material thin pages, 1,000", big.seconds / floors[2].seconds, None),
        ("time(1,000) / time(100)", big.seconds / small.seconds, TARGET_LINEARITY),
        ("site MB at 1,000", size_mb(big.site), TARGET_SITE_MB),
    ]
    index_kb, index_gz = page_kb(big.site / "algorithms" / "index.html")
    checks.append(("algorithms index KB gzipped at 1,000", index_gz, TARGET_INDEX_GZ_KB))
    print()
    for name, value, target in checks:
        verdict = "" if target is None else ("  ok" if value <= target else "  MISSED")
        print(f"{name:<56}{value:>8.2f}" + (f"  (target <= {target:g}){verdict}" if target else ""))
        if target is not None and value > target:
            missed.append(name)
    grpo0 = page_kb(builds[0].site / "algorithms" / "grpo" / "index.html")
    grpo_n = page_kb(big.site / "algorithms" / "grpo" / "index.html")
    grown = round((grpo_n[0] - grpo0[0]) * 1e3)
    # Reference numbers are global ([72] becomes [2072]): a few bytes, not growth in content.
    ok = grown <= GRPO_SLACK_BYTES
    print(f"{'GRPO page KB (gzipped), real catalog':<56}{grpo0[0]:>8.1f} ({grpo0[1]:.1f})")
    print(f"{'GRPO page KB (gzipped), 1,000 extra':<56}{grpo_n[0]:>8.1f} ({grpo_n[1]:.1f})"
          f"  {grown:+d} bytes (target <= +{GRPO_SLACK_BYTES}: citation numbers' digits)"
          + ("  ok" if ok else "  MISSED"))
    if not ok:
        missed.append("GRPO page grows with the catalog")
    print(f"algorithms index at 1,000: {index_kb:.0f} KB ({index_gz:.0f} KB gzipped)")
    print(f"chart images rendered by the first 1,000 build: about "
          f"{big.seconds - rebuild.seconds:.1f} CPU s (first build - rebuild)")
    print(f"\nsite at 1,000 by area{'files':>42}{'MB':>9}")
    for name, files, mb in breakdown(big.site):
        print(f"  {name:<68}{files:>6}{mb:>9.1f}")
    for b in builds[1:]:
        print(f"\nlargest pages, {b.label} (KB, gzipped KB):")
        for rel, kb, gz in largest_pages(b.site):
            print(f"  {rel:<58}{kb:>9.0f}{gz:>9.0f}")
    return missed


def median_of(runs: list[Built]) -> Built:
    """The run with the median CPU seconds, labelled with how many runs it is the median of."""
    ordered = sorted(runs, key=lambda b: b.seconds)
    mid = ordered[len(ordered) // 2]
    label = f"{mid.label} (median of {len(runs)})" if len(runs) > 1 else mid.label
    return Built(label, mid.seconds, mid.site, sorted(b.wall for b in runs)[len(runs) // 2])


def rebuild_and_floor(big: Built, work: Path, pairs: int, label: str) -> tuple[Built, Built]:
    """The rebuild and the same-content floor, run alternately ``pairs`` times: the machine's
    speed drifts over a run of several minutes (the floor alone moved 15-20 CPU s between runs
    of this benchmark), so a ratio of two builds made minutes apart is noise; alternating
    pairs and taking medians keeps it to what the builds cost."""
    floor_project = bare_project(work / "floor", article_pages(big.site, algorithms_only=True))
    rebuilds, floors = [], []
    for i in range(pairs):
        rebuilds.append(mkdocs_build(big.site.parent, label))
        floors.append(mkdocs_build(floor_project, "floor, algorithm pages' article HTML"))
        print(f"pair {i + 1}: rebuild {rebuilds[-1].seconds:.1f} s CPU, floor "
              f"{floors[-1].seconds:.1f} s CPU", flush=True)
    return median_of(rebuilds), median_of(floors)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[100, 1000])
    parser.add_argument("--keep", type=Path, help="work in DIR and keep it (default: a temp dir)")
    parser.add_argument("--profile", action="store_true", help="cProfile the largest build")
    parser.add_argument("--pairs", type=int, default=3,
                        help="rebuild/floor pairs run alternately (medians are reported)")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="tn-scale-"))
    try:
        builds, validates = [], {}
        for n in (0, *args.sizes):
            profile = work / "profile.out" if args.profile and n == args.sizes[-1] else None
            built, validates[f"{n} extra"] = build_catalog(n, work, profile)
            builds.append(built)
            print(f"{built.label}: {built.seconds:.1f} s CPU, {built.wall:.1f} s wall", flush=True)
        big = builds[-1]
        rebuild, floor = rebuild_and_floor(big, work, args.pairs,
                                           f"site, {args.sizes[-1]} extra, rebuilt (images cached)")
        floors = [
            floor,
            bare_build(work, "floor all, every page's article HTML",
                       article_pages(big.site, algorithms_only=False)),
            bare_build(work, f"thin, bare Material, {args.sizes[-1]} thin pages",
                       thin_pages(args.sizes[-1] + 11)),
        ]
        missed = report(builds, validates, floors, rebuild)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if missed:
        print("\nmissed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
