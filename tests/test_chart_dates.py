"""A chart's date (printed on its images as "data as of") comes from the catalog: the newest
publication or check date of the references the chart's numbers rest on. Never the build
day, the files' times or git: two builds of the same catalog write the same files, byte for
byte, under the same names."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers_charts import fitted_catalog_dir

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg

SITE_URL = "https://example.org/tn/"
BASE_CHECKED = "2026-08-01"
NEWER_CHECKED = "2026-09-15"


SOLO = "dapo_fit_source"
"""A reference only DAPO's fit cites (so some charts rest on it and some do not)."""


def _solo_reference(root: Path) -> None:
    """Give DAPO's fit a source of its own: a copy of the paper's reference under SOLO."""
    paper = (root / "references" / "scalerl_khatri.yaml").read_text(encoding="utf-8")
    copy = re.sub(r"(?m)^id: .*$", f"id: {SOLO}", paper)
    copy = re.sub(r"(?m)^title: .*$", "title: A second source for the DAPO fit", copy)
    copy = re.sub(r"(?m)^url: .*$", "url: https://example.org/dapo-fit", copy)
    copy = re.sub(r"(?m)^venue: .*$", "venue: Blog", copy)
    (root / "references" / f"{SOLO}.yaml").write_text(copy, encoding="utf-8")
    dapo = root / "algorithms" / "dapo.yaml"
    head, sep, tail = dapo.read_text(encoding="utf-8").partition("scalerl:")
    fit, rest_sep, rest = tail.partition("\nnotes:")
    dapo.write_text(head + sep + fit.replace("source: scalerl_khatri", f"source: {SOLO}")
                    + rest_sep + rest, encoding="utf-8")


def _catalog_dir(tmp_path: Path, name: str, *, newer: str = "") -> Path:
    """The fitted fixture catalog, DAPO's fit with a source of its own, every reference checked
    on ``BASE_CHECKED``, and the one reference ``newer`` (if given) checked on
    ``NEWER_CHECKED``."""
    root = fitted_catalog_dir(tmp_path / name)
    _solo_reference(root)
    for path in (root / "references").glob("*.yaml"):
        checked = NEWER_CHECKED if path.stem == newer else BASE_CHECKED
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"(?m)^checked: .*$", f"checked: {checked}", text),
                        encoding="utf-8")
    return root


def _charts(root: Path) -> dict[str, charts.Chart]:
    ctx = SiteContext(root=root, catalog=load_valid_catalog(root), site_url=SITE_URL)
    return chartsite._charts(ctx)


def test_a_chart_is_dated_by_the_newest_reference_its_numbers_rest_on(tmp_path: Path) -> None:
    built = _charts(_catalog_dir(tmp_path, "c", newer=SOLO))
    cites = {cid: {s.id for s in chart.sources} for cid, chart in built.items()}
    citing = {cid for cid, ids in cites.items() if SOLO in ids}
    assert citing and citing != set(built)  # the fixture has charts on each side
    for cid, chart in built.items():
        assert chart.date == (NEWER_CHECKED if cid in citing else BASE_CHECKED), cid
        assert f"data as of {chart.date}" in chartsvg.standalone_svg(chart, SITE_URL)


def _set_times(root: Path, stamp: int) -> None:
    for path in root.rglob("*"):
        os.utime(path, (stamp, stamp))


def _write(root: Path, out: Path) -> dict[str, bytes]:
    ctx = SiteContext(root=root, catalog=load_valid_catalog(root), site_url=SITE_URL)
    chartsite.write_outputs(ctx, out)
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*")) if p.is_file()}


def test_two_builds_of_the_same_data_write_the_same_files_whatever_the_day(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copies are not in git and their files carry different times (as a checkout made on
    another day): the chart files are the same."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setenv(chartsite.IMAGE_CACHE_ENV, str(tmp_path / "image-cache"))
    monkeypatch.setenv(chartsite.CHART_IMAGES_ENV, "1")
    first, second = _catalog_dir(tmp_path, "a"), _catalog_dir(tmp_path, "b")
    _set_times(first, 1_700_000_000)  # 2023-11-14
    _set_times(second, 1_800_000_000)  # 2027-01-15
    a, b = _write(first, tmp_path / "site-a"), _write(second, tmp_path / "site-b")
    assert f"embed/{charts.COMPARISON_ID}/chart.png" in a
    assert a.keys() == b.keys()
    for name, data in a.items():
        assert data == b[name], name
