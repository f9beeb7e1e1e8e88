"""The back-test (derived/calculator/backtest.py, `tinkernomics backtest`) and the range it puts
beside every self-hosted figure, on toy runs (never today's catalog runs)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers_calc import _fig
from helpers_runs import RUN_YAML, SRC, check_run_file, run, stage, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, spread
from tinkernomics.derived.calculator.estimate import backtest_rows, estimate
from tinkernomics.site.calculator import backtest_cli


def _assumed(value: float, unit: str) -> dict[str, object]:
    return {"value": value, "unit": unit, "status": "unverified", "asserted_by": "contributor",
            "source": "transformer_math", "reported_instead": "not stated"}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    two = run("two-stages", 100.0, stage(), stage(gpus=_fig(16, "gpus"),
                                                  max_completion_tokens=_fig(4000, "tokens")))
    guessed = run("guessed", 50.0, stage(mean_completion_tokens=_assumed(800, "tokens")),
                  mode="async")
    return with_runs(catalog, two, guessed)


def test_a_run_is_its_stages_estimates_summed_beside_its_actual(toy: Catalog) -> None:
    row = {r.run: r for r in backtest_rows(toy)}["two-stages"]
    parts = [estimate(toy, q).values["self.gpu_hours"] for q in row.stages]
    assert row.estimate_gpu_hours == pytest.approx(sum(parts))
    assert row.ratio == pytest.approx(sum(parts) / 100.0)
    assert row.stages[1]["gpus"] == "16" and row.stages[1]["maxout"] == "4000"


def test_assumed_settings_are_listed_and_the_mode_is_read(toy: Catalog) -> None:
    rows = {r.run: r for r in backtest_rows(toy)}
    assert rows["guessed"].assumed == ("mean_completion_tokens",)
    assert rows["two-stages"].assumed == ()
    assert rows["guessed"].stages[0]["async"] == "1"


def test_a_gpu_the_source_does_not_name_is_listed_as_assumed(catalog: Catalog) -> None:
    named = run("named", 50.0, stage())
    unnamed = run("unnamed", 50.0, stage(), hardware_assumed="The post names no GPU.")
    rows = {r.run: r for r in backtest_rows(with_runs(catalog, named, unnamed))}
    assert rows["unnamed"].assumed == ("hardware",)
    assert rows["named"].assumed == ()
    # the assumption is a statement, not a price: both estimate alike
    assert rows["unnamed"].estimate_gpu_hours == rows["named"].estimate_gpu_hours


def test_an_actual_of_steps_alone_is_priced_without_the_run_overhead(catalog: Catalog) -> None:
    whole = run("whole", 50.0, stage())
    steps = run("steps-only", 50.0, stage(), actual_covers="steps")
    rows = {r.run: r for r in backtest_rows(with_runs(catalog, whole, steps))}
    assert rows["steps-only"].stages[0]["ro"] == "0"
    assert "ro" not in rows["whole"].stages[0]
    e = estimate(catalog, rows["whole"].stages[0])
    assert rows["whole"].estimate_gpu_hours == pytest.approx(
        rows["steps-only"].estimate_gpu_hours * (1 + e["time.run_overhead"]))
    # a reader's own share replaces the constant, whatever its value; 0 is the steps alone
    mine = estimate(catalog, {**rows["whole"].stages[0], "ro": "10"})
    assert mine["time.run_overhead"] == pytest.approx(0.1)
    assert mine["time.hours"] == pytest.approx(mine["time.steps_hours"] * 1.1)
    alone = estimate(catalog, rows["steps-only"].stages[0])
    assert alone["time.hours"] == pytest.approx(alone["time.steps_hours"])


def test_summary_is_the_geometric_mean_and_range(toy: Catalog) -> None:
    rows = backtest_rows(toy)
    s = backtest.summary(rows)
    ratios = [r.ratio for r in rows]
    assert s.count == 2 and s.low == min(ratios) and s.high == max(ratios)
    assert s.geometric_mean == pytest.approx(math.sqrt(ratios[0] * ratios[1]))


def test_every_estimate_carries_the_published_runs_spread(toy: Catalog) -> None:
    s = backtest.summary(backtest_rows(toy))
    e = estimate(toy, {"m": "toy-1b", "p": "toy-prices", "hw": "toy-big-gpu", "gpus": "8"})
    ratios = [r.ratio for r in backtest_rows(toy) if r.ratio is not None]
    # the calculator's range is the runs' middle 80% (spread.py), the summary their extremes
    assert e["backtest.low"] == pytest.approx(spread.percentile(ratios, spread.LOW))
    assert e["backtest.high"] == pytest.approx(spread.percentile(ratios, spread.HIGH))
    assert s.low < e["backtest.low"] < e["backtest.high"] < s.high
    assert e["self.gpu_hours_low"] == pytest.approx(e["self.gpu_hours"] / e["backtest.high"])
    assert e["self.gpu_hours_high"] == pytest.approx(e["self.gpu_hours"] / e["backtest.low"])
    # the break-even uses the range: Tinker ÷ self-hosted at both ends
    assert e["breakeven.ratio_low"] == pytest.approx(e["tinker.total"] / e["self.total_high"])


def test_no_runs_no_range(catalog: Catalog) -> None:
    e = estimate(with_runs(catalog), {"m": "toy-8b", "hw": "toy-big-gpu", "gpus": "8"})
    assert e["backtest.low"] is None and e["self.gpu_hours_low"] is None
    assert e["self.gpu_hours"] is not None


def test_backtest_json(toy: Catalog, capsys: pytest.CaptureFixture[str]) -> None:
    data = backtest_cli.as_json(backtest_rows(toy))
    assert [r["run"] for r in data["runs"]] == ["guessed", "two-stages"]
    assert data["runs"][1]["ratio"] == pytest.approx(
        data["runs"][1]["estimate_gpu_hours"] / 100.0)
    json.dumps(data, allow_nan=False)
    backtest_cli.print_table(backtest_rows(toy))
    out = capsys.readouterr().out
    assert "two-stages" in out and "geometric mean" in out




@pytest.mark.parametrize(("model", "cap", "says"), [
    ("qwen3-8b", 1000, None),
    ("no-such-model", 1000, "model: unknown model 'no-such-model'"),
    ("qwen3-8b", 100, "max_completion_tokens: the cap is below the mean completion length"),
])
def test_validate_checks_a_runs_links_and_stages(tmp_path: Path, model: str, cap: int,
                                                 says: str | None) -> None:
    check_run_file(tmp_path, RUN_YAML.format(model=model, cap=cap, src=SRC, extra=""), says)


def test_the_page_names_a_runs_model_and_algorithm_not_their_ids(toy: Catalog) -> None:
    from tinkernomics.site.calculator import backtestpage
    from tinkernomics.site.pages.views import Links

    row = {r.run: r for r in backtest_rows(toy)}["two-stages"]
    entry = toy.of("run")["two-stages"]
    view = backtestpage.row_view(toy, row, Links("backtest/"))
    model, algorithm = toy.models[entry.model], toy.algorithms[entry.algorithm]
    assert view["settings"].startswith(f"{model.name}, {algorithm.name};")


def test_the_backtest_file_beside_the_page_holds_the_pages_rows(toy: Catalog,
                                                               tmp_path: Path) -> None:
    from tinkernomics.site.api import backtest as backtest_api

    path = backtest_api.write(toy, tmp_path)
    assert path == tmp_path / "backtest" / "backtest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = {r.run: r for r in backtest_rows(toy)}
    runs = {r["id"]: r for r in data["runs"]}
    assert set(runs) == set(rows)
    two = runs["two-stages"]
    assert two["ratio"] == pytest.approx(rows["two-stages"].ratio)
    assert two["actual_gpu_hours"] == 100.0 and len(two["stages"]) == 2
    assert "maxout=4000" in two["stages"][1]["query"]
    assert runs["guessed"]["assumed"] == ["mean_completion_tokens"]
    assert data["summary"]["count"] == 2
    assert {c["key"] for c in data["constants"]} >= {"decode_floor", "step_seconds"}


def test_the_page_links_the_file_beside_it(toy: Catalog) -> None:
    from tinkernomics.site.api import backtest as backtest_api
    from tinkernomics.site.calculator import backtestpage

    href = backtestpage.view(toy)["data"]
    assert backtestpage.PAGE + href == backtest_api.PATH and not href.endswith("/")


def test_the_page_names_the_runs_outside_2x_first_with_their_notes(catalog: Catalog) -> None:
    from tinkernomics.site.calculator import backtestpage
    from tinkernomics.site.calculator.feature import _render

    near = run("near", 1.0, notes="plain")
    hours = {r.run: r for r in backtest_rows(with_runs(catalog, near))}["near"].estimate_gpu_hours
    assert hours is not None
    why = "The paper's two figures *disagree* (A.6 & Figure 1)"
    far = run("far", hours / 5, notes=why)  # the estimate 5x the actual
    close = run("close", hours, notes="plain")
    toy = with_runs(catalog, far, close)
    view = backtestpage.view(toy)
    assert [r["id"] for r in view["outside"]] == ["far"]
    html = _render("backtest.html", **view)
    intro = html.split('id="outside-2x"', 1)[1].split("</p>", 1)[0]
    assert 'href="#backtest-far"' in intro and "#backtest-close" not in intro
    assert "<em>disagree</em> (A.6 &amp; Figure 1)" in html  # markdown rendered, escaped
    assert "(outside 2×)" in html.split('href="#backtest-far">far</a></td>', 1)[1][:120]


def test_the_page_says_nothing_is_outside_2x_when_nothing_is(catalog: Catalog) -> None:
    from tinkernomics.site.calculator import backtestpage
    from tinkernomics.site.calculator.feature import _render

    hours = backtest_rows(with_runs(catalog, run("p", 1.0)))[0].estimate_gpu_hours
    assert hours is not None
    view = backtestpage.view(with_runs(catalog, run("ok", hours * 1.5)))
    assert view["outside"] == [] and 'id="outside-2x"' not in _render("backtest.html", **view)
