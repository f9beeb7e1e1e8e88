"""Session fixture: the real site, built ONCE per test session (`mkdocs build --strict`).

Imported by tests/conftest.py. Built under a sub-path site URL, like the Pages deployment, with
the real catalog and docs, into a temporary folder (never into site/ or docs/).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tinkernomics.site.build import CATALOG_ENV

REPO_ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")
SUB_PATH_URL = "https://example.org/tinker-nomics/"


@dataclass(frozen=True)
class BuiltSite:
    root: Path
    log: str


def run_mkdocs_build(site_dir: Path, *, catalog: Path | None = None,
                     site_url: str = SUB_PATH_URL) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of this repository into ``site_dir`` (optionally another catalog)."""
    env = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    env.update({"SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"})
    if catalog is not None:
        env[CATALOG_ENV] = str(catalog)
    return subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
                          check=False)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The site built from the real catalog; fails the test if the build fails."""
    site_dir = tmp_path_factory.mktemp("built") / "site"
    done = run_mkdocs_build(site_dir)
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"mkdocs build failed:\n{log[-6000:]}"
    return BuiltSite(site_dir, log)
