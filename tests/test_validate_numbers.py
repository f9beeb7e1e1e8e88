"""Hostile catalog numbers never crash or hang the build (issue 26, numbers part).

Each hostile value is written into a copy of the valid fixture and must be refused by
`tinkernomics validate` at its own file:line:col and field, with a readable message and hint:
huge floats and integers, 5,000-digit literals, zero TFLOP/s, out-of-range group sizes and prices,
deep nesting, a NUL byte. Values at every bound, on the other hand, validate and go through the
derived arithmetic and chart specs without an exception; the real catalog and the synthetic
1,000-algorithm catalog (benchmarks/synth.py) sit inside the bounds.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate
from helpers_charts import _variant

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_catalog, load_valid_catalog
from tinkernomics.catalog.problems import CatalogError
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import resources, tree
from tinkernomics.site.charts import data, plotlyspec, spec, svg

ROOT = Path(__file__).resolve().parent.parent
GRPO = "algorithms/grpo.yaml"
H100 = "hardware/h100.yaml"
PRICES = "tinker/prices/2026-07-17.yaml"
FORMULA = "formulas/rollout_flops.yaml"
DIGITS_400 = "9" * 400


@dataclass(frozen=True)
class Hostile:
    id: str
    rel: str
    old: str
    new: str
    where: str
    """``line:col: field`` inside ``rel``."""
    message: str
    hint: str


CASES = [
    Hostile("c-mid-1e308", GRPO, "value: 4000", "value: 1.0e+308",
            "42:12: scalerl.C_mid.value", "cannot exceed 1e9 (got 1e308)", "C_mid is the compute"),
    Hostile("c-mid-400-digits", GRPO, "value: 4000", f"value: {DIGITS_400}",
            "42:12: scalerl.C_mid.value", "number too large: 400 digits", "scientific notation"),
    Hostile("c-mid-negative", GRPO, "value: 4000", "value: -4000",
            "42:12: scalerl.C_mid.value", "must not be negative (got -4000)", "GB200-hours"),
    Hostile("b-1e300", GRPO, "value: 1.8", "value: 1.0e+300",
            "35:12: scalerl.B.value", "cannot exceed 20 (got 1e300)", "scaling exponent"),
    Hostile("b-zero", GRPO, "value: 1.8", "value: 0",
            "35:12: scalerl.B.value", "must be at least 0.01 (got 0)", "scaling exponent"),
    Hostile("a-above-100", GRPO, "value: 50", "value: 150",
            "28:12: scalerl.A.value", "percent cannot exceed 100 (got 150)", "0-100"),
    Hostile("typical-g-400-digits", GRPO, "values: [8, 16, 64]", f"values: [{DIGITS_400}]",
            "17:12: typical_g.values[0]", "number too large: 400 digits", "scientific notation"),
    Hostile("typical-g-1e21", GRPO, "values: [8, 16, 64]", "values: [8, 1000000000000000000000]",
            "17:15: typical_g.values[1]", "cannot exceed 4096 (got 1e21)",
            "G is the number of completions per prompt; papers use 4-1024"),
    Hostile("typical-g-float-1e21", GRPO, "values: [8, 16, 64]", "values: [1e21]",
            "17:12: typical_g.values[0]", "valid integer", ""),
    Hostile("typical-g-zero", GRPO, "values: [8, 16, 64]", "values: [0, 16]",
            "17:12: typical_g.values[0]", "must be at least 1 (got 0)", "G is the number"),
    Hostile("typical-k-huge", GRPO, "values: [1, 2]", "values: [1, 100000]",
            "11:15: typical_k.values[1]", "cannot exceed 1000", "K is the number"),
    Hostile("tflops-zero", H100, "value: 989.4", "value: 0",
            "4:10: bf16_dense_tflops.value", "must be at least 0.001 (got 0)", "TFLOP/s"),
    Hostile("memory-negative", H100, "value: 80", "value: -80",
            "10:10: memory_gb.value", "must not be negative (got -80)", "memory"),
    Hostile("int-5000-digits", GRPO, "value: 4000", "value: " + "9" * 5000,
            "42:12: scalerl.C_mid.value", "number too large: 5000 digits", "fewer digits"),
    Hostile("hex-too-long", GRPO, "value: 4000", "value: 0x" + "f" * 40,
            "42:12: scalerl.C_mid.value", "is not written in decimal", "in decimal"),
    Hostile("float-too-long", GRPO, "value: 1.8", "value: 1." + "8" * 40,
            "35:12: scalerl.B.value", "number too long: 41 digits", "fewer digits"),
    Hostile("dot-inf", GRPO, "value: 4000", "value: .inf",
            "42:12: scalerl.C_mid.value", "numbers must be finite", ".inf"),
    Hostile("1e400", GRPO, "value: 4000", "value: 1e400",
            "42:12: scalerl.C_mid.value", "number too large: it overflows a 64-bit float",
            "exponent"),
    Hostile("price-negative", PRICES, "train: 0.44", "train: -0.44",
            "22:12: rows[0].train", "greater than or equal to 0", "USD per 1M tokens"),
    Hostile("price-huge", PRICES, "train: 0.44", "train: 1.0e+12",
            "22:12: rows[0].train", "less than or equal to 10000", "USD per 1M tokens"),
    Hostile("discount-above-100", PRICES, "  value: 80\n", "  value: 180\n",
            "13:10: cached_prefill_discount.value", "percent cannot exceed 100", "discount"),
    Hostile("example-zero-tokens", FORMULA, "example: 8.0e9", "example: 0",
            "13:14: variables[0].example", "greater than 0", "worked example"),
    Hostile("example-huge", FORMULA, "example: 8.0e9", "example: 1.0e+300",
            "13:14: variables[0].example", "less than or equal to", "at most 1e15"),
    Hostile("depth-250", GRPO, "value: 4000", "value: " + "[" * 250 + "]" * 250,
            # the first bracket (col 12) is scalerl.C_mid.value, 3 levels deep: the 31st is
            # the 33rd level, the first one refused
            f"42:{12 + 30}: scalerl.C_mid.value" + "[0]" * 30,
            "nested too deep (more than 32 levels)", "nest a few levels at most"),
    Hostile("nul-in-line-3", GRPO, "full_name: Group Relative", "full_name: Group\x00 Relative",
            "3:17: (file)", "control character U+0000 is not allowed", "delete it"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_hostile_number_is_refused_at_its_place(tmp_path: Path, case: Hostile) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, case.rel, case.old, case.new)
    run = run_validate(tmp_path)
    assert run.code == 1, run.out
    wanted = f"catalog/{case.rel}:{case.where}"
    found = [p for p in run.problems if p.where == wanted]
    assert found, f"{wanted} not in {run.wheres}\n{run.out}"
    problem = found[0]
    assert case.message in problem.message
    assert case.hint in (problem.hint or ""), problem.hint
    assert "Traceback" not in run.out + run.err


def test_hostile_values_never_reach_the_json_step(tmp_path: Path) -> None:
    """The reader refuses them itself: no pydantic 'Invalid JSON' message, one problem each."""
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, "value: 4000", "value: " + "[" * 250 + "]" * 250)
    replace_in(root, H100, "value: 989.4", "value: " + "9" * 5000)
    run = run_validate(tmp_path)
    assert "Invalid JSON" not in run.out and "recursion" not in run.out
    assert any(w.startswith("catalog/hardware/h100.yaml:4:10:") for w in run.wheres), run.out


def test_range_reaches_the_editor_schema() -> None:
    """Each bound is a pydantic constraint, so the generated JSON Schema carries it."""
    schema = m.Algorithm.model_json_schema(mode="validation")
    fit = schema["$defs"]["ScaleRLFit"]["properties"]
    assert fit["C_mid"]["properties"]["value"] == {"minimum": 0.001, "maximum": 1e9}
    assert fit["B"]["properties"]["value"] == {"minimum": 0.01, "maximum": 20}
    g = schema["properties"]["typical_g"]["anyOf"][0]
    assert g["properties"]["values"]["items"] == {"minimum": 1, "maximum": 4096}
    hardware = m.Hardware.model_json_schema(mode="validation")["properties"]
    assert hardware["bf16_dense_tflops"]["properties"]["value"]["minimum"] == 0.001
    rows = m.PriceList.model_json_schema(mode="validation")["$defs"]["PriceRow"]["properties"]
    assert rows["train"]["maximum"] == 10_000


def test_the_real_catalog_fits_the_ranges() -> None:
    _, problems = load_catalog(ROOT / "catalog")
    assert [p for p in problems if "cannot exceed" in p.message or "must be" in p.message
            or "less than" in p.message or "greater than" in p.message] == []


@pytest.mark.scale
def test_the_synthetic_catalog_fits_the_ranges() -> None:
    """benchmarks/synth.py's 1,000 algorithms (varied A, B, C_mid) validate (a 1,000-entry check:
    `make test-scale`)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import synth

    template = synth._read_yaml(ROOT / "catalog" / "algorithms" / "grpo.yaml")
    for i in range(1, 1001):
        algo = synth._algorithm(template, i, [f"ref{i}"])
        m.Algorithm.model_validate_json(json.dumps(algo))  # raises if any number is out of range


