"""Work a build no longer does twice (issue 47): each test counts the work, on fixture catalogs."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import pytest
from helpers_charts import fitted_catalog

from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.freshness import feature as freshness
from tinkernomics.site.postbuild import csp, finish
from tinkernomics.site.postbuild.knownscripts import known_scripts


def test_a_build_reads_its_dates_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The price panels' day, the API's ``last_changed`` and the pages' dates share one read
    (git twice, or every catalog file stat-ed, per read); the next build reads again."""
    (tmp_path / "catalog").mkdir()
    reads: list[Path] = []
    real = freshness.data_last_changed

    def counted(catalog: Path, env: Any = None) -> dt.datetime:
        reads.append(catalog)
        return real(catalog, env)

    monkeypatch.setattr(freshness, "data_last_changed", counted)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900000000")
    freshness.new_build()
    day = freshness.staleness_day(tmp_path)
    assert freshness.of_build(tmp_path).dates.built == day == dt.date(2030, 3, 17)
    assert freshness.of_build(tmp_path).data_changed.date() == day and len(reads) == 1
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900086400")
    assert freshness.staleness_day(tmp_path) == dt.date(2030, 3, 18) and len(reads) == 2
    freshness.new_build()
    freshness.of_build(tmp_path)
    assert len(reads) == 3
    freshness.new_build()


def test_embed_pages_are_written_finished(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The charts feature writes each embed page with its policy and date (the post-build pass
    then skips it) instead of the pass reading it back and writing it again."""
    catalog = fitted_catalog(tmp_path / "project")
    monkeypatch.setenv(chartsite.CHART_IMAGES_ENV, "0")
    monkeypatch.setenv(chartsite.IMAGE_CACHE_ENV, str(tmp_path / "images"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900000000")
    monkeypatch.setattr(finish, "FINISHED", {})
    site = tmp_path / "site"
    ctx = SiteContext(root=catalog.root.parent, catalog=catalog)
    chartsite.write_outputs(ctx, site)
    pages = sorted(site.glob(f"{chartsite.EMBED_DIR}/*/index.html"))
    assert len(pages) == len(charts.chart_ids(catalog)) > 1
    assert sorted(finish.FINISHED) == sorted(os.path.normpath(p) for p in pages)
    written = {p: p.read_text(encoding="utf-8") for p in pages}
    assert all(csp._OLD_META_START in text for text in written.values())
    finish.finish_pages(site, ctx.site_url, freshness.of_build(ctx.root).dates,
                        known_scripts(ctx.root))
    assert not finish.FINISHED  # the pass took them as finished, and left them as written
    assert {p: p.read_text(encoding="utf-8") for p in pages} == written
    freshness.new_build()
