"""The commonest data pull request, on a copy of the real catalog: the trainer's prices changed.

Followed as CONTRIBUTING's "Prices changed" says: `tinkernomics new price_list <date>` copies the
newest list, every sampling price goes up 10%, nothing else is touched. The copy validates with
the site's own needs (every run the calculator prices has its row) and builds; the new list is
the calculator's default and the Tinker page's first. The copy keeps every price list but only
the algorithms the site's own code names: the prices, not the algorithms, are the point. No
test in the suite needs editing for it: the suite's tests hold no price, date or total of
today's catalog.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest_site import MKDOCS
from helpers_catalog import run_validate
from helpers_contrib import run_cli_in_process

from tinkernomics.catalog.dates import today
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived.calculator.inputs import latest_price_list
from tinkernomics.site.build import CATALOG_ENV

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synth import copy_project, keep_algorithms

pytestmark = pytest.mark.build


def _next_day(catalog: Path) -> str:
    """The day after the newest list (today at the latest): a date no list has, not ahead."""
    newest = max(dt.date.fromisoformat(p.stem)
                 for p in (catalog / "tinker" / "prices").glob("*.yaml"))
    return min(newest + dt.timedelta(days=1), today()).isoformat()


def _raise_sampling(path: Path, factor: float) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(sample: )([0-9.]+)",
                           lambda m: f"{m[1]}{round(float(m[2]) * factor, 4)}", text),
                    encoding="utf-8")


def test_a_new_price_list_passes_validate_and_builds(tmp_path: Path) -> None:
    project = keep_algorithms(copy_project(tmp_path / "project"), ())  # every price list kept
    day = _next_day(project / "catalog")
    made = run_cli_in_process("new", "price_list", day, cwd=project)
    assert made.returncode == 0, made
    _raise_sampling(project / "catalog" / "tinker" / "prices" / f"{day}.yaml", 1.10)

    run = run_validate(project, "catalog")  # beside mkdocs.yml: with the site's needs
    assert run.code == 0, run.out
    assert latest_price_list(load_valid_catalog(project / "catalog")) == day

    env = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    env.update({"NO_MKDOCS_2_WARNING": "1", "TINKERNOMICS_CHART_IMAGES": "0",
                "SITE_URL": "https://example.org/tn/"})
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    tinker = (tmp_path / "site" / "tinker" / "index.html").read_text(encoding="utf-8")
    dates = re.findall(r"\d{4}-\d{2}-\d{2}", tinker)
    assert day in dates
    calculator = (tmp_path / "site" / "calculator" / "index.html").read_text(encoding="utf-8")
    assert f'"price_list": "{day}"' in calculator or f'"price_list":"{day}"' in calculator
