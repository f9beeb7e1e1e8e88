"""``tinkernomics chart ID --format html|json|csv -o FILE``: a chart for use outside the site.

Pipeline step 6 run from the command line: the catalog is validated, the chart built by
``charts.build_chart`` exactly as for the site, and written as
- ``csv``: one row per curve point with its status; sources and licence on a curve's first row;
- ``json``: parameters, points, sources and licence (the site's ``embed/<id>/data.json``);
- ``html``: one self-contained page (the chart's CSS, the loader's scripts joined in load
  order and plotly.js from the installed plotly package inlined: about 5 MB, works offline), or
  with ``--plotly-src URL`` a small page that loads plotly.js from that URL (e.g. a copy you
  host; never a CDN default).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import spec as charts

FORMATS = ("html", "json", "csv")
HELP = """Export one chart, built from the validated catalog exactly as on the site.

  csv   one row per curve point; sources and licence on each curve's first row
  json  parameters, points, sources and licence (as the site's embed/<ID>/data.json)
  html  a standalone page; plotly.js from the installed plotly package is INLINED
        (about 5 MB, works offline), unless --plotly-src URL names a copy to load
"""
OVERRIDES = Path("site_overrides")


PACKAGE_PROJECT = Path(__file__).resolve().parents[3]
"""The checkout this package runs from (editable install): its site_overrides/ is the fallback."""


def project_for(catalog_dir: Path) -> Path:
    """The project whose site_overrides/ holds the chart CSS and loader: the catalog's parent
    folder if it has one (a site checkout), else the checkout of this package."""
    parent = catalog_dir.resolve().parent
    return parent if (parent / OVERRIDES).is_dir() else PACKAGE_PROJECT


def _asset_text(project: Path, relative: str) -> str:
    return (project / OVERRIDES / relative).read_text(encoding="utf-8")


def loader_js(project: Path) -> str:
    """The chart loader's files joined in load order, for a page that inlines its script."""
    return "\n".join(_asset_text(project, name) for name in chartsite.LOADER_SCRIPTS)


def export_text(chart: charts.Chart, fmt: str, *, project: Path, site_url: str = "",
                plotly_src: str = "") -> str:
    """The chart in one format, as text."""
    if fmt == "csv":
        return chartdata.to_csv(chart, site_url)
    if fmt == "json":
        return json.dumps(chartdata.to_json(chart, site_url), ensure_ascii=False, indent=2,
                          allow_nan=False) + "\n"
    if fmt != "html":
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    assets = chartsite.Assets(
        root="",
        inline_css=_asset_text(project, chartsite.CHART_CSS),
        inline_js=loader_js(project),
        inline_plotly="" if plotly_src else chartsite.plotly_js_path().read_text("utf-8"),
        plotly_src=plotly_src,
    )
    return chartsite.render_standalone(chart, site_url, mode=chartsite.EXPORT, assets=assets)


def cmd_chart(args: argparse.Namespace) -> int:
    catalog_dir = Path(args.catalog)
    try:
        catalog = load_valid_catalog(catalog_dir)
    except CatalogError as err:
        print(err, file=sys.stderr)
        return 1
    try:
        chart = charts.build_chart(catalog, args.chart_id)
        chart = dataclasses.replace(chart, date=charts.data_date(catalog, chart))
    except charts.UnknownChartError as err:
        print(f"tinkernomics chart: {err}", file=sys.stderr)
        return 2
    text = export_text(chart, args.format, project=project_for(catalog_dir), site_url=args.site_url,
                       plotly_src=args.plotly_src)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {args.output} ({args.format}, chart {chart.id})", file=sys.stderr)
    return 0


def add_chart_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "chart", help="export a chart (scalerl-comparison, scalerl-<algorithm>) as html/json/csv",
        description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("chart_id", metavar="ID", help="chart id, e.g. scalerl-comparison")
    p.add_argument("--format", choices=FORMATS, default="html", help="output format")
    p.add_argument("-o", "--output", default=None, help="output file (default: stdout)")
    p.add_argument("--catalog", default="catalog", help="catalog folder (default: catalog)")
    p.add_argument("--site-url", default="", help="published site URL for links and credits")
    p.add_argument("--plotly-src", default="",
                   help="html only: load plotly.js from this URL instead of inlining it")
    p.set_defaults(func=cmd_chart)
