"""Dates that cannot be right: years, publication dates and check dates in the future."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.catalog import dates

TODAY = dt.date(2026, 12, 2)
REF = "references/grpo_deepseekmath.yaml"
REAL_TODAY = dates.today


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dates, "today", lambda: TODAY)


@pytest.mark.parametrize(("rel", "old", "new", "where", "message"), [
    (REF, "checked: 2026-12-01", "checked: 2026-12-04", f"catalog/{REF}:8:10: checked",
     "checked on 2026-12-04, a day still to come"),
    (REF, "date: 2024-02-05", "date: 2027-02-05", f"catalog/{REF}:6:7: date",
     "date 2027-02-05 is in the future"),
    (REF, "year: 2024", "year: 2027", f"catalog/{REF}:5:7: year", "year 2027 is in the future"),
    ("algorithms/grpo.yaml", "year: 2024", "year: 2099", "catalog/algorithms/grpo.yaml:5:7: year",
     "year 2099 is in the future"),
])
def test_a_date_in_the_future_is_reported_at_its_field(tmp_path: Path, rel: str, old: str,
                                                       new: str, where: str,
                                                       message: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, rel, old, new)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    [problem] = run.problems
    assert (problem.where, problem.message) == (where, message)
    assert problem.hint


@pytest.mark.parametrize(("old", "new"), [
    ("checked: 2026-12-01", "checked: 2026-12-03"),  # tomorrow: east of UTC it is already today
    ("date: 2024-02-05", "date: 2023-11-30"),  # a preprint dated before the venue's year
    ("year: 2024", "year: 2026"),
])
def test_plausible_dates_pass(tmp_path: Path, old: str, new: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, REF, old, new)
    assert run_validate(tmp_path, "catalog").code == 0


def test_an_invalid_date_is_reported_once_and_the_rule_still_checks_the_rest(
        tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, REF, "checked: 2026-12-01", "checked: 2026-13-01")
    replace_in(root, REF, "year: 2024", "year: 2030")
    wheres = run_validate(tmp_path, "catalog").wheres
    assert wheres == [f"catalog/{REF}:5:7: year", f"catalog/{REF}:8:10: checked"]


def test_today_is_utc() -> None:
    assert REAL_TODAY() in {dt.datetime.now(dt.UTC).date(),
                             (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)).date()}
