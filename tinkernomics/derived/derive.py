"""Derived numbers (pipeline step 5): the only place with arithmetic on catalog values.

Pages, charts, the API and the calculator all call these functions, so a figure such as an
H100-equivalent hour count or a curve point is computed once, the same way everywhere. Nothing
here is stored back into the catalog.

Validation keeps every input in a range where this arithmetic stays finite
(``catalog/numbers.py``); each division and power still checks what it is given, and a value it
cannot use raises ``DerivedError`` naming the entry and field (``CatalogError``, located, where
the catalog is at hand), never a bare ``ZeroDivisionError`` or ``OverflowError``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import UNIT_LABELS, Status, Unit
from tinkernomics.catalog.problems import CatalogError
from tinkernomics.catalog.yamlread import Loc
from tinkernomics.derived import numberformat
from tinkernomics.derived.calculator import compiled, tree

DEFAULT_CONVERSION = "gb200_to_h100"
"""Conversion used for the H100-equivalent axis and columns."""

PERCENT = 100.0
RANGE_HINT = "validation should have refused this value: report it, and fix the field's range"


class DerivedError(ValueError):
    """A derived number that cannot be computed from the values it reads (a zero divisor, a
    result beyond a float's range). Names the field it comes from (``loc``, inside the entry
    ``kind``/``key`` when known), so a caller holding the catalog reports it located."""

    def __init__(self, message: str, loc: Loc, kind: str = "", key: str = "") -> None:
        super().__init__(f"{kind} {key}: {message}" if key else message)
        self.message, self.loc, self.kind, self.key = message, loc, kind, key

    def located(self, catalog: Catalog, kind: str = "", key: str = "") -> CatalogError:
        """The problem at its file:line:col (``kind``/``key`` name the entry if it did not)."""
        problem = catalog.problem(kind or self.kind, key or self.key, self.loc, self.message,
                                  RANGE_HINT)
        return CatalogError([problem])


# --------------------------------------------------------------------------- formatting


def format_number(value: float, *, digits: int = 3) -> str:
    """Readable number: thousands separators, up to ``digits`` significant decimals
    (``numberformat.PAGE``)."""
    if not math.isfinite(value):  # never from a valid catalog; text, not a crash in floor()
        return "∞" if value > 0 else "-∞" if value < 0 else "n/a"
    return numberformat.write(value, numberformat.with_digits(numberformat.PAGE, digits))


MONEY_SUFFIX: dict[Unit, str] = {
    Unit.usd: "",
    Unit.usd_per_hour: "/h",
    Unit.usd_per_gpu_hour: " per GPU-hour",
    Unit.usd_per_million_tokens: " per 1M tokens",
    Unit.usd_per_gb_month: " per GB-month",
}
"""Money units are written as $ amounts with these suffixes."""


def format_money(value: float) -> str:
    """``$6,000``, ``$0.10``, ``$6.225``: whole dollars bare, cents kept, no rounding away."""
    if not math.isfinite(value):
        return f"${format_number(value)}"
    if float(value).is_integer():
        return f"${int(value):,}"
    cents = f"{value:,.2f}"
    if float(cents.replace(",", "")) == value:
        return f"${cents}"
    return f"${format_number(value, digits=4)}"


def unit_label(unit: Unit) -> str:
    return UNIT_LABELS[unit]


def format_figure(figure: m.Figure) -> str:
    """``≈4,000–5,000 GB200-hours``, ``50%``, ``$0.40``-style text for a figure."""
    number = format_number(figure.value)
    if figure.high is not None:
        number = f"{number}–{format_number(figure.high)}"
    prefix = "≈" if figure.approx else ""
    label = unit_label(figure.unit)
    if figure.unit in MONEY_SUFFIX:
        money = format_money(figure.value)
        if figure.high is not None:
            money = f"{money}–{format_money(figure.high)}"
        return f"{prefix}{money}{MONEY_SUFFIX[figure.unit]}"
    if figure.unit == Unit.percent:
        return f"{prefix}{number}%"
    if figure.unit in (Unit.ratio, Unit.multiplier):
        return f"{prefix}{number}×"
    return f"{prefix}{number} {label}".strip()


# --------------------------------------------------------------------------- hardware


@dataclass(frozen=True)
class Factor:
    """A compute-equivalence factor derived from two hardware entries."""

    id: str
    value: float
    from_id: str
    to_id: str
    from_name: str
    to_name: str
    basis: str
    numerator: m.Figure
    denominator: m.Figure
    status: Status
    legacy: m.Figure | None

    @property
    def text(self) -> str:
        return f"{format_number(self.value)}×"


def conversion_factor(catalog: Catalog, conversion_id: str = DEFAULT_CONVERSION) -> Factor:
    """Factor = peak dense BF16 of ``from`` / peak dense BF16 of ``to`` (e.g. GB200/H100)."""
    conv = catalog.conversions[conversion_id]
    src, dst = catalog.hardware[conv.from_hardware], catalog.hardware[conv.to_hardware]
    inputs = (src.bf16_dense_tflops, dst.bf16_dense_tflops)
    status = (Status.unverified if any(f.status == Status.unverified for f in inputs)
              else Status.derived)
    value = inputs[0].value / inputs[1].value if inputs[1].value > 0 else math.nan
    if not (math.isfinite(value) and value > 0):  # validation: TFLOP/s from 0.001 to 1e6
        bad = dst if not inputs[1].value > 0 else src
        raise DerivedError(f"the {conv.id} factor cannot be computed from "
                           f"{inputs[0].value} / {inputs[1].value} TFLOP/s",
                           ("bf16_dense_tflops", "value"), "hardware", bad.id).located(catalog)
    return Factor(
        id=conv.id, value=value, from_id=src.id, to_id=dst.id,
        from_name=src.name, to_name=dst.name, basis=conv.basis, numerator=inputs[0],
        denominator=inputs[1], status=status, legacy=conv.legacy_factor,
    )


def h100_equivalent_hours(gb200_hours: float, factor: Factor) -> float:
    """GB200-hours expressed as H100-hours of equal peak dense BF16 compute."""
    return gb200_hours * factor.value


def legacy_h100_equivalent_hours(gb200_hours: float, factor: Factor) -> float | None:
    """The same hours under the conversion's legacy factor (None if it has none), for comparison."""
    return None if factor.legacy is None else gb200_hours * factor.legacy.value


