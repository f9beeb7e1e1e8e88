"""Price lists that would silently change nothing (issue 45), on the fixture catalog: an
unchanged copy of the newest list, a list dated before the newest by a day/month swap, and a
backdated list whose source shows it was added after the newest."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, run_validate, write_file

from tinkernomics.catalog import dates

OLD = "tinker/prices/2026-07-17.yaml"
REF = "references/tinker_pricing_2026_07.yaml"


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dates, "today", lambda: dt.date(2026, 12, 6))


def _new_list(root: Path, day: str, *, sample: str = "0.66", source: str | None = None) -> str:
    text = (root / OLD).read_text(encoding="utf-8")
    text = text.replace("id: 2026-07-17", f'id: "{day}"').replace(
        "effective: 2026-07-17", f"effective: {day}").replace("sample: 0.60", f"sample: {sample}")
    if source:
        text = text.replace("source: tinker_pricing_2026_07", f"source: {source}")
    rel = f"tinker/prices/{day}.yaml"
    write_file(root, rel, text)
    return rel


def _line(root: Path, rel: str, start: str) -> int:
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(start))


def _found(tmp_path: Path, rel: str) -> list:
    return [p for p in run_validate(tmp_path, "catalog").problems if rel in p.where]


def test_an_unchanged_copy_of_the_newest_list_is_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-11-20", sample="0.60")
    [problem] = _found(tmp_path, rel)
    assert problem.where == f"catalog/{rel}:{_line(root, rel, 'rows:')}:1: rows"
    assert "every price equals 2026-07-17's" in problem.message
    assert "calculator's default" in problem.message and "edit the prices" in (problem.hint or "")


def test_a_changed_list_passes(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-11-20", sample="0.54")
    assert _found(tmp_path, rel) == []


def test_a_day_month_swap_before_the_newest_is_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-01-12", sample="0.54")
    [problem] = _found(tmp_path, rel)
    assert problem.where == f"catalog/{rel}:{_line(root, rel, 'effective:')}:12: effective"
    assert "before the newest, 2026-07-17" in problem.message and "swapped" in problem.message
    assert "effective: 2026-12-01" in (problem.hint or "")


def test_a_swap_that_would_lie_in_the_future_is_not_guessed(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(dates, "today", lambda: dt.date(2026, 11, 1))
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-01-12", sample="0.54")
    assert _found(tmp_path, rel) == []


def _later_source(root: Path) -> None:
    text = (root / REF).read_text(encoding="utf-8")
    write_file(root, "references/tinker_pricing_2026_11.yaml", text.replace(
        "id: tinker_pricing_2026_07", "id: tinker_pricing_2026_11").replace(
        "date: 2026-07-17", "date: 2026-11-20").replace(
        "(transcription effective 2026-07-17)", "(November)").replace(
        "tinker/models/", "tinker/models/?v=11"))


def test_a_backdated_list_from_a_later_source_is_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    _later_source(root)
    rel = _new_list(root, "2026-07-01", sample="0.54", source="tinker_pricing_2026_11")
    [problem] = _found(tmp_path, rel)
    assert problem.where.endswith(": effective")
    assert "its source is dated 2026-11-20, after 2026-07-17" in problem.message
    assert "keeps 2026-07-17's prices" in problem.message


def test_an_older_list_from_an_older_source_is_history(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-07-01", sample="0.54")
    assert _found(tmp_path, rel) == []


def test_a_list_source_without_a_date_is_reported_once(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    text = (root / REF).read_text(encoding="utf-8")
    (root / REF).write_text(text.replace("date: 2026-07-17\n", ""), encoding="utf-8")
    found = [p for p in run_validate(tmp_path, "catalog").problems if REF in p.where]
    assert [p.where for p in found] == [f"catalog/{REF}:1:5: id"]
    assert "price list 2026-07-17 cites this reference, which gives no date" in found[0].message
    (root / REF).write_text(text.replace("date: 2026-07-17", "date: 2026-13-45"),
                            encoding="utf-8")
    found = [p for p in run_validate(tmp_path, "catalog").problems if REF in p.where]
    assert len(found) == 1 and found[0].where.endswith(": date"), found
