"""Benchmark: Lighthouse accessibility of every page type beside a bare Material page.

Builds the site (``mkdocs build --strict`` into a temporary folder) and, in the same run, a bare
Material site with our theme settings (tests/helpers_a11y.py), serves both gzipped from one
local server (bench_chart_page.GzipHandler), and runs Lighthouse's accessibility category
(mobile, npm ``lighthouse`` from benchmarks/node_modules) in Debian's Chromium on one page of
every type, light and dark (``--force-dark-mode`` makes Chromium prefer a dark scheme, which
Material's palette and the embed page follow), printing each score, the bare page's score, and
the audits that failed.

Target: accessibility >= 0.98 on every page type. Exit status 1 if missed.
Usage: .venv/bin/python benchmarks/bench_a11y.py [--site DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_chart_page import CHROME_ARGS, CHROMIUM, build_site, lighthouse_bin, serve

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from helpers_a11y import PAGE_TYPES, bare_material_site  # noqa: E402

TARGET_SCORE = 0.98
BARE_DIR = "_bare"
BARE_PAGES = {"bare Material page (in the nav)": f"{BARE_DIR}/algorithms/",
              "bare Material page (outside the nav)": f"{BARE_DIR}/outside/"}


SCHEME_FLAGS = {"light": [], "dark": ["--force-dark-mode"]}


def accessibility(url: str, workdir: Path, scheme: str) -> tuple[float, list[str]]:
    """Lighthouse's accessibility score of ``url`` and the ids of the audits it failed."""
    report = workdir / "lighthouse.json"
    flags = ["--headless=new", *CHROME_ARGS, *SCHEME_FLAGS[scheme]]
    subprocess.run(
        [str(lighthouse_bin()), url, "--only-categories=accessibility", "--output=json",
         f"--output-path={report}", "--quiet", "--chrome-flags=" + " ".join(flags)],
        check=True, env={**os.environ, "CHROME_PATH": CHROMIUM},
    )
    data = json.loads(report.read_text())
    refs = data["categories"]["accessibility"]["auditRefs"]
    failed = [r["id"] for r in refs
              if r["weight"] > 0 and data["audits"][r["id"]]["score"] not in (None, 1)]
    return data["categories"]["accessibility"]["score"], failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=None,
                        help="an already built site to copy instead of building")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tn-a11y-") as tmp:
        site = Path(tmp) / "site"
        if args.site:
            shutil.copytree(args.site, site)
        else:
            build_site(site)
        shutil.copytree(bare_material_site(Path(tmp) / "bare"), site / BARE_DIR)
        server, base = serve(site)
        try:
            pages = {**PAGE_TYPES, **BARE_PAGES}
            results = {(name, scheme): accessibility(base + path, Path(tmp), scheme)
                       for name, path in pages.items() for scheme in SCHEME_FLAGS}
        finally:
            server.shutdown()
    print("Lighthouse accessibility (mobile), each page once (the score is deterministic):")
    print(f"  {'page':38s} {'light':>5s} {'dark':>5s}  failed audits")
    for name in pages:
        light, dark = results[(name, "light")], results[(name, "dark")]
        failed = sorted({*light[1], *dark[1]})
        print(f"  {name:38s} {light[0]:5.2f} {dark[0]:5.2f}  {', '.join(failed)}")
    worst = min(score for (name, _), (score, _) in results.items() if name in PAGE_TYPES)
    ok = worst >= TARGET_SCORE
    print(f"\ntarget: accessibility >= {TARGET_SCORE:.2f} on every page type: "
          f"{'met' if ok else 'MISSED'} (lowest {worst:.2f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
