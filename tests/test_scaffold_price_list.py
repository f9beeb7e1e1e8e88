"""`make new KIND=price_list` starts from the newest list: every row to edit, none to retype."""

from __future__ import annotations

import re
from pathlib import Path

from helpers_catalog import copy_valid, run_validate
from helpers_contrib import run_cli_in_process

from tinkernomics.catalog.loader import load_catalog


def test_new_price_list_copies_the_newest_rows_to_edit(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    run = run_cli_in_process("new", "price_list", "2026-11-20", cwd=tmp_path)
    assert run.returncode == 0, run
    path = root / "tinker" / "prices" / "2026-11-20.yaml"
    text = path.read_text(encoding="utf-8")
    assert 'id: "2026-11-20"' in text and "effective: 2026-11-20" in text
    assert "copied from the newest list, 2026-07-17" in text
    unedited = run_validate(tmp_path, "catalog")  # an unchanged copy changes nothing: refused
    assert unedited.code == 1 and [p.where.rsplit(": ", 1)[1] for p in unedited.problems] == \
        ["rows"] and "every price equals 2026-07-17's" in unedited.out
    catalog, _ = load_catalog(root)
    old, new = catalog.price_lists["2026-07-17"], catalog.price_lists["2026-11-20"]
    assert [r.model for r in new.rows] == [r.model for r in old.rows]


def test_the_price_change_pull_request_validates(tmp_path: Path) -> None:
    """The usual data PR, followed as CONTRIBUTING describes it: a new dated list, sampling +10%."""
    root = copy_valid(tmp_path)
    assert run_cli_in_process("new", "price_list", "2026-11-20", cwd=tmp_path).returncode == 0
    path = root / "tinker" / "prices" / "2026-11-20.yaml"
    raised = re.sub(r"(sample: )([0-9.]+)",
                    lambda m: f"{m[1]}{round(float(m[2]) * 1.1, 4)}",
                    path.read_text(encoding="utf-8"))
    path.write_text(raised, encoding="utf-8")
    assert run_validate(tmp_path, "catalog").code == 0
