"""The held-out runs' band beside every self-hosted figure (heldout.range_quantities): how far
runs the model had not seen landed at first sight, on the calculator, the CLI and the Back-test
page, on toy runs and toy records (never today's catalog runs or records)."""

from __future__ import annotations

import json

import pytest
from helpers_runs import TOY_8B, TOY_BIG, run, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import heldout, spread
from tinkernomics.derived.calculator.estimate import Estimate, estimate
from tinkernomics.site.calculator import backtestpage, estimate_cli, layout
from tinkernomics.site.calculator.feature import _render

QUERY = {"m": TOY_8B, "hw": TOY_BIG, "gpus": "8"}
FIRST = {"a": 0.3, "b": 0.8, "c": 1.5, "d": 3.0}
RECORDS = (*(heldout.FirstSight(r, x, "abc1234", "2000-01-02") for r, x in FIRST.items()),
           heldout.FirstSight("gone", 9.0, "abc1234", "2000-01-02"))
"""Four records whose runs the toy catalog holds, and one whose run it does not."""


@pytest.fixture
def toy(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> Catalog:
    # the records are read when a catalog's graph is first built: patch before building it
    monkeypatch.setattr(heldout, "FIRST_SIGHT", RECORDS)
    return with_runs(catalog, *(run(r, 10.0 * (i + 1)) for i, r in enumerate(FIRST)))


def _band(values: list[float]) -> tuple[float, float]:
    return spread.percentile(values, spread.LOW), spread.percentile(values, spread.HIGH)


def test_the_summary_gives_the_middle_band_of_the_first_sight_ratios() -> None:
    found = [heldout.HeldOut(r, r, x, None, "c", "d") for r, x in FIRST.items()]
    s = heldout.summary(found)
    assert (s.inner_low, s.inner_high) == pytest.approx(_band(list(FIRST.values())))
    assert s.inner_low is not None and 0.3 < s.inner_low < s.inner_high < 3.0
    empty = heldout.summary([])
    assert (empty.count, empty.inner_low, empty.inner_high) == (0, None, None)


def test_every_estimate_carries_the_held_out_band_at_first_sight(toy: Catalog) -> None:
    e = estimate(toy, QUERY)
    low, high = _band(list(FIRST.values()))  # the record without its run is left out
    assert (e["heldout.low"], e["heldout.high"]) == pytest.approx((low, high))
    assert e["heldout.runs"] == 4
    # the band is the first-sight ratios', not today's (the toy runs' ratios are not these)
    assert e["heldout.low"] != pytest.approx(e["backtest.low"])
    assert e["self.gpu_hours_unseen_low"] == pytest.approx(e["self.gpu_hours"] / high)
    assert e["self.gpu_hours_unseen_high"] == pytest.approx(e["self.gpu_hours"] / low)


def test_the_cli_states_both_bands(toy: Catalog) -> None:
    lines = estimate_cli.spread_lines(estimate(toy, QUERY))
    assert len(lines) == 2 and spread.RULE in lines[0]
    assert "4 runs priced before the model had seen them" in lines[1]
    low, high = _band(list(FIRST.values()))
    band = f"{estimate_cli.fmt_value('ratio', low)}–{estimate_cli.fmt_value('ratio', high)}"
    assert band in lines[1] and lines[1].endswith("GPU-hours")


def test_without_held_out_runs_there_is_no_band(catalog: Catalog) -> None:
    e: Estimate = estimate(with_runs(catalog, run("x", 10.0), run("y", 20.0)), QUERY)
    assert e["backtest.low"] is not None and e["heldout.runs"] == 0
    assert e["heldout.low"] is None and e["self.gpu_hours_unseen_low"] is None
    assert len(estimate_cli.spread_lines(e)) == 1


def test_the_card_states_the_band_only_where_there_is_one() -> None:
    card = layout.self_hosted_card()
    for when, template in card["cases"]:
        guarded = "heldout.low" in json.dumps(when) or "backtest.low" in json.dumps(when)
        if guarded:  # a case for a catalog without held-out (or any) runs
            assert "{heldout.low}" not in template
    *_, (_, one_gpu), (_, gpus) = card["cases"]
    for template in (one_gpu, gpus):
        assert "{heldout.low}–{heldout.high}" in template
        assert "{self.gpu_hours_unseen_low}–{self.gpu_hours_unseen_high}" in template
        assert template.index("{backtest.low}") < template.index("{heldout.low}")


def test_the_backtest_page_gives_the_band(toy: Catalog) -> None:
    view = backtestpage.view(toy, RECORDS)
    low, high = _band(list(FIRST.values()))
    assert (view["held_low"], view["held_high"]) == (f"{low:.2f}×", f"{high:.2f}×")
    html = _render("backtest.html", **view)
    intro, section = (" ".join(part.split()) for part in html.split('id="held-out"', 1))
    assert f"first-sight ratios runs from {low:.2f}× to {high:.2f}×" in intro
    assert f"from {low:.2f}× to {high:.2f}×" in section
