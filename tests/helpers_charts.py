"""Test helpers for charts: a catalog with several ScaleRL fits, and the formula written out.

``fitted_catalog(tmp_path)`` copies the valid fixture (one fit: GRPO, unverified) and adds two
algorithms derived from its file: ``cispo`` (reported parameters, with R0) and ``dapo``
(unverified). The formula below is typed here again on purpose: tests check the package's
curve points against it, computed from the catalog's own values.

``shared_fitted_site()``: the charts feature's outputs of that catalog, written ONCE per test run
(every xdist worker shares them, ``conftest_site.SHARED_ENV``) for the tests that only read them:
drawing its chart images is the costly part of each write.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest_site import SHARED_ENV
from filelock import FileLock
from helpers_catalog import copy_valid, write_file

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import embed, feature, files, share
from tinkernomics.site.charts import images as chartimages
from tinkernomics.site.charts import spec as charts


def reward(fit: m.ScaleRLFit, compute: float) -> float:
    """R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B), percentages as fractions, R0 = 0 if absent."""
    a = fit.A.value / 100
    r0 = fit.R0.value / 100 if fit.R0 is not None else 0.0
    return r0 + (a - r0) / (1 + (fit.C_mid.value / compute) ** fit.B.value)


def _variant(grpo: str, algo_id: str, name: str, a: str, b: str, c_mid: str, *,
             reported: bool, r0: str | None = None) -> str:
    text = grpo.replace("id: grpo", f"id: {algo_id}").replace("name: GRPO", f"name: {name}")
    text = text.replace("    value: 50\n", f"    value: {a}\n", 1)
    text = text.replace("    value: 1.8\n", f"    value: {b}\n", 1)
    text = text.replace("    value: 4000\n", f"    value: {c_mid}\n", 1)
    if reported:  # the fixture's charted fit is read off a plot (derived): make it reported
        text = text.replace("status: derived\n    source: scalerl_khatri",
                            "status: reported\n    source: scalerl_khatri", 3)
        text = text.replace("locator: Figure 2 (read off the plot)",
                            "locator: 'Figure 2 (read off the plot), legend \"the fit\"'", 3)
    if r0 is not None:
        text = text.replace("notes: >-", "  R0:\n    value: " + r0 + "\n    unit: percent\n"
                            "    status: reported\n    source: scalerl_khatri\n"
                            "    locator: 'Figure 2, \"where the curve starts\"'\nnotes: >-", 1)
    return text


def fitted_catalog_dir(tmp_path: Path) -> Path:
    root = copy_valid(tmp_path)
    grpo = (root / "algorithms" / "grpo.yaml").read_text(encoding="utf-8")
    write_file(root, "algorithms/cispo.yaml",
               _variant(grpo, "cispo", "CISPO", "61", "1.97", "2500", reported=True, r0="12"))
    write_file(root, "algorithms/dapo.yaml",
               _variant(grpo, "dapo", "DAPO", "52", "2", "3500", reported=False))
    return root


def fitted_catalog(tmp_path: Path) -> Catalog:
    return load_valid_catalog(fitted_catalog_dir(tmp_path))


@pytest.fixture(scope="module", name="catalog")
def fitted_catalog_fixture(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """``catalog``: the fitted catalog, once per test module that imports this."""
    return fitted_catalog(tmp_path_factory.mktemp("fitted"))


@pytest.fixture(scope="module", name="grpo")
def fitted_grpo_fixture(catalog: Catalog) -> charts.Chart:
    """``grpo``: GRPO's chart from the fitted catalog, on a fixed date."""
    return charts.build_chart(catalog, "scalerl-grpo", date="2026-11-30")


def csv_rows(text: str) -> list[dict[str, str]]:
    """Rows of a chart CSV, after its ``#`` metadata lines (as ``read_csv(comment="#")``)."""
    import csv

    body = [line for line in text.splitlines() if not line.startswith("#")]
    return list(csv.DictReader(body))


def csv_metadata(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("# ")]


def many_fits_catalog_dir(tmp_path: Path, fitted: int, unfitted: int = 0) -> Path:
    """The fitted catalog plus ``fitted`` synthetic algorithms with unverified fits (C_mid
    spread over two decades) and ``unfitted`` without a fit: a catalog at scale."""
    root = fitted_catalog_dir(tmp_path)
    grpo = (root / "algorithms" / "grpo.yaml").read_text(encoding="utf-8")
    for i in range(fitted):
        c_mid = f"{round(300 * 10 ** (2 * i / max(fitted, 1)))}"
        text = _variant(grpo, f"synth{i:04d}", f"Synth {i:04d}", f"{40 + i % 25}",
                        f"{1.5 + (i % 7) / 10:.1f}", c_mid, reported=False)
        write_file(root, f"algorithms/synth{i:04d}.yaml", text)
    bare = re.sub(r"\nscalerl:\n(?:  [^\n]*\n|    [^\n]*\n)*", "\n", grpo)
    for i in range(unfitted):
        text = bare.replace("id: grpo", f"id: plain{i:04d}").replace(
            "name: GRPO", f"name: Plain {i:04d}")
        write_file(root, f"algorithms/plain{i:04d}.yaml", text)
    return root


