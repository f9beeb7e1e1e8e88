"""The one file per algorithm that pages fetch on demand (pipeline step 6: a feature module of
``site.build``, listed after the calculator and compare features whose parts it writes).

``calculator/algorithms/<id>.json`` (``pagedata.ALGORITHM_FILES``) is a JSON object: the
calculator's data of the algorithm (``pagedata.algorithm_data``: roles, typical G and K, ScaleRL
fit, its figures' provenance) and, under ``"column"`` (``COLUMN``), the compare view's column of
it as HTML (``compare.feature.columns``, less the pieces ``compare/shared.json`` holds). The
calculator page fetches it when an algorithm is chosen, the compare page when a link's
selection names it; each reads its own keys.

Issue 47: the two were two files per algorithm (``compare/columns/<id>.html`` and this one),
2,000 files to create at 1,000 algorithms on every build; one file serves both pages. It is
plain compact JSON (``file_text``), served as data (``application/json``: a browser that opens
it shows text and runs nothing); the column's markup is the templates' own with catalog text
escaped, as it was in the column's HTML file. (Written as ``template_json`` writes JSON, every
``<`` of the markup a six-byte escape, the files were a fifth larger.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES, CALCULATOR, algorithm_data
from tinkernomics.site.compare.feature import columns
from tinkernomics.site.pages.views import Links
from tinkernomics.site.postbuild import inplace

COLUMN = "column"
"""The key of the compare view's column in an algorithm's file (compare.js reads it)."""


def algorithm_files(ctx: SiteContext) -> dict[str, dict[str, Any]]:
    """Every algorithm's file as data, by id: the calculator's keys and the compare column."""
    catalog = ctx.catalog
    links = Links(CALCULATOR)
    column = columns(ctx)[0]
    found: dict[str, dict[str, Any]] = {}
    for aid, algo in catalog.algorithms.items():
        data = algorithm_data(catalog, algo, links)
        if COLUMN in data:  # pragma: no cover - a calculator key taking the column's name
            raise ValueError(f"algorithm file {aid}: the calculator's data has {COLUMN!r}")
        data[COLUMN] = column[aid]
        found[aid] = data
    return found


def file_text(data: dict[str, Any]) -> str:
    """An algorithm's file as written: compact JSON, keys sorted, no NaN."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True,
                      allow_nan=False)


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """``calculator/algorithms/<id>.json`` for every algorithm (its folder made once)."""
    folder = os.path.join(site_dir, ALGORITHM_FILES)
    os.makedirs(folder, exist_ok=True)
    for aid, data in algorithm_files(ctx).items():
        inplace.write_over(os.path.join(folder, f"{aid}.json"), file_text(data).encode("utf-8"))


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """No macros: the feature only writes files."""
    return {}