# --------------------------------------------------------------------------- ScaleRL


@dataclass(frozen=True)
class SigmoidParams:
    """ScaleRL fit in plain numbers: pass rates as fractions, compute in GB200-hours."""

    A: float
    B: float
    C_mid: float
    R0: float


def sigmoid_params(fit: m.ScaleRLFit) -> SigmoidParams:
    """Fit parameters as fractions (percent / 100); R0 is 0 when the fit gives none.
    ``DerivedError`` (at ``scalerl.<name>.value``) for a B or C_mid that is not positive."""
    for name in ("B", "C_mid"):
        number = getattr(fit, name).value
        if not (math.isfinite(number) and number > 0):  # validation: B >= 0.01, C_mid >= 0.001
            raise DerivedError(f"{name} must be a positive number (got {number})",
                               ("scalerl", name, "value"))
    r0 = fit.R0.value / PERCENT if fit.R0 is not None else 0.0
    return SigmoidParams(fit.A.value / PERCENT, fit.B.value, fit.C_mid.value, r0)


SCALERL_REWARD = "R0 if C <= 0 else R0 + (A - R0) / (1.0 + (C_mid / C) ** B)"
"""The ScaleRL sigmoid R(C), written once: ``scalerl_reward`` and ``curve_points`` evaluate it
(compiled once, ``_formula``) and the calculator's graph reads it with its own names
(``scalerl_expression``)."""
SCALERL_COMPUTE = "C_mid / (1.0 / f - 1.0) ** (1.0 / B)"
"""Its inverse: the compute C at which R reaches R0 + f * (A - R0) (the calculator's compute to
the target, ``resources.convergence``)."""


