"""Benchmark: how many bytes the site is at 1,000 synthetic algorithms, and where they go.

Builds the real site and a clone with 1,000 synthetic algorithms (``benchmarks/synth.py``, the
way ``make build`` builds: ``mkdocs build --strict``), or measures sites already built
(``--sites REAL BIG``), and prints:

- the site without PNG images and the PNG images, every file counted as GitHub Pages serves it
  (its artifact upload turns hard links and symlinks into copies, so a linked copy costs its
  bytes again); held to issue 47's targets: < 100 MB and < 50 MB;
- files whose bytes another file already holds (byte-identical copies), by kind;
- the bytes per kind of file: each chart file by name (``embed/*/chart.png``...), the API's
  collections, one-entry documents and archive, the compare column files, the algorithm
  pages, the search index, the rest by top folder;
- GRPO's page with the real catalog and at 1,000, raw and gzipped: a page must stay flat with
  the catalog's size.

Images are cached by content (``TINKERNOMICS_IMAGE_CACHE``, default: each project's own
``.image-cache``); pass ``--image-cache DIR`` to reuse one between runs. Exit status 1 if a
target is missed. ``bench_scale.py`` holds the same size targets beside its timings.

Usage: .venv/bin/python benchmarks/bench_size.py [--algorithms 1000] [--keep DIR]
[--image-cache DIR] [--sites REAL BIG]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import make_project
from timing import build_env

BIN = Path(sys.executable).parent
TARGET_SITE_MB = 100.0
"""The site without its PNG images (issue 47)."""
TARGET_PNG_MB = 50.0
GRPO_PAGE = "algorithms/grpo/index.html"
GRPO_SLACK_BYTES = 200
"""GRPO's page may grow only by the extra digits of its citation numbers."""
_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def kind(rel: str) -> str:
    """The kind a site file is counted under: one per chart file name, per API part, etc."""
    parts = rel.split("/")
    if parts[0] == "embed" and len(parts) >= 3:
        name = "/".join(parts[2:3]) + ("/…" if len(parts) > 3 else "")
        return f"embed/*/{_DATE.sub('<date>', name)}"
    if parts[0] == "api" and len(parts) >= 3:
        return f"api/{parts[1]}/{parts[2]}" if len(parts) == 3 else f"api/{parts[1]}/{parts[2]}/*"
    if parts[0] in ("algorithms", "compare") and len(parts) > 2:
        return f"{parts[0]}/{'*/' if parts[0] == 'algorithms' else parts[1] + '/'}…"
    return parts[0] if len(parts) > 1 else "(root files)"


@dataclass
class Sizes:
    """A built site's bytes: without PNG, PNG, and (bytes, files) per kind and of the files
    whose bytes an earlier file holds already."""

    png: int = 0
    other: int = 0
    kinds: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    copies: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))


def measure(site: Path) -> Sizes:
    """Every file of ``site``, counted as the host serves it."""
    out, seen = Sizes(), set()
    for path in sorted(site.rglob("*")):
        if not path.is_file():
            continue
        rel, data = path.relative_to(site).as_posix(), path.read_bytes()
        if rel.endswith(".png"):
            out.png += len(data)
        else:
            out.other += len(data)
        out.kinds[kind(rel)][0] += len(data)
        out.kinds[kind(rel)][1] += 1
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            out.copies[kind(rel)][0] += len(data)
            out.copies[kind(rel)][1] += 1
        seen.add(digest)
    return out


def page_kb(path: Path) -> tuple[float, float]:
    data = path.read_bytes()
    return len(data) / 1e3, len(gzip.compress(data, 6)) / 1e3


def build(n: int, dest: Path) -> Path:
    project = make_project(n, dest)
    subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "--quiet", "-d", "site"],
                   cwd=project, env=build_env(), check=True, stdout=subprocess.DEVNULL)
    return project / "site"


def _check(name: str, value: float, target: float, missed: list[str]) -> None:
    ok = value < target
    print(f"{name:<48}{value:>9.1f}  (target < {target:g}){'  ok' if ok else '  MISSED'}")
    if not ok:
        missed.append(name)


def report(real: Path, big: Path, n: int) -> list[str]:
    """Print the sizes; return the targets missed."""
    missed: list[str] = []
    m = measure(big)
    _check(f"site without PNG images, MB at {n:,}", m.other / 1e6, TARGET_SITE_MB, missed)
    _check(f"PNG images, MB at {n:,}", m.png / 1e6, TARGET_PNG_MB, missed)
    copies = m.copies
    print(f"byte-identical copies: {sum(c[1] for c in copies.values())} files, "
          f"{sum(c[0] for c in copies.values()) / 1e6:.2f} MB")
    for name, (size, files) in sorted(copies.items(), key=lambda kv: -kv[1][0])[:8]:
        print(f"  {name:<56}{files:>7}{size / 1e6:>9.2f} MB")
    grpo0, grpo_n = page_kb(real / GRPO_PAGE), page_kb(big / GRPO_PAGE)
    grown = round((grpo_n[0] - grpo0[0]) * 1e3)
    print(f"GRPO page KB (gzipped): real catalog {grpo0[0]:.1f} ({grpo0[1]:.1f}), "
          f"at {n:,} {grpo_n[0]:.1f} ({grpo_n[1]:.1f}), {grown:+d} bytes")
    if grown > GRPO_SLACK_BYTES:
        missed.append("GRPO page grows with the catalog")
    print(f"\n{'kind of file at ' + format(n, ',') + ' algorithms':<56}{'files':>7}{'MB':>9}")
    kinds = sorted(m.kinds.items(), key=lambda kv: -kv[1][0])
    for name, (size, files) in kinds:
        if size >= 50_000:
            print(f"  {name:<54}{files:>7}{size / 1e6:>9.2f}")
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algorithms", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build in DIR and keep it")
    parser.add_argument("--image-cache", type=Path, help="the chart image cache to use")
    parser.add_argument("--sites", type=Path, nargs=2, metavar=("REAL", "BIG"),
                        help="measure these built sites instead of building")
    args = parser.parse_args(argv)
    if args.image_cache:
        os.environ["TINKERNOMICS_IMAGE_CACHE"] = str(args.image_cache.resolve())
    if args.sites:
        missed = report(args.sites[0], args.sites[1], args.algorithms)
    else:
        work = args.keep or Path(tempfile.mkdtemp(prefix="tn-size-"))
        try:
            real = build(0, work / "n0")
            big = build(args.algorithms, work / f"n{args.algorithms}")
            missed = report(real, big, args.algorithms)
        finally:
            if args.keep is None:
                shutil.rmtree(work, ignore_errors=True)
    if missed:
        print("\nmissed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
