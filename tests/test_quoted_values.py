"""A reported figure's value is a number its quote states (``catalog.quotedvalues``): one
mutation of the valid fixture per case, located exactly; the readings a quote allows (rounding,
scale letters, percents, ranges, products); hostile quotes in bounded time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.catalog.fields import Unit
from tinkernomics.catalog.quotedvalues import stated, stated_in

WAY = "ways/semianalysis-index-2026-03.yaml"
PRICE = ('price: {value: 2.35, unit: usd_per_gpu_hour, status: reported, source: '
         'compux_gpu_pricing, locator: "Key takeaways: \\"$2.35/hr by March 2026\\" '
         '(SemiAnalysis)"}')
H100 = "hardware/h100.yaml"
GRPO = "algorithms/grpo.yaml"
RUN = "runs/fx-run.yaml"


def _price(value: str, quote: str) -> str:
    return PRICE.replace("value: 2.35", f"value: {value}").replace(
        "$2.35/hr by March 2026", quote)


def _problems(tmp_path: Path, rel: str, old: str, new: str) -> list[tuple[str, str, str | None]]:
    root = copy_valid(tmp_path)
    replace_in(root, rel, old, new)
    return [(p.where, p.message, p.hint) for p in run_validate(tmp_path, "catalog").problems]


def test_a_digit_swap_is_reported_at_the_value(tmp_path: Path) -> None:
    """The fixture's index price, 2.35 in its quote, typed 2.53."""
    found = _problems(tmp_path, WAY, PRICE, _price("2.53", "$2.35/hr by March 2026"))
    assert found == [(
        "catalog/ways/semianalysis-index-2026-03.yaml:14:20: gpu_prices[0].price.value",
        "value 2.53 is none of the numbers its locator quotes (2.35, 2026)",
        "check the digits against the quote (and the source); if the value is computed from "
        "the quoted numbers, mark it derived and show the working in the locator "
        "(\"... 27 × 8 = 216\")")]


def test_the_quotes_rounding_is_allowed(tmp_path: Path) -> None:
    """989.4 TFLOP/s for a quoted "989"; 998.4 is another number."""
    old = "locator: 'Fixture: Performance table, \"row BF16\"'"
    assert _problems(tmp_path / "a", H100, old, "locator: 'Fixture: \"BF16 989 TFLOPS\"'") == []
    found = _problems(tmp_path / "b", H100, "value: 989.4\n  unit: tflops\n  status: reported\n"
                      "  source: glennklockwood_h100\n  " + old,
                      "value: 998.4\n  unit: tflops\n  status: reported\n"
                      "  source: glennklockwood_h100\n  locator: 'Fixture: \"BF16 989 TFLOPS\"'")
    assert [(where, message) for where, message, _ in found] == [
        ("catalog/hardware/h100.yaml:4:10: bf16_dense_tflops.value",
         "value 998.4 is none of the numbers its locator quotes (989)")]


def test_a_value_inside_a_quoted_range_passes(tmp_path: Path) -> None:
    assert _problems(tmp_path / "a", WAY, PRICE,
                     _price("2.0", "rates surged from $1.70 to $2.35/hour")) == []
    found = _problems(tmp_path / "b", WAY, PRICE,
                      _price("2.6", "rates surged from $1.70 to $2.35/hour"))
    assert [where for where, _, _ in found] == [
        "catalog/ways/semianalysis-index-2026-03.yaml:14:20: gpu_prices[0].price.value"]


def test_a_list_within_a_quoted_range_passes_and_one_outside_is_located(tmp_path: Path) -> None:
    old = '"For each question, we sample a group of outputs."'
    assert _problems(tmp_path / "a", GRPO, old, '"groups of 8-64 outputs"') == []
    found = _problems(tmp_path / "b", GRPO, old, '"groups of 16-64 outputs"')
    assert [(where, message) for where, message, _ in found] == [
        ("catalog/algorithms/grpo.yaml:17:12: typical_g.values[0]",
         "value 8 is none of the numbers its locator quotes (16, 64)")]


def test_a_quote_without_numbers_is_not_checked(tmp_path: Path) -> None:
    """fx-run's steps quote "row fx-run": no number to hold the value to."""
    assert _problems(tmp_path, RUN, "steps: {value: 10,", "steps: {value: 11,") == []


def test_a_derived_value_is_left_to_its_working(tmp_path: Path) -> None:
    derived = _price("6.155", "$49.24 for 8 GPUs").replace("status: reported", "status: derived")
    assert _problems(tmp_path, WAY, PRICE, derived.replace(
        ' (SemiAnalysis)"}', '; 49.24 ÷ 8 = 6.155"}')) == []