def scalerl_expression(formula: str, **names: str) -> str:
    """``formula`` with its variables renamed (``C="scalerl.gb200_hours"``)."""
    return re.sub(r"(?<![\w.])([A-Za-z_]\w*)(?![\w.])",
                  lambda found: names.get(found.group(1), found.group(1)), formula)


def _sigmoid_env(p: SigmoidParams, **more: float) -> dict[str, float]:
    return {"A": p.A, "B": p.B, "C_mid": p.C_mid, "R0": p.R0, **more}


Formula = Callable[[Mapping[str, float]], float | None]
"""Names -> the formula's value, or None where it has no finite real value."""


@lru_cache(maxsize=8)
def _formula(expression: str) -> Formula:
    """``expression`` as one Python function computing what the calculator's evaluator
    (``tree.evaluate``) computes, bit for bit (``compiled.compile_graph``: the same float
    operations in the same order), parsed and compiled once per formula text rather than
    walked node by node at each of a curve's points; the walk itself if it cannot compile."""
    parsed = tree.to_tree(expression)
    function = compiled.compile_graph([("value", None, parsed)])
    if function is None:
        return lambda env: tree.evaluate(parsed, env)
    return lambda env: function(env)[0]


def scalerl_reward(p: SigmoidParams, compute: float) -> float:
    """R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B); R(0) = R0 (``SCALERL_REWARD``)."""
    return curve_points(p, (compute,))[0][1]


def log_grid(low: float, high: float, points: int) -> list[float]:
    """``points`` values spaced evenly on a log scale from ``low`` to ``high`` inclusive."""
    if points < 2 or not 0 < low < high < math.inf:
        raise ValueError("need points >= 2 and 0 < low < high < inf")
    step = (math.log10(high) - math.log10(low)) / (points - 1)
    return [10 ** (math.log10(low) + i * step) for i in range(points)]


def curve_points(p: SigmoidParams, computes: Iterable[float]) -> list[tuple[float, float]]:
    """(compute, reward) pairs along the fitted curve: ``SCALERL_REWARD`` at each compute."""
    reward, env = _formula(SCALERL_REWARD), _sigmoid_env(p, C=0.0)
    points = []
    for c in computes:
        env["C"] = c
        value = reward(env)
        # far below C_mid (C_mid / C)^B overflows and the curve sits at R0 (validated ranges
        # avoid it)
        points.append((c, p.R0 if value is None else value))
    return points


# --------------------------------------------------------------------------- formulas


@dataclass(frozen=True)
class WorkedExample:
    """A formula evaluated at its variables' example values."""

    inputs: dict[str, float]
    result: float
    unit: Unit


def worked_example(formula: m.Formula) -> WorkedExample:
    """Evaluate the formula's own expression at the example values of its variables (by the
    calculator's evaluator; ExpressionError, naming the expression, if it has no finite value)."""
    inputs = {v.name: v.example for v in formula.variables}
    return WorkedExample(inputs, tree.value_of(formula.expression, inputs), formula.result_unit)


# --------------------------------------------------------------------------- models


def active_params_billion(model: m.LanguageModel) -> float:
    """Active parameters in billions (the total for dense models)."""
    return (model.active_params or model.total_params).value


# --------------------------------------------------------------------------- self-hosting


def setup_cost_usd(setup: m.SetupCost) -> tuple[float, float | None]:
    """Engineering cost of a self-hosted stack: weeks x hours per week x hourly rate.

    Returns (low, high); high is None unless the duration is a range.
    """
    per_week = setup.hours_per_week.value * setup.hourly_rate.value
    high = None if setup.duration.high is None else setup.duration.high * per_week
    return setup.duration.value * per_week, high
