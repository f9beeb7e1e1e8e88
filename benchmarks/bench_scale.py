"""Benchmark: what a person waits for when the site is built at 100 and 1,000 synthetic algorithms.

Builds, in one run and on this machine (synthetic catalogs from ``benchmarks/synth.py``):

1. the real site (0 extra algorithms), then 100 and 1,000 extra algorithms, each the way
   ``make build`` builds (``tinkernomics validate`` is timed apart; ``mkdocs build --strict``).
   These first builds draw every chart image (a cold image cache): reported, not held;
2. the same-content floor at 1,000 (issue 47's definition): bare Material (theme + search, no
   macros, no markdown extensions) building, for each algorithm page of the 1,000 build, the
   article HTML an algorithm page has with the REAL catalog, pasted as raw HTML: a real
   algorithm's page carries its own article from the real build, a synthetic one the article of
   the algorithm it is made from (``synth.TEMPLATE_ALGORITHM``). Content the pages gained only
   because the catalog grew is not in the floor: it is work the build does that a flat page
   would not. Raw HTML means what the page holds as it is: a hook of the floor project puts it
   in the page and Markdown never parses it (the site's own macro output skips Markdown's HTML
   parser too, ``tinkernomics.site.pages.rawhtml``). The same HTML pasted into Markdown, which
   Python-Markdown's HTML parser then reads (this benchmark's floor before issue 47, about
   twice as slow), is built once after the pairs and printed for reference;
3. the rebuilds (a contributor's second build, chart images in the project's cache) at 100 and
   1,000, and the floor, run alternately ``--pairs`` times (3): the machine's speed drifts over
   a run of several minutes, so each figure is the median of its runs in this same run.

Held: rebuild / floor at 1,000 in WALL-CLOCK seconds (what a reader or contributor waits for;
target <= 2), rebuild t(1,000) / t(100) (target <= 11), the site without PNG images < 100 MB and
the PNG images < 50 MB at 1,000 (every file counted as the host serves it: GitHub Pages' artifact
holds no links, so a hard-linked copy costs its bytes again; unique bytes are printed beside),
the algorithms index < 300 KB gzipped, and GRPO's page no larger at 1,000 than with the real
catalog. The same ratios in CPU seconds (user + system of the build processes) are printed
beside: on a machine shared with other jobs wall time measures the neighbours too, so every
timed build also prints the load average when it ended. Exit status 1 if a target is missed.

Usage: .venv/bin/python benchmarks/bench_scale.py [--sizes 100 1000] [--keep DIR] [--profile]
[--pairs 3] [--extra-floors]
(``--profile`` writes a cProfile of one 1,000 rebuild to DIR/profile.out, untimed;
``--extra-floors`` also builds bare Material with every page's article HTML of the 1,000 build
and with 1,000 thin pages, for reference.)
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import TEMPLATE_ALGORITHM, make_project
from timing import build_env, child_cpu

BIN = Path(sys.executable).parent
TIMEOUT_S = 1800
TARGET_FLOOR_RATIO = 2.0
TARGET_LINEARITY = 11.0
TARGET_SITE_MB = 100.0
"""The site without its PNG images."""
TARGET_PNG_MB = 50.0
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
RAW_HOOK = '''"""The floor's pages are raw HTML: Markdown never parses them (bench_scale.py)."""
RAW = "<!-- raw html -->\\n"


def on_page_markdown(markdown, page, **kwargs):
    if markdown.startswith(RAW):
        page.raw_html = markdown[len(RAW):]
        return ""
    return markdown


def on_page_content(html, page, **kwargs):
    return getattr(page, "raw_html", html)
