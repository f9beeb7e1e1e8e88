"""The synthetic catalogs the benchmarks and `make test-scale` build (benchmarks/synth.py) pass
`validate`, so a catalog rule or a real entry the generator copies cannot break them unseen
until a 1,000-entry run: 40 algorithms cover every variant it cycles through (fits on odd
numbers, three memory profiles, the loss sets)."""

from __future__ import annotations

import sys
from pathlib import Path

from tinkernomics.catalog.loader import load_catalog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import make_project  # noqa: E402


def test_a_synthetic_catalog_validates(tmp_path: Path) -> None:
    project = make_project(40, tmp_path / "project")
    _, problems = load_catalog(project / "catalog", docs_dir=project / "docs")
    assert [str(p) for p in problems] == []