def many_fits_catalog(tmp_path: Path, fitted: int, unfitted: int = 0) -> Catalog:
    return load_valid_catalog(many_fits_catalog_dir(tmp_path, fitted, unfitted))


def joined_spec(folder: Path) -> dict[str, Any]:
    """A chart folder's ``spec.json`` joined as charts.js joins it (``joined``): the shared
    ``spec-base.json`` it names (layout keys first) and its curves' points from ``data.json``."""
    spec = json.loads((folder / "spec.json").read_text("utf-8"))
    base = json.loads((folder / spec["base"]).read_text("utf-8"))
    points = spec["points"]
    series = json.loads((folder / points["file"]).read_text("utf-8"))["series"]
    out = {**base, **{k: v for k, v in spec.items() if k not in ("base", "points", "box")}}
    out["layout"] = {**base["layout"], **spec["layout"]}
    for index, s in zip(points["traces"], series, strict=True):
        for key in ("x", "y", "customdata"):
            out["data"][index][key] = [row[points[key]] for row in s["points"]]
    return out


STATIC_DRAWING_JS = """(() => {
  const img = [...document.querySelectorAll('.tn-chart__fallback img')]
    .find(i => i.getBoundingClientRect().width > 0);
  const layout = matchMedia('(max-width: 600px)').matches ? 'narrow' : 'wide';
  const box = img.closest('.tn-chart__frame');
  const vb = {width: layout === 'narrow' ? 400 : 720,
              height: parseFloat(getComputedStyle(box).getPropertyValue('--tn-h-' + layout))};
  const sb = img.closest('.tn-chart__fallback').getBoundingClientRect();
  return {vb, sb, scale: img.getBoundingClientRect().width / vb.width};
})()"""
"""JS: the static chart as shown (``charts.fallback``: the chart's file, its title cropped
off): ``vb`` the drawing's size in the file (the layout's width, the frame's ``--tn-h-*``,
lower while the legend is cropped), ``sb`` the box it is fitted into, ``scale`` the image's
shown width over the drawing's."""


def chart_file_names(chart: charts.Chart) -> list[str]:
    """Every file ``files.write_chart_files`` writes for ``chart``: the embed page, the data,
    every image variant as SVG and PNG, the card, the oEmbed and the spec, and the wide CSV
    of a chart of several curves."""
    variants = share.VARIANTS
    texts = ["data.csv", files.DATA_JSON, *(v.svg for v in variants), embed.OEMBED_FILE,
             files.SPEC_FILE]
    pngs = [*(v.png() for v in variants), "card.png"]
    wide = ["data-wide.csv"] if len(chart.series) > 1 else []
    return ["index.html", *texts, *pngs, *wide]


def write_chart_files(chart: charts.Chart, folder: Path, site_url: str,
                      cache: chartimages.ImageCache | None = None,
                      key: str | None = None) -> None:
    """One chart's embed page and every other file, as the charts feature writes them (its
    ``write_outputs`` hands ``files.write_chart_files`` the finished embed page)."""
    files.write_chart_files(chart, folder, site_url,
                                   feature.render_embed_page(chart, site_url), cache, key)


SHARED_SITE_URL = "https://example.org/tn/"
"""The site URL of ``shared_fitted_site``'s outputs."""


def shared_fitted_site() -> Path:
    """``write_outputs`` of the fitted catalog under ``SHARED_SITE_URL`` with a fresh image
    cache, made by the first test of the run to ask (a file lock: one process writes, the
    others wait) and READ-ONLY for every test. Its build starts the image workers
    (``start_outputs``), which must render every image of the empty cache."""
    shared = Path(os.environ[SHARED_ENV])
    folder = shared / "fitted-charts"
    with FileLock(str(shared / "fitted-charts.lock")):
        if not (folder / "done").exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed first writer left
            _write_fitted_site(folder)
            (folder / "done").write_text("", encoding="utf-8")
    return folder / "site"


def _write_fitted_site(folder: Path) -> None:
    ctx = SiteContext(root=folder, catalog=fitted_catalog(folder),
                      site_url=SHARED_SITE_URL)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(feature.IMAGE_CACHE_ENV, str(folder / "image-cache"))
        patch.setenv(feature.CHART_IMAGES_ENV, "1")
        feature.start_outputs(ctx)
        assert ctx.extra["image_prefill"].count == len(feature._image_jobs(ctx))
        feature.write_outputs(ctx, folder / "site")