'''
RAW_MARK = "<!-- raw html -->\n"
"""First line of a floor page whose rest goes into the page as it is (``RAW_HOOK``)."""


@dataclass(frozen=True)
class Built:
    label: str
    cpu: float
    """CPU seconds (user + system) of the build process."""
    wall: float
    """Wall-clock seconds: what a person waits for."""
    site: Path
    load: float = 0.0
    """The 1-minute load average when the build ended (the machine may be shared)."""

    def line(self) -> str:
        return (f"{self.label}: {self.wall:.1f} s wall, {self.cpu:.1f} s CPU "
                f"(load {self.load:.1f})")


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
    return Built(label, cpu, wall, site, os.getloadavg()[0])


def build_catalog(n: int, work: Path) -> tuple[Built, float]:
    project = make_project(n, work / f"n{n}")
    validate = timed([str(BIN / "tinkernomics"), "validate", "catalog"], project)[0]
    return mkdocs_build(project, f"first build, {n} extra algorithms"), validate


def bare_project(dest: Path, pages: dict[str, str]) -> Path:
    """A bare Material project whose docs/<path> files have the given text: markdown, or raw
    HTML when it starts with ``RAW_MARK`` (a hook puts it in the page unparsed)."""
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "docs").mkdir(parents=True)
    (dest / "mkdocs.yml").write_text(BARE_CONFIG + "hooks:\n  - raw_hook.py\n", encoding="utf-8")
    (dest / "raw_hook.py").write_text(RAW_HOOK, encoding="utf-8")
    (dest / "docs" / "index.md").write_text("# Floor\n", encoding="utf-8")
    for rel, text in pages.items():
        path = dest / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return dest


def _is_algorithm_page(rel: str) -> bool:
    return rel.startswith("algorithms/") and rel.count("/") == 1


def articles(site: Path, *, algorithms_only: bool) -> dict[str, str]:
    """Every built page's article HTML (page path -> HTML)."""
    pages = {}
    for html in sorted(site.rglob("index.html")):
        rel = html.parent.relative_to(site).as_posix()
        if rel in (".", "") or rel.startswith(("embed", "api")):
            continue
        if algorithms_only and not _is_algorithm_page(rel):
            continue
        match = _ARTICLE.search(html.read_text(encoding="utf-8"))
        if match:
            pages[rel] = match.group(1).strip()
    return pages


def raw_pages(html_by_page: dict[str, str], *, parsed: bool = False) -> dict[str, str]:
    """Article HTML as pages (docs path -> text): raw HTML the page holds as it is, or
    (``parsed``) a block of HTML in Markdown, which Python-Markdown's HTML parser reads."""
    head = "" if parsed else RAW_MARK
    return {f"{rel}.md": f"{head}<div>\n{html}\n</div>\n" for rel, html in html_by_page.items()}


def floor_pages(real: Path, big: Path, *, parsed: bool = False) -> dict[str, str]:
    """Issue 47's floor: each algorithm page of the ``big`` build with the article HTML an
    algorithm page has in the ``real`` catalog's build (a synthetic page: its template's), as
    raw HTML; ``parsed``: as HTML in Markdown (this benchmark's floor before issue 47)."""
    own = articles(real, algorithms_only=True)
    template = own[f"algorithms/{TEMPLATE_ALGORITHM}"]
    pages = {rel: own.get(rel, template) for rel in articles(big, algorithms_only=True)}
    return raw_pages(pages, parsed=parsed)


def thin_pages(n: int) -> dict[str, str]:
    return {f"algorithms/thin_{i:04d}.md": f"# Thin {i}\n\nA thin page.\n"
            for i in range(1, n + 1)}


def bare_build(work: Path, label: str, pages: dict[str, str]) -> Built:
    return mkdocs_build(bare_project(work / label.split(",")[0].replace(" ", "_"), pages), label)


# --------------------------------------------------------------------------- sizes


def _is_png(rel: str) -> bool:
    return rel.endswith(".png")


def sizes_mb(site: Path) -> dict[str, float]:
    """MB of the site without PNG images and of its PNG images, every path counted (the host
    serves each), and the same counting each file's bytes once (hard links)."""
    out = {"other": 0.0, "png": 0.0, "other unique": 0.0, "png unique": 0.0}
    seen: set[tuple[int, int]] = set()
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        st, kind = path.stat(), "png" if _is_png(path.name) else "other"
        out[kind] += st.st_size / 1e6
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            out[f"{kind} unique"] += st.st_size / 1e6
    return out


def page_kb(path: Path) -> tuple[float, float]:
    data = path.read_bytes()
    return len(data) / 1e3, len(gzip.compress(data, 6)) / 1e3


AREAS = (("chart images (embed/*/*.png)", lambda r: r.startswith("embed/") and _is_png(r)),
         ("other per-chart files (embed/: page, SVG, CSV, JSON, oEmbed, spec)",
          lambda r: r.startswith("embed/")),
         ("algorithm pages", lambda r: r.startswith("algorithms/")),
         ("per-algorithm files (calculator/algorithms/)",
          lambda r: r.startswith("calculator/algorithms/")),
         ("API (api/)", lambda r: r.startswith("api/")),
         ("search index", lambda r: r.startswith("search/")),
         ("theme and vendor assets", lambda r: r.startswith("assets/")),
         ("everything else", lambda r: True))
"""Where a site's bytes go, first match wins."""


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


# --------------------------------------------------------------------------- timing


def median_of(runs: list[Built]) -> Built:
    """Median wall and median CPU seconds of ``runs`` (each its own median)."""
    label = f"{runs[0].label} (median of {len(runs)})" if len(runs) > 1 else runs[0].label
    return Built(label, statistics.median(b.cpu for b in runs),
                 statistics.median(b.wall for b in runs), runs[0].site,
                 statistics.median(b.load for b in runs))


@dataclass(frozen=True)
class Timed:
    """The medians of the alternating runs, and the per-pair wall ratios."""

    small: Built
    big: Built
    floor: Built
    pair_ratios: list[float]


def alternate(small: Path, big: Path, floor: Path, pairs: int) -> Timed:
    """Rebuild at 100, rebuild at 1,000 and the floor, run in turn ``pairs`` times: the
    machine's speed drifts, so only builds made side by side are compared."""
    runs: dict[str, list[Built]] = {"small": [], "big": [], "floor": []}
    for i in range(pairs):
        runs["small"].append(mkdocs_build(small, f"rebuild, {small.name}"))
        runs["big"].append(mkdocs_build(big, f"rebuild, {big.name}"))
        runs["floor"].append(mkdocs_build(floor, "floor, real algorithm pages' article HTML"))
        print(f"pair {i + 1}: " + "; ".join(runs[k][-1].line() for k in runs), flush=True)
    ratios = [b.wall / f.wall for b, f in zip(runs["big"], runs["floor"], strict=True)]
    return Timed(*(median_of(runs[k]) for k in ("small", "big", "floor")), ratios)


# --------------------------------------------------------------------------- report


def _check(name: str, value: float, target: float | None, missed: list[str]) -> None:
    verdict = "" if target is None else ("  ok" if value <= target else "  MISSED")
    print(f"{name:<60}{value:>8.2f}" + (f"  (target <= {target:g}){verdict}" if target else ""))
    if target is not None and value > target:
        missed.append(name)


def report_times(t: Timed, firsts: list[Built], missed: list[str]) -> None:
    """The builds' times and the timing checks; ``firsts``: the first builds, then the parsed
    floor."""
    print(f"\n{'build':<58}{'wall s':>9}{'CPU s':>9}{'load':>7}")
    for b in [*firsts, t.small, t.big, t.floor]:
        print(f"{b.label:<58}{b.wall:>9.1f}{b.cpu:>9.1f}{b.load:>7.1f}")
    print()
    _check("rebuild / same-content floor, 1,000, WALL", t.big.wall / t.floor.wall,
           TARGET_FLOOR_RATIO, missed)
    _check("rebuild / same-content floor, 1,000, CPU", t.big.cpu / t.floor.cpu, None, missed)
    print(f"  per-pair wall ratios: {', '.join(f'{r:.2f}' for r in t.pair_ratios)}")
    _check("rebuild t(1,000) / t(100), WALL", t.big.wall / t.small.wall, TARGET_LINEARITY,
           missed)
    _check("rebuild t(1,000) / t(100), CPU", t.big.cpu / t.small.cpu, None, missed)
    _check("cold first build / floor, 1,000, WALL (reported)", firsts[-2].wall / t.floor.wall,
           None, missed)


def report_sizes(real: Path, big: Path, missed: list[str]) -> None:
    sizes = sizes_mb(big)
    print()
    _check("site without PNG images, MB at 1,000", sizes["other"], TARGET_SITE_MB, missed)
    _check("PNG images, MB at 1,000", sizes["png"], TARGET_PNG_MB, missed)
    print(f"  each file's bytes once (hard links): {sizes['other unique']:.1f} MB without "
          f"PNG, {sizes['png unique']:.1f} MB PNG")
    index_kb, index_gz = page_kb(big / "algorithms" / "index.html")
    _check("algorithms index KB gzipped at 1,000", index_gz, TARGET_INDEX_GZ_KB, missed)
    grpo0 = page_kb(real / "algorithms" / "grpo" / "index.html")
    grpo_n = page_kb(big / "algorithms" / "grpo" / "index.html")
    grown = round((grpo_n[0] - grpo0[0]) * 1e3)
    ok = grown <= GRPO_SLACK_BYTES
    print(f"{'GRPO page KB (gzipped), real catalog':<60}{grpo0[0]:>8.1f} ({grpo0[1]:.1f})")
    print(f"{'GRPO page KB (gzipped), 1,000 extra':<60}{grpo_n[0]:>8.1f} ({grpo_n[1]:.1f})"
          f"  {grown:+d} bytes (target <= +{GRPO_SLACK_BYTES})" + ("  ok" if ok else "  MISSED"))
    if not ok:
        missed.append("GRPO page grows with the catalog")
    print(f"algorithms index at 1,000: {index_kb:.0f} KB ({index_gz:.0f} KB gzipped)")
    print(f"\nsite at 1,000 by area{'files':>46}{'MB':>9}")
    for name, files, mb in breakdown(big):
        print(f"  {name:<72}{files:>6}{mb:>9.1f}")
    print("\nlargest pages at 1,000 (KB, gzipped KB):")
    for rel, kb, gz in largest_pages(big):
        print(f"  {rel:<58}{kb:>9.0f}{gz:>9.0f}")


def extra_floors(work: Path, big: Built, n: int) -> None:
    """Bare Material with every page's article of the 1,000 build, and with thin pages."""
    for built in (bare_build(work, "floor all, every page's article HTML of the 1,000 build",
                             raw_pages(articles(big.site, algorithms_only=False))),
                  bare_build(work, f"thin, bare Material, {n} thin pages", thin_pages(n + 11))):
        print(built.line())


def profile_rebuild(work: Path, project: Path) -> None:
    out = work / "profile.out"
    mkdocs_build(project, "profiled rebuild", profile=out)
    print(f"cProfile of a rebuild: {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[100, 1000])
    parser.add_argument("--keep", type=Path, help="work in DIR and keep it (default: a temp dir)")
    parser.add_argument("--profile", action="store_true", help="cProfile a 1,000 rebuild")
    parser.add_argument("--pairs", type=int, default=3,
                        help="rebuild/floor runs made alternately (medians are reported)")
    parser.add_argument("--extra-floors", action="store_true")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="tn-scale-"))
    missed: list[str] = []
    try:
        firsts, validates = [], {}
        for n in (0, *args.sizes):
            built, validates[n] = build_catalog(n, work)
            firsts.append(built)
            print(built.line() + f"; validate {validates[n]:.1f} s CPU", flush=True)
        real, small, big = firsts
        floor = bare_project(work / "floor", floor_pages(real.site, big.site))
        timed_runs = alternate(small.site.parent, big.site.parent, floor, args.pairs)
        parsed = bare_build(work, "floor, the same HTML parsed as Markdown (reference)",
                            floor_pages(real.site, big.site, parsed=True))
        report_times(timed_runs, [*firsts, parsed], missed)
        report_sizes(real.site, big.site, missed)
        if args.extra_floors:
            extra_floors(work, big, args.sizes[-1])
        if args.profile:
            profile_rebuild(work, big.site.parent)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if missed:
        print("\nmissed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