# --------------------------------------------------------------------------- at the bounds


def _extreme_catalog(tmp_path: Path, *, slow_h100: bool) -> Catalog:
    """Fits at every ScaleRL bound, and a GB200->H100 factor of 1e9 (or 1e-9)."""
    root = copy_valid(tmp_path)
    grpo = (root / GRPO).read_text(encoding="utf-8")
    bounds = [("tiny", "100", "0.01", "0.001", "99.99"), ("huge", "0", "20", "1.0e+9", None),
              ("steep", "100", "20", "0.001", "0"), ("flat", "0.001", "0.01", "1.0e+9", "0")]
    for name, a, b, c_mid, r0 in bounds:
        (root / f"algorithms/{name}.yaml").write_text(
            _variant(grpo, name, name.upper(), a, b, c_mid, reported=True, r0=r0),
            encoding="utf-8")
    low, high = ("0.001", "1.0e+6") if slow_h100 else ("1.0e+6", "0.001")
    replace_in(root, H100, "value: 989.4", f"value: {low}")
    replace_in(root, "hardware/gb200.yaml", "value: 2500", f"value: {high}")
    replace_in(root, GRPO, "values: [8, 16, 64]", "values: [1, 4096]")
    catalog, problems = load_catalog(root)
    # Within the schema's bounds, but outside any GPU generation's (physics_hardware): the one
    # rule these extremes break, with its echo where a run's actual falls below the compute
    # floor of an H100 at 1 GFLOP/s (physics_runs); the charts must still render them.
    assert problems and all((p.field == "bf16_dense_tflops.value" and "range of" in p.message)
                            or (p.field == "actual_gpu_hours.value" and slow_h100)
                            for p in problems), problems
    return catalog


