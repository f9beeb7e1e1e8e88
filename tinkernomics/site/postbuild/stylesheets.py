"""The site's one stylesheet (pipeline step 6, written after the pages; page loading speed).

Our styles are kept as source files per feature under ``site_overrides/assets/stylesheets/``
(pages, tables, blocks, accessibility, charts, the calculator's parts, algorithms index,
compare; each under the 400-line rule), which the generator copies into the site. Every
page needs all of them, and each separate stylesheet in ``<head>`` is a request that holds the
first paint back on a slow connection (benchmarks/bench_chart_page.py measures the page).
So the outputs step joins them, in cascade order, into ``assets/stylesheets/site.css``, the only
stylesheet of ours that ``site_overrides/main.html`` links. The sources stay in the site:
the embed pages link ``charts.css`` alone.
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


def bundle_text(folder: Path) -> str:
    """The sources of ``folder`` joined, each introduced by a comment naming its file."""
    parts = []
    for name in SOURCES:
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: stylesheet missing from the built site "
                                    f"(postbuild/stylesheets.py SOURCES names it)")
        parts.append(f"/* ---- {name} ---- */\n{path.read_text(encoding='utf-8').strip()}\n")
    generated = folder / GENERATED
    if generated.is_file():
        parts.append(f"/* ---- {GENERATED} ---- */\n{generated.read_text(encoding='utf-8')}")
    return "\n".join(parts)


def write_bundle(site_dir: Path) -> Path:
    """Write ``assets/stylesheets/site.css`` from the copied sources; return its path."""
    folder = site_dir / FOLDER
    target = folder / BUNDLE
    target.write_text(bundle_text(folder), encoding="utf-8")
    return target
