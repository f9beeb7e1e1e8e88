"""The site's one stylesheet and one script (pipeline step 6, written after the pages; page
loading speed and bytes).

Our styles and scripts are kept as source files per feature under ``site_overrides/assets/``
(stylesheets: pages, tables, blocks, accessibility, charts, the calculator's parts, algorithms
index, compare; scripts: the chart loader and its share tools, the algorithms table, the
calculator loader, the compare view, search terms), each under the size rules, which the
generator copies into the site. Every page needs all of them, and each separate file in a page
is a tag on every page (issue 47: six script tags were 0.4 MB at 1,000 algorithms) and a
request; a stylesheet in ``<head>`` holds the first paint back on a slow connection
(benchmarks/bench_chart_page.py measures the page). So the outputs step joins each kind, in
order, into one file: ``assets/stylesheets/site.css`` (cascade order) and
``assets/javascripts/site.js`` (the order the scripts ran in as separate deferred tags), the only
ones of ours ``site_overrides/main.html`` links (``mkdocs.yml`` names ``site.js`` as its one
``extra_javascript``, deferred). The sources stay in the site: the embed pages link
``charts.css`` and the chart scripts alone (``charts.feature.LOADER_SCRIPTS``).

Each script is a function expression called at once (its names stay its own), and the scripts
that find their neighbours by their own address (``document.currentScript``: plotly.js,
calculator.js) find them in the same folder from ``site.js``.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = "assets/stylesheets"
SOURCES = ("tinkernomics.css", "tables.css", "blocks.css", "accessibility.css", "charts.css",
           "calculator.css", "calculator-summary.css", "calculator-ways.css",
           "algorithms-table.css", "compare.css")
"""In cascade order: later files may refine earlier ones. A file split in two keeps its parts
side by side, in its order, so every rule keeps its place in the cascade."""
BUNDLE = "site.css"
GENERATED = "theme-icons.css"
"""Joined last when the build wrote it: the rules of the theme's icons, which the MkDocs hooks
write before this step (``macros/theme_icons.py``, the theme adapter's rule 11); a build
without the hooks (Zensical) keeps the theme's inline icons and has no such file."""

SCRIPT_FOLDER = "assets/javascripts"
SCRIPT_SOURCES = (
    "charts-share.js",       # copy buttons and the embed box, started by charts.js
    "charts.js",             # the chart loader (fetches plotly.js only on a page with a chart)
    "algorithms-table.js",   # sorting and filtering of the algorithms index
    "calculator-loader.js",  # adds calculator.js and its parts where a page has a calculator
    "compare.js",            # the compare view's columns for a link's ?a= selection
    "search-terms.js",       # every word of a search query required
    "badge-meanings.js",     # a status badge's meaning (said once a page) as its tooltip
)
"""In the order they run: charts-share.js before charts.js, which starts it."""
SCRIPT_BUNDLE = "site.js"


def _joined(folder: Path, names: tuple[str, ...], separator: str = "") -> list[str]:
    parts = []
    for name in names:
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: asset missing from the built site "
                                    f"(postbuild/stylesheets.py names it)")
        parts.append(f"/* ---- {name} ---- */\n{path.read_text(encoding='utf-8').strip()}"
                     f"{separator}\n")
    return parts


def bundle_text(folder: Path) -> str:
    """The sources of ``folder`` joined, each introduced by a comment naming its file."""
    parts = _joined(folder, SOURCES)
    generated = folder / GENERATED
    if generated.is_file():
        parts.append(f"/* ---- {GENERATED} ---- */\n{generated.read_text(encoding='utf-8')}")
    return "\n".join(parts)


def script_text(folder: Path) -> str:
    """The scripts of ``folder`` joined in order, each ended by ``;`` (a statement of its own
    whatever its last line) and introduced by a comment naming its file."""
    return "\n".join(_joined(folder, SCRIPT_SOURCES, ";"))


def write_bundle(site_dir: Path) -> Path:
    """Write ``assets/stylesheets/site.css`` and ``assets/javascripts/site.js`` from the copied
    sources; return the stylesheet's path."""
    (site_dir / SCRIPT_FOLDER / SCRIPT_BUNDLE).write_text(
        script_text(site_dir / SCRIPT_FOLDER), encoding="utf-8")
    folder = site_dir / FOLDER
    target = folder / BUNDLE
    target.write_text(bundle_text(folder), encoding="utf-8")
    return target