def _compute_to_target(c_mid: float, b: float, fraction: float) -> float | None:
    """The calculator's GB200-hours to ``fraction`` of the gain (its graph's expression)."""
    to_target = next(q for q in resources.convergence() if q.key == "scalerl.gb200_hours")
    return tree.evaluate(tree.to_tree(to_target.expression),
                         {"fit.C_mid": c_mid, "fit.B": b, "scalerl.fraction": fraction})


@pytest.mark.parametrize("slow_h100", [True, False], ids=["factor-1e9", "factor-1e-9"])
def test_values_at_every_bound_render_without_exception(tmp_path: Path, slow_h100: bool) -> None:
    catalog = _extreme_catalog(tmp_path, slow_h100=slow_h100)
    factor = derive.conversion_factor(catalog)
    assert math.isfinite(factor.value) and factor.value > 0
    for chart_id in spec.chart_ids(catalog):
        chart = spec.build_chart(catalog, chart_id, factor)
        for series in chart.series:
            assert all(math.isfinite(c) and 0 <= r <= 1 for c, r in series.points)
            assert all(math.isfinite(h) for h in series.h100_hours)
            assert math.isfinite(series.midpoint_reward)
            for fraction in (0.5, 0.9):  # the calculator's compute to the target
                hours = _compute_to_target(series.params.C_mid, series.params.B, fraction)
                assert hours is not None and math.isfinite(hours)
        json.dumps(plotlyspec.plotly_figure(chart), allow_nan=False)
        data.to_csv(chart)
        json.dumps(data.to_json(chart), allow_nan=False)
        svg.standalone_svg(chart)
        spec.attribution(chart)


def test_zero_tflops_past_validation_is_a_located_problem(tmp_path: Path) -> None:
    """A value validation refuses, forced past it: a located CatalogError, not a bare
    ZeroDivisionError."""
    catalog = load_valid_catalog(copy_valid(tmp_path))
    entry = catalog.entries["hardware"]["h100"]
    tflops = entry.model.bf16_dense_tflops.model_copy(update={"value": 0.0})
    entry.model = entry.model.model_copy(update={"bf16_dense_tflops": tflops})
    catalog.entries["hardware"] = dict(catalog.entries["hardware"])  # a new dict: not cached
    with pytest.raises(CatalogError) as err:
        derive.conversion_factor(catalog)
    assert err.value.problems[0].format().startswith(
        f"{entry.doc.path}:4:10: bf16_dense_tflops.value:")


def test_huge_c_mid_past_validation_is_a_located_problem(tmp_path: Path) -> None:
    """C_mid = 1e308 crashed the chart with OverflowError; forced past validation it is a
    CatalogError at the algorithm's C_mid."""
    catalog = load_valid_catalog(copy_valid(tmp_path))
    grpo = catalog.entries["algorithm"]["grpo"]
    fit = grpo.model.scalerl
    huge = fit.C_mid.model_copy(update={"value": 1e308})
    grpo.model = grpo.model.model_copy(update={"scalerl": fit.model_copy(update={"C_mid": huge})})
    catalog.entries["algorithm"] = dict(catalog.entries["algorithm"])  # a new dict: not cached
    with pytest.raises(CatalogError) as err:
        spec.build_chart(catalog, "scalerl-grpo")
    assert err.value.problems[0].format().startswith(
        f"{grpo.doc.path}:42:12: scalerl.C_mid.value:")


def test_curve_and_formatting_never_overflow() -> None:
    params = derive.SigmoidParams(A=0.5, B=20.0, C_mid=1e300, R0=0.1)
    assert derive.scalerl_reward(params, 1e-300) == 0.1  # (C_mid / C)^B overflows: R0
    # the calculator's compute to 99.9% of the gain at B = 0.001 leaves a float's range: no
    # value (the page shows none), not an exception or an infinity
    assert _compute_to_target(1e9, 1e-3, 0.999) is None
    assert derive.format_number(math.inf) == "∞"
    assert derive.format_money(math.inf) == "$∞"
