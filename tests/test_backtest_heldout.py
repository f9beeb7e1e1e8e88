"""Held-out runs (derived/calculator/heldout.py): each run's ratio the day it was added beside
today's, on the Back-test page, its JSON file and `tinkernomics backtest`, on toy runs and toy
records (never today's catalog runs or records)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_runs import run, stage, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import heldout
from tinkernomics.derived.calculator.estimate import backtest_rows

RECORDS = (heldout.FirstSight("far", 0.3, "abc1234", "2000-01-02"),
           heldout.FirstSight("near", 1.5, "abc1234", "2000-01-02"),
           heldout.FirstSight("gone", 0.9, "abc1234", "2000-01-02"))


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog, run("far", 10.0, stage()), run("near", 20.0, stage()),
                     run("other", 30.0, stage()))


def test_a_record_sits_beside_todays_ratio_and_a_record_without_its_run_is_left_out(
        toy: Catalog) -> None:
    rows = backtest_rows(toy)
    found = heldout.held_out(rows, RECORDS)
    assert [h.run for h in found] == ["far", "near"]
    today = {r.run: r.ratio for r in rows}
    assert found[0].first == 0.3 and found[0].now == pytest.approx(today["far"])
    assert found[0].commit == "abc1234" and found[0].added == "2000-01-02"


def test_the_summary_counts_the_first_sight_ratios_within_2x() -> None:
    found = [heldout.HeldOut(r, r, x, None, "c", "d") for r, x in
             (("a", 0.3), ("b", 1.5), ("c", 2.0), ("d", 0.49))]
    s = heldout.summary(found)
    assert (s.count, s.within) == (4, 2)
    assert s.geometric_mean == pytest.approx((0.3 * 1.5 * 2.0 * 0.49) ** 0.25)
    assert heldout.summary([]).geometric_mean is None


def test_the_page_shows_the_held_out_table_with_the_first_ratio_outside_2x_marked(
        toy: Catalog) -> None:
    from tinkernomics.site.calculator import backtestpage
    from tinkernomics.site.calculator.feature import _render

    view = backtestpage.view(toy, RECORDS)
    assert (view["held_within"], view["held_count"]) == (1, 2)
    html = _render("backtest.html", **view)
    intro = html.split('id="held-out"', 1)[0]
    assert "landed 1 of 2 within 2× the day each was added" in intro
    assert 'href="#held-out"' in intro
    section = html.split('id="held-out"', 1)[1].split('id="runs"', 1)[0]
    assert "1 of 2 landed within 2×" in section
    far = section.split('href="#backtest-far">far</a></td>', 1)[1].split("</tr>", 1)[0]
    assert "0.30× (outside 2×)" in far and "<code>abc1234</code>" in far
    near = section.split('href="#backtest-near">near</a></td>', 1)[1].split("</tr>", 1)[0]
    assert "1.50×" in near and "outside" not in near
    assert 'id="held-out"' not in _render("backtest.html", **backtestpage.view(toy, ()))


def test_the_json_file_and_the_cli_carry_the_held_out_runs(
        toy: Catalog, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.site.api import backtest as backtest_api
    from tinkernomics.site.calculator import backtest_cli

    data = backtest_api.document(toy, RECORDS).model_dump(mode="json")
    assert [(h["id"], h["first_ratio"]) for h in data["held_out"]] == [("far", 0.3),
                                                                        ("near", 1.5)]
    monkeypatch.setattr(heldout, "FIRST_SIGHT", RECORDS)
    monkeypatch.setattr(heldout.held_out, "__defaults__", (RECORDS,))
    rows = backtest_rows(toy)
    backtest_cli.print_table(rows)
    assert "held out: 1 of 2 within 2× at first sight" in capsys.readouterr().out
    assert [h["run"] for h in backtest_cli.as_json(rows)["held_out"]] == ["far", "near"]
    json.dumps(data, allow_nan=False)
