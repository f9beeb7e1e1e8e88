"""Issue 47: the charts feature writes every image once. A byte-identical copy under a second
name (the dated ``chart-<date>.png`` beside ``chart.png`` was one) costs its bytes again on
GitHub Pages, whose artifact upload turns hard links and symlinks into copies; so no two PNGs the
feature writes may hold the same bytes, and no chart folder may hold two equal files."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

import pytest
from helpers_charts import shared_fitted_site

from tinkernomics.site.charts import feature as chartsite


def _same_bytes(paths: list[Path], root: Path) -> list[list[str]]:
    """Groups of two or more of ``paths`` with equal bytes (as paths relative to ``root``)."""
    by_hash: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        by_hash[hashlib.sha256(path.read_bytes()).hexdigest()].append(
            path.relative_to(root).as_posix())
    return [sorted(group) for group in by_hash.values() if len(group) > 1]


@pytest.fixture(scope="module")
def site() -> Path:
    """The feature's outputs of the fitted catalog, images drawn (the run's shared write)."""
    return shared_fitted_site()


def test_no_two_images_hold_the_same_bytes(site: Path) -> None:
    pngs = sorted(site.rglob("*.png"))
    assert len(pngs) > 10  # every variant and card of the fixture's charts
    assert _same_bytes(pngs, site) == []


def test_no_chart_folder_holds_two_equal_files(site: Path) -> None:
    folders = [p for p in (site / chartsite.EMBED_DIR).iterdir() if p.is_dir()]
    assert folders
    for folder in folders:
        assert _same_bytes([p for p in folder.iterdir() if p.is_file()], site) == []