@pytest.mark.parametrize(("quote", "unit", "value"), [
    ("BF16 989 TFLOPS", Unit.tflops, 989.4),
    ("141GB HBM3e", Unit.gb, 141),
    ("1.4 kW board power", Unit.watts, 1400),
    ("4,000 GB/s bandwidth", Unit.tb_per_second, 4),
    ("AMD publishes `2.5 PFLOPS`", Unit.tflops, 2500),
    ("hidden size 2,048", Unit.count, 2048),
    ("a 32K context", Unit.tokens, 32768),
    ("a 32K context", Unit.tokens, 32000),
    ("19.00M tokens", Unit.tokens, 19e6),
    ("an 8B model", Unit.parameters, 8e9),
    ("is a 550B total / A55B active model", Unit.billion_parameters, 55),
    ("rates surged 40% in a year", Unit.fraction, 0.4),
    ("rates surged 40% in a year", Unit.percent, 40),
    ("A = 0.610", Unit.percent, 61),
    ("we employed 64*8 H800 GPUs", Unit.gpus, 512),
    ("we used 8x8 H100-80G GPUs", Unit.gpus, 64),
    ("3 × 8 H100 GPUs", Unit.gpus, 24),
    ("max_response_length=$((1024 * 28))", Unit.tokens, 28672),
    ("vLLM rollout (TP4).", Unit.gpus, 4),
    ("response length 14254.837890625 tokens", Unit.tokens, 14255),
    ("sizes from 1.7-7B", Unit.parameters, 3e9),
    ("drops from 5,500 to 3,500", Unit.tokens, 4500),
    ("3,fsdp+vllm,Qwen2.5-14B,H20,32,sp4fsdp32,tp4", Unit.gpus, 32),
])
def test_readings_a_quote_allows(quote: str, unit: Unit, value: float) -> None:
    assert stated(value, stated_in(f'Fixture: "{quote}"', unit))


@pytest.mark.parametrize(("quote", "unit", "value"), [
    ("$2.35/hour", Unit.usd_per_gpu_hour, 2.53),
    ("BF16 989 TFLOPS", Unit.tflops, 998),
    ("rates surged 40% in a year", Unit.count, 0.4),  # a count is not a fraction
    ("we employed 64*8 H800 GPUs", Unit.gpus, 256),
    ("an H100 80GB", Unit.gb, 100),  # H100 names the GPU
    ("sizes from 1.7-7B", Unit.parameters, 8e9),
    ("vLLM rollout (TP4).", Unit.gpus, 8),
])
def test_readings_a_quote_does_not_allow(quote: str, unit: Unit, value: float) -> None:
    assert not stated(value, stated_in(f'Fixture: "{quote}"', unit))


def test_backticks_and_curly_quotes_are_quotes_and_nested_ones_stay_inside() -> None:
    found = stated_in('metaseq line 38 `"1.3b": Size(24, 2048, 32, 64` and “96 layers”',
                      Unit.count)
    assert [q.text for q in found.numbers] == ["1.3", "24", "2048", "32", "64", "96"]
    assert stated_in("Table 1, row BF16: Matrix 312", Unit.tflops).numbers == []


@pytest.mark.parametrize("quote", [
    "9" * 100_000,
    ", ".join(["1,234"] * 10_000),
    "1," * 50_000 + "2345",
    "1e999 " * 1_000 + "1e-999 2e308",
    " " * 100_000 + "x",
    "1-" * 50_000,
])
def test_hostile_quotes_in_bounded_time(quote: str) -> None:
    started = time.perf_counter()
    for unit in (Unit.count, Unit.percent, Unit.gb):
        found = stated_in(f'Fixture: "{quote}"', unit)
        stated(1.0, found)
    assert time.perf_counter() - started < 2.0


def test_hostile_numbers_in_a_short_quote_are_read_without_error() -> None:
    found = stated_in('Fixture: "1e999 and 1e-999, 9999999999e300 or 7"', Unit.count)
    assert [q.text for q in found.numbers] == ["7"]
    assert stated(7, found) and not stated(0, found)


def test_a_locator_at_the_catalogs_length_limit_validates_in_bounded_time(
        tmp_path: Path) -> None:
    """As long a locator as the catalog takes, its quote all numbers: read, nothing raised."""
    numbers = "1,2" * 1_300
    started = time.perf_counter()
    found = _problems(tmp_path, WAY, PRICE, _price("2.35", f"$2.35/hr {numbers}"))
    assert time.perf_counter() - started < 10.0
    assert found == []
