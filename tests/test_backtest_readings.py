"""A published run whose source reads two ways (``readings`` in catalog/runs/): priced under
each reading, shown on the Back-test page, in the CLI and in backtest.json, and left out of the
spread; the rules a reading must meet. Toy runs only (helpers_runs), never today's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_calc import _fig
from helpers_runs import RUN_YAML, SRC, check_run_file, run, stage, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest
from tinkernomics.derived.calculator.estimate import backtest_rows
from tinkernomics.site.calculator import backtest_cli

WHY = "The paper writes *2048 prompts* where its batches count completions."


def _reading(value: float, setting: str = "prompts", unit: str = "count",
             stage_no: int = 1) -> dict[str, object]:
    return {"stage": stage_no, "setting": setting, "value": _fig(value, unit), "why": WHY}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    plain = run("plain", 10.0)
    hours = {r.run: r for r in backtest_rows(with_runs(catalog, plain))}["plain"]
    assert hours.estimate_gpu_hours is not None
    # "read" prices 16 prompts a step as entered, 256 under its other reading; its actual is
    # 20x the plain run's estimate, so neither reading lands within 2x
    read = run("read", hours.estimate_gpu_hours * 20, readings=[_reading(256)])
    return with_runs(catalog, plain, read)


def _rows(toy: Catalog) -> dict[str, backtest.Row]:
    return {r.run: r for r in backtest_rows(toy)}


def test_a_run_read_two_ways_is_priced_under_each(toy: Catalog, catalog: Catalog) -> None:
    rows = _rows(toy)
    read = rows["read"]
    assert not read.scored and rows["plain"].scored
    assert read.estimate_gpu_hours == pytest.approx(rows["plain"].estimate_gpu_hours)
    (other,) = read.readings
    as_256 = run("as-256", 1.0, stage(prompts=_fig(256, "count")))
    direct = _rows(with_runs(catalog, as_256))["as-256"].estimate_gpu_hours
    assert other.estimate_gpu_hours == pytest.approx(direct)
    assert other.label == "prompts = 256" and read.reading_ratio(other) == pytest.approx(
        direct / read.actual_gpu_hours)


def test_an_unscored_run_stays_out_of_the_spread(toy: Catalog) -> None:
    s = backtest.summary(backtest_rows(toy))
    plain = _rows(toy)["plain"].ratio
    assert s.count == 1 and s.low == s.high == pytest.approx(plain)


def test_cli_and_json_show_the_readings(toy: Catalog, capsys: pytest.CaptureFixture[str]) -> None:
    backtest_cli.print_table(backtest_rows(toy))
    out = capsys.readouterr().out
    assert "not scored" in out and "read as prompts = 256" in out and "1 not scored" in out
    data = backtest_cli.as_json(backtest_rows(toy))
    read = next(r for r in data["runs"] if r["run"] == "read")
    assert read["scored"] is False and len(read["reading_ratios"]) == 1
    json.dumps(data, allow_nan=False)


def test_page_and_file_name_the_unscored_run(toy: Catalog) -> None:
    from tinkernomics.site.api import backtest as backtest_api
    from tinkernomics.site.calculator import backtestpage
    from tinkernomics.site.calculator.feature import _render

    view = backtestpage.view(toy)
    assert [r["id"] for r in view["unscored"]] == ["read"]
    assert "read" not in [r["id"] for r in view["outside"]]
    html = _render("backtest.html", **view)
    intro = html.split('id="not-scored"', 1)[1].split("</p>", 1)[0]
    assert 'href="#backtest-read"' in intro and "read as prompts = 256" in intro
    assert "<em>2048 prompts</em>" in html  # the why is rendered Markdown, escaped
    doc = backtest_api.document(toy).model_dump(mode="json")
    read = next(r for r in doc["runs"] if r["id"] == "read")
    assert read["scored"] is False and read["readings"][0]["label"] == "prompts = 256"
    assert doc["summary"]["count"] == 1


READING = """readings:
  - stage: {stage}
    setting: {setting}
    value: {{value: {value}, unit: {unit}, {src}}}
    why: "The source says it two ways."
"""


@pytest.mark.parametrize(("stage_no", "setting", "value", "unit", "says"), [
    (1, "prompts", 128, "count", None),
    (2, "prompts", 128, "count", "readings[0].stage: the run has 1 stage(s)"),
    (1, "rollout_gpus", 4, "gpus", "readings[0].setting: stage 1 gives no rollout_gpus"),
    (1, "prompts", 128, "tokens", "readings[0].value.unit: the setting's unit is 'count'"),
    (1, "prompts", 8, "count", "readings[0].value: the same value as the stage's"),
    (1, "colour", 8, "count", "readings[0].setting"),
])
def test_validate_checks_a_reading(tmp_path: Path, stage_no: int, setting: str, value: float,
                                   unit: str, says: str | None) -> None:
    reading = READING.format(stage=stage_no, setting=setting, value=value, unit=unit, src=SRC)
    check_run_file(tmp_path, RUN_YAML.format(model="qwen3-8b", cap=1000, src=SRC, extra=reading),
                   says)
