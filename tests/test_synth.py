"""The synthetic catalogs the benchmarks and `make test-scale` build (benchmarks/synth.py, and
bench_validate.py's own) pass
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


def test_the_validate_benchmarks_catalog_validates(tmp_path: Path) -> None:
    """benchmarks/bench_validate.py times ``validate`` on its own generated catalog and exits
    on any problem: 20 entries cover every value it cycles through (A over 20, B over 10)."""
    from bench_validate import generate

    generate(tmp_path / "catalog", 20)
    catalog, problems = load_catalog(tmp_path / "catalog")
    assert [str(p) for p in problems] == []
    assert len(catalog.algorithms) == 20
    assert all(a.scalerl is not None and a.scalerl_record is not None
               and a.scalerl_record.superseded is not None for a in catalog.algorithms.values())
