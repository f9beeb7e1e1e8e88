"""`mkdocs build` with an invalid catalog prints the validator's located messages, no traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest_site import REPO_ROOT, run_mkdocs_build

pytestmark = pytest.mark.build


def test_invalid_catalog_fails_the_build_in_plain_lines(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    shutil.copytree(REPO_ROOT / "catalog", catalog)
    grpo = catalog / "algorithms" / "grpo.yaml"
    text = grpo.read_text(encoding="utf-8")
    assert "\nyear: 2024\n" in text
    grpo.write_text(text.replace("\nyear: 2024\n", '\nyear: "2024a"\n'), encoding="utf-8")
    done = run_mkdocs_build(tmp_path / "site", catalog=catalog)
    log = done.stdout + done.stderr
    assert done.returncode != 0
    assert "algorithms/grpo.yaml:" in log and ": year: " in log, log[-2000:]
    assert "Traceback" not in log, log[-3000:]
