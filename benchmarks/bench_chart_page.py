"""Benchmark: weight and Lighthouse score of a chart page against a naive Plotly page.

Builds the site once (``mkdocs build --strict`` into a temporary folder), writes beside it a
baseline page made the naive way for the same chart (``fig.to_html(include_plotlyjs=True)``:
plotly.js inlined in the HTML), serves both from one local server that gzips text like any
static host (GitHub Pages, Netlify), then measures in Debian's Chromium:

1. bytes transferred before the chart is first rendered (Resource Timing ``transferSize`` of
   every response that ended before that moment): for our page, the first paint of the chart
   (its static SVG) and, separately, the interactive Plotly chart after the reader hovers it;
   for the baseline, Plotly's first drawn trace;
2. Lighthouse mobile performance (npm ``lighthouse``, installed into benchmarks/node_modules on
   first use) of the chart page as a reader lands on it (/algorithms/), of the same page opened
   at the chart (/algorithms/#convergence, chart in the first viewport), of the embed page, and
   of the baseline. Median of ``--runs`` runs each.

Target: Lighthouse performance >= 0.90 on the chart page. Exit status 1 if missed.
Usage: .venv/bin/python benchmarks/bench_chart_page.py [--runs 3] [--site DIR]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import ClassVar

import plotly.graph_objects as go
from playwright.sync_api import sync_playwright

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.charts import plotlyspec
from tinkernomics.site.charts import spec as charts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
CHART_ID = charts.COMPARISON_ID
TARGET_SCORE = 0.90
BASELINE_DIR = "_baseline"
GZIP_TYPES = (".html", ".css", ".js", ".json", ".svg", ".xml", ".csv", ".txt")
PAGES = {
    "chart page (/algorithms/)": "algorithms/",
    "chart page, opened at the chart": "algorithms/#convergence",
    "embed page": f"embed/{CHART_ID}/",
    "baseline (to_html, plotly inlined)": f"{BASELINE_DIR}/",
}
TARGET_PAGE = "chart page (/algorithms/)"
METRICS = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
           "cumulative-layout-shift", "speed-index")


# --------------------------------------------------------------------------- site and baseline


def build_site(dest: Path) -> None:
    subprocess.run([str(ROOT / ".venv" / "bin" / "mkdocs"), "build", "--strict", "--quiet",
                    "-d", str(dest)], cwd=ROOT, check=True,
                   env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def write_baseline(site: Path) -> Path:
    """The same chart, the way plotly.py makes a page by default (plotly.js inlined)."""
    chart = charts.build_chart(load_valid_catalog(ROOT / "catalog"), CHART_ID)
    spec = plotlyspec.plotly_figure(chart)
    fig = go.Figure(data=spec["data"], layout=spec["layout"])
    page = site / BASELINE_DIR / "index.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(fig.to_html(include_plotlyjs=True, full_html=True), encoding="utf-8")
    return page


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped (level 6, as typical hosts) when the client accepts it."""

    cache: ClassVar[dict[Path, bytes]] = {}

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in GZIP_TYPES):
            return super().send_head()
        body = self.cache.get(path)
        if body is None:
            body = self.cache[path] = gzip.compress(path.read_bytes(), 6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(GzipHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# --------------------------------------------------------------------------- bytes before render

_BYTES_UNTIL = """(t) => {
  const nav = performance.getEntriesByType('navigation')[0];
  let total = nav.transferSize;
  for (const r of performance.getEntriesByType('resource')) {
    if (r.responseEnd <= t) total += r.transferSize;
  }
  return total;
}"""

_FCP = """() => new Promise((resolve) => {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === 'first-contentful-paint') resolve(e.startTime);
    }
  }).observe({type: 'paint', buffered: true});
})"""


def measure_bytes(base: str) -> dict[str, int]:
    """Bytes transferred before each render, in a fresh browser context per page."""
    out: dict[str, int] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(base + "algorithms/#convergence", wait_until="load")
            page.wait_for_selector(f"#chart-{CHART_ID} .tn-svg--wide")
            out["ours: static chart at first paint"] = page.evaluate(_BYTES_UNTIL,
                                                                     page.evaluate(_FCP))
            page.hover(f"#chart-{CHART_ID} .tn-chart__frame")
            page.wait_for_selector(f"#chart-{CHART_ID}.tn-chart--ready .scatterlayer .trace")
            out["ours: interactive chart after hover"] = page.evaluate(
                _BYTES_UNTIL, page.evaluate("performance.now()"))
            page.context.close()

            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.goto(base + f"{BASELINE_DIR}/", wait_until="commit")
            page.wait_for_selector(".scatterlayer .trace", timeout=60_000)
            out["baseline: first trace drawn"] = page.evaluate(
                _BYTES_UNTIL, page.evaluate("performance.now()"))
            page.context.close()
        finally:
            browser.close()
    return out


# --------------------------------------------------------------------------- Lighthouse


def lighthouse_bin() -> Path:
    binary = BENCH / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        print("installing lighthouse into benchmarks/node_modules (npm ci)", file=sys.stderr)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=BENCH,
                       check=True)
    return binary


def lighthouse(url: str, workdir: Path) -> dict[str, float]:
    report = workdir / "lighthouse.json"
    subprocess.run(
        [str(lighthouse_bin()), url, "--only-categories=performance", "--output=json",
         f"--output-path={report}", "--quiet",
         "--chrome-flags=--headless=new " + " ".join(CHROME_ARGS)],
        check=True, env={**os.environ, "CHROME_PATH": CHROMIUM},
    )
    data = json.loads(report.read_text())
    out = {"score": data["categories"]["performance"]["score"]}
    out.update({m: data["audits"][m]["numericValue"] for m in METRICS})
    return out


def median_run(url: str, runs: int, workdir: Path) -> dict[str, float]:
    results = [lighthouse(url, workdir) for _ in range(runs)]
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


# --------------------------------------------------------------------------- report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page (median)")
    parser.add_argument("--site", type=Path, default=None,
                        help="an already built site to copy instead of building")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tn-bench-") as tmp:
        site = Path(tmp) / "site"
        if args.site:
            shutil.copytree(args.site, site)
        else:
            build_site(site)
        baseline = write_baseline(site)
        server, base = serve(site)
        try:
            sizes = measure_bytes(base)
            scores = {name: median_run(base + path, args.runs, Path(tmp))
                      for name, path in PAGES.items()}
        finally:
            server.shutdown()
        baseline_kib = baseline.stat().st_size / 1024
    print(f"baseline page: {baseline_kib:,.0f} KiB of HTML (plotly.js inlined)")
    print("\nbytes transferred before the chart renders (gzip, cold cache):")
    for name, value in sizes.items():
        print(f"  {name:40s} {value / 1024:10,.1f} KiB")
    ours = sizes["ours: static chart at first paint"]
    base_bytes = sizes["baseline: first trace drawn"]
    print(f"  ratio baseline / ours (first render)     {base_bytes / ours:10.1f}x")
    print(f"  ratio baseline / ours (interactive)      "
          f"{base_bytes / sizes['ours: interactive chart after hover']:10.2f}x")
    print(f"\nLighthouse mobile performance (median of {args.runs}):")
    print(f"  {'page':40s} {'score':>5s}  {'FCP':>7s} {'LCP':>7s} {'TBT':>7s} {'CLS':>6s}"
          f" {'SI':>7s}")
    for name, r in scores.items():
        print(f"  {name:40s} {r['score']:5.2f}  {r['first-contentful-paint'] / 1000:6.2f}s"
              f" {r['largest-contentful-paint'] / 1000:6.2f}s {r['total-blocking-time']:5.0f}ms"
              f" {r['cumulative-layout-shift']:6.3f} {r['speed-index'] / 1000:6.2f}s")
    score = scores[TARGET_PAGE]["score"]
    ok = score >= TARGET_SCORE
    print(f"\ntarget: Lighthouse >= {TARGET_SCORE:.2f} on the chart page: "
          f"{'met' if ok else 'MISSED'} ({score:.2f})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
