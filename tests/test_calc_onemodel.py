"""One answer per question (issue 42): the utilisation and decode batch an estimate shows are the
ones its GPU-hours use, and the self-hosted range follows a stated rule, on toy catalogs
(helpers_calc, helpers_runs; never today's catalog figures)."""

from __future__ import annotations

import json
import re

import pytest
from helpers_runs import TOY_8B, TOY_BIG, run, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, spread, timing
from tinkernomics.derived.calculator.estimate import backtest_rows, estimate, graph_for
from tinkernomics.site.calculator import backtestpage, estimate_cli, layout

CONST = {c.key: c.value for c in timing.CONSTANTS}
QUERY = {"m": TOY_8B, "hw": TOY_BIG, "gpus": "8"}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    # three runs, one far off the others (an estimate at a tenth of what it used)
    return with_runs(catalog, run("near-a", 100.0), run("near-b", 80.0), run("far-off", 5000.0))


def test_training_utilisation_shown_is_the_time_models(toy: Catalog) -> None:
    e = estimate(toy, QUERY)
    n = 8e9  # Toy-8B's parameters
    ridge = 1000 / 2  # the big toy GPU's FLOPs a byte: 1,000 TFLOP/s over 2 TB/s
    assert e["time.mfu_train"] == pytest.approx(
        CONST["train_mfu_max"] * n / (n + CONST["train_half_params"])
        / (1 + CONST["train_bytes_per_flop"] * ridge))
    assert graph_for(toy).quantity("time.mfu_train").shown
    # the reader's utilisation is the one the time model trains at: the step's training
    # seconds scale by the ratio, and the shown utilisation is the reader's
    # (above the time model's own, whatever its constants: faster training, fewer hours)
    higher = round(min(0.99, e["time.mfu_train"] * 1.5), 4)
    given = estimate(toy, {**QUERY, "mt": f"{higher * 100:.2f}"})  # as a reader types it
    assert given["time.mfu_train"] == pytest.approx(higher)
    assert given["time.train_s"] == pytest.approx(
        e["time.train_s"] * e["time.mfu_train"] / higher)
    assert given["self.gpu_hours"] < e["self.gpu_hours"]


def test_the_cli_option_sets_the_time_models_training_utilisation() -> None:
    option = {o: name for o, name, _ in estimate_cli.OPTIONS}
    assert option["--mfu-train"] == "set.mfu_train"


def _shown_labels(catalog: Catalog) -> list[str]:
    return [q.label.lower() for q in graph_for(catalog).quantities if q.shown]


def test_no_shown_figure_the_gpu_hours_do_not_use(toy: Catalog) -> None:
    labels = _shown_labels(toy)
    # one "sequences decoded at once": the time model's batch; the memory model's figure is
    # the KV room its sizing reserves, said as such
    assert sum("decoded at once" in label for label in labels) == 1
    assert graph_for(toy).quantity("time.batch").label.lower() in labels
    assert "reserve" in graph_for(toy).quantity("mem.decode_sequences").label.lower()
    # no training or decode utilisation beside the time model's
    assert "training mfu" not in labels and "decode mfu" not in labels


def test_the_page_says_decoded_at_once_only_of_the_time_models_batch(toy: Catalog) -> None:
    text = json.dumps(layout.blocks(toy, graph_for(toy)), ensure_ascii=False)
    for found in re.finditer("decoded at once", text):
        assert "{time.batch" in text[max(0, found.start() - 40):found.start()]
    assert "{mfu.train" not in text and "{mfu.decode" not in text


def test_percentile_is_linear_between_the_sorted_values() -> None:
    values = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert spread.percentile(values, 0.1) == pytest.approx(1.4)
    assert spread.percentile(values, 0.9) == pytest.approx(4.6)
    assert spread.percentile(values, 0.5) == 3.0
    assert spread.percentile([7.0], 0.1) == 7.0
    with pytest.raises(ValueError):
        spread.percentile([], 0.5)


def test_the_range_is_the_middle_of_the_runs_not_their_extremes(toy: Catalog) -> None:
    rows = backtest_rows(toy)
    ratios = [r.ratio for r in rows if r.ratio is not None]
    assert len(ratios) == 3
    e = estimate(toy, QUERY)
    assert e["backtest.low"] == pytest.approx(spread.percentile(ratios, spread.LOW))
    assert e["backtest.high"] == pytest.approx(spread.percentile(ratios, spread.HIGH))
    assert min(ratios) < e["backtest.low"] < e["backtest.high"] < max(ratios)
    assert e["self.gpu_hours_high"] == pytest.approx(e["self.gpu_hours"] / e["backtest.low"])
    # the Back-test page's summary keeps the extremes
    s = backtest.summary(rows)
    assert (s.low, s.high) == (min(ratios), max(ratios))


def test_the_range_states_its_rule(toy: Catalog) -> None:
    card = json.dumps(layout.self_hosted_card(), ensure_ascii=False)
    assert "middle 80%" in card and "10th–90th percentile" in card
    assert "{backtest.runs:count} published runs" in card
    lines = estimate_cli.spread_lines(estimate(toy, QUERY))
    assert len(lines) == 1 and spread.RULE in lines[0] and "3 runs" in lines[0]
    assert estimate_cli.spread_lines(estimate(with_runs(toy), QUERY)) == []


def test_the_backtest_page_names_both_spreads(toy: Catalog) -> None:
    view = backtestpage.view(toy)
    ratios = [r.ratio for r in backtest_rows(toy) if r.ratio is not None]
    assert view["low"] == f"{min(ratios):.2f}×" and view["rule"] == spread.RULE
    assert view["inner_low"] == f"{spread.percentile(ratios, spread.LOW):.2f}×"
    assert view["inner_high"] == f"{spread.percentile(ratios, spread.HIGH):.2f}×"
