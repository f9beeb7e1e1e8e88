"""The real site build writes the API: two `mkdocs build --strict` runs of one commit give
byte-identical site/api/ trees holding every file the API renders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_api import REPO_ROOT

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.api.files import data_last_changed, render_api

MKDOCS = Path(sys.executable).with_name("mkdocs")


def build(site_dir: Path) -> Path:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env["SITE_URL"] = "https://example.org/tn/"
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return site_dir


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.build
def test_two_site_builds_write_identical_api_trees_with_every_file(tmp_path: Path) -> None:
    first = tree(build(tmp_path / "a") / "api")
    second = tree(build(tmp_path / "b") / "api")
    assert first.keys() == second.keys()
    differing = [path for path in first if first[path] != second[path]]
    assert not differing, f"differ between two builds: {differing[:10]}"
    assert "index.html" in first  # the API page itself
    catalog = load_valid_catalog(REPO_ROOT / "catalog")
    expected = render_api(catalog, last_changed=data_last_changed(catalog.root),
                          site_url="https://example.org/tn/")
    assert {f"v1/{path}": body for path, body in expected.items()} == {
        path: body for path, body in first.items() if path.startswith("v1/")}
