"""The site at 1,000 synthetic algorithms (benchmarks/synth.py) in headless Chromium: the index
sorts and filters, the Data quality page loads, an algorithm page does not list the catalog.

Heavy (one 1,000-algorithm build, minutes): marked ``scale`` and run only when selected,
``make test-scale`` (``pytest -m scale``). Timing targets are in benchmarks/bench_scale.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest_site import MKDOCS, REPO_ROOT, SUB_PATH_URL
from helpers_site import article, load_page
from helpers_table import (
    clear_filters,
    count_text,
    filter_by,
    filter_name,
    sort_by,
    visible_rows,
    wait_table_ready,
    years,
)
from test_site_browser import VIEWPORTS, Served

from tinkernomics.site.build import CATALOG_ENV
from tinkernomics.site.pages.views.checks import CURRENT_SHOWN

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
from synth import make_project, synthetic_id

pytestmark = [pytest.mark.scale, pytest.mark.build, pytest.mark.browser]

N_SYNTHETIC = 1000
PAGE_ROWS = 50
LOAD_MS = 180_000
"""Page-load timeout: generous, the machine running the suite may be busy."""
"""Rows the index shows at first with JavaScript (PAGE_ROWS in algorithms-table.js)."""


@pytest.fixture(scope="module")
def big_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if "scale" not in (request.config.option.markexpr or ""):
        pytest.skip("1,000-algorithm build: run with `make test-scale` (pytest -m scale)")
    project = make_project(N_SYNTHETIC, tmp_path_factory.mktemp("scale") / "project")
    env = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    env.update({"SITE_URL": SUB_PATH_URL, "NO_MKDOCS_2_WARNING": "1"})
    done = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(project / "site")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=1800,
                          check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return project / "site"


@pytest.fixture
def served(big_site: Path) -> Served:
    return Served(big_site)


def test_index_sorts_and_filters_a_thousand_algorithms(browser, served: Served) -> None:
    page = served.open(browser, "default", VIEWPORTS["desktop"])
    # The comparison chart below the table is heavy at this size: wait for the DOM, not "load".
    page.goto(SUB_PATH_URL + "algorithms/", wait_until="domcontentloaded", timeout=LOAD_MS)
    wait_table_ready(page, timeout=LOAD_MS)
    total = page.locator(".tn-algorithms table tbody tr").count()
    assert total == len(list((served.root.parent / "catalog" / "algorithms").glob("*.yaml")))
    assert total > N_SYNTHETIC
    assert len(visible_rows(page)) == PAGE_ROWS
    assert count_text(page) == f"All {total} algorithms (first {PAGE_ROWS} shown)"
    newest = sort_by(page, "year")
    oldest_first = years(newest)
    assert oldest_first == sorted(oldest_first) and oldest_first[0] == 1992  # REINFORCE
    down = sort_by(page, "year")
    assert years(down) == sorted(years(down), reverse=True) and years(down)[0] >= 2026
    page.locator(".tn-algorithms__more button", has_text="Show more").click()
    assert len(visible_rows(page)) == 2 * PAGE_ROWS
    no_fit = filter_by(page, "fit", "no")
    assert no_fit and all(r["fit"] == "no" for r in no_fit)
    critic = filter_by(page, "critic", "yes")
    assert critic and all(r["critic"] == "yes" and r["fit"] == "no" for r in critic)
    clear_filters(page)
    assert [r["id"] for r in filter_name(page, "Synth-0999")] == [f"row-{synthetic_id(999)}"]
    page.context.close()
    assert not served.errors, served.errors
    assert not served.foreign, served.foreign[:3]


def test_data_quality_page_loads_and_lists_every_algorithm(browser, served: Served,
                                                           big_site: Path) -> None:
    page = served.open(browser, "default", VIEWPORTS["phone"])
    response = page.goto(SUB_PATH_URL + "data-quality/", wait_until="load", timeout=LOAD_MS)
    assert response is not None and response.ok
    links = page.locator(".tn-dq__entries a")
    assert links.count() >= N_SYNTHETIC
    links.nth(links.count() - 1).click()
    page.wait_for_url("**/algorithms/**#data-quality", timeout=LOAD_MS)
    assert page.locator("#data-quality").is_visible()
    page.context.close()
    assert not served.errors, served.errors


def test_data_quality_checks_table_stays_short(big_site: Path) -> None:
    body = article(load_page(big_site, "data-quality/"))
    [table] = body.by_class("tn-checks__table")
    rows = [tr for tr in table.by_tag("tr") if tr.by_tag("td")]
    assert 0 < len(rows) <= CURRENT_SHOWN + len(table.by_class("tn-checks__stale"))
    assert "references are current, checked " in body.text()


def _catalog_links(site: Path, page: str) -> list[str]:
    body = article(load_page(site, page))
    hrefs = [a.attrs.get("href", "") for a in body.by_tag("a")]
    return [h for h in hrefs if "/algorithms/" in h or h.startswith("../")]


def test_algorithm_pages_do_not_list_the_catalog(big_site: Path, built_site: Any) -> None:
    """GRPO's page links as many entries with 1,000 more algorithms in the catalog as without
    them: no list on it grows with the catalog (compared with the real site, not a fixed count,
    so a data pull request that cites one more source cannot break it)."""
    big = _catalog_links(big_site, "algorithms/grpo/")
    assert len(big) <= len(_catalog_links(built_site.root, "algorithms/grpo/")), len(big)
