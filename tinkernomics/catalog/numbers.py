"""Number ranges of the authoring models (pipeline step 2: pydantic validation).

Catalog numbers come from strangers, so every number a model holds has a sane range, declared on
its field as a pydantic bound: it reaches the generated JSON Schema (editors flag it) and an
out-of-range value is reported at its own line:col with its field path and a hint.

- A plain number field uses pydantic's own ``ge``/``gt``/``le`` plus a ``RangeHint`` (what the
  number is and its usual values), which ``messages`` adds to pydantic's bare message.
- A figure slot (``Figure`` or ``FigureList``: one model whose ``value`` means a pass rate in one
  slot and TFLOP/s in another) is annotated with a ``FigureRange``, which checks the slot's
  ``value``/``high`` (or every item of ``values``) once the figure itself validated, reports the
  error at that number, and adds the bounds to the slot's JSON Schema.

Bounds are generous (no real value comes near them; the real catalog and the 1,000-algorithm
synthetic one sit well inside) yet tight enough that no derived number can overflow:
``derived/`` (curves, the GB200->H100 factor, costs) relies on them, e.g. C_mid <= 1e9 and
B <= 20 keep (C_mid / C)^B finite over the whole chart axis, and TFLOP/s >= 0.001 keeps the
conversion factor a finite, non-zero number.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

RANGE_ERROR = "number_range"
"""Error type of a ``FigureRange`` violation; its ``ctx`` says where (``at``) and why (``hint``)."""


def show_number(number: float) -> str:
    """A bound or a value in a message: ``150``, ``-4000``, ``0.001``, ``1e9``, ``1.5e308``."""
    if abs(number) < 1e6 and (isinstance(number, int) or number.is_integer()):
        return str(int(number))
    value = number if isinstance(number, float) else Decimal(number)  # any int, however large
    mantissa, _, exponent = f"{value:.6g}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


@dataclass(frozen=True)
class RangeHint:
    """Annotated metadata on a plain number field: what the number is and its usual values,
    shown as the hint when the value is out of range. Pydantic ignores it; ``messages`` reads it."""

    text: str


@dataclass(frozen=True)
class FigureRange:
    """Bounds of the numbers in one figure slot (``Annotated[Figure, FigureRange(...)]``)."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    hint: str = ""

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(schema)
        known = handler.resolve_ref_schema(json_schema).get("properties", {})
        number: dict[str, Any] = {"minimum": self.ge, "exclusiveMinimum": self.gt,
                                  "maximum": self.le}
        number = {key: bound for key, bound in number.items() if bound is not None}
        wanted = {"value": number, "high": {"anyOf": [number, {"type": "null"}]},
                  "values": {"items": number}}
        return {**json_schema,
                "properties": {name: wanted[name] for name in wanted if name in known}}

    def problem(self, number: float, unit: str = "") -> str | None:
        """What is wrong with ``number`` in this slot, in the rules' words; None if it fits."""
        low = self.ge if self.ge is not None else self.gt
        too_low = (self.ge is not None and number < self.ge) or (
            self.gt is not None and number <= self.gt)
        if not too_low and (self.le is None or number <= self.le):
            return None  # the common case: no message to word (issue 47)
        got = f"(got {show_number(number)})"
        if too_low and number < 0 <= (low or 0):
            return f"must not be negative {got}"
        if too_low and self.ge is not None:
            return f"must be at least {show_number(self.ge)} {got}"
        if too_low:
            return f"must be greater than {show_number(low or 0)} {got}"
        if self.le is not None and number > self.le:
            return f"{unit + ' ' if unit else ''}cannot exceed {show_number(self.le)} {got}"
        return None

    def check(self, figure: Any) -> Any:
        unit = getattr(getattr(figure, "unit", None), "value", "")
        unit = unit if unit in ("percent", "fraction") else ""  # "percent cannot exceed 100"
        for at, number in figure_numbers(figure):
            message = self.problem(number, unit)
            if message is not None:
                raise PydanticCustomError(RANGE_ERROR, "{message}",
                                          {"message": message, "at": at, "hint": self.hint})
        return figure


def figure_numbers(figure: Any) -> Iterator[tuple[tuple[str | int, ...], float]]:
    """(where inside the figure, number) for its ``value`` and ``high``, or each of ``values``.
    A model's fields are read from its ``__dict__``: a figure class without ``high`` or
    ``values`` would send ``getattr`` down pydantic's slow path for a missing name (issue 47)."""
    fields = getattr(figure, "__dict__", None)
    read = fields.get if isinstance(fields, dict) else lambda name: getattr(figure, name, None)
    for name in ("value", "high"):
        number = read(name)
        if isinstance(number, int | float):
            yield (name,), number
    for index, number in enumerate(read("values") or ()):
        yield ("values", index), number


# --------------------------------------------------------------------------- the slots

SCALERL_A = FigureRange(ge=0, le=100, hint="A is the asymptotic pass rate, in percent: 0-100")
SCALERL_R0 = FigureRange(ge=0, le=100, hint="R0 is the starting pass rate, in percent: 0-100")
SCALERL_B = FigureRange(
    ge=0.01, le=20,
    hint="B is the ScaleRL scaling exponent; fits report about 1-3 (allowed 0.01-20)",
)
# Below 0.01 the curve rises over hundreds of decades; above 20 it is a step. Either way
# (C_mid / C)^B and C_mid / (1/f - 1)^(1/B) would leave the range of a float.
SCALERL_C_MID = FigureRange(
    ge=0.001, le=1e9,
    hint="C_mid is the compute at half the gain, in GB200-hours; fits report thousands "
         "(allowed 0.001 to 1e9)",
)
# 1e9 GB200-hours is about a thousand times the largest RL run reported; the chart axis runs
# to 30x the largest C_mid and its H100-equivalent scale multiplies that by the factor.

TYPICAL_G = FigureRange(
    ge=1, le=4096,
    hint="G is the number of completions per prompt; papers use 4-1024 (allowed 1-4096)",
)
TYPICAL_K = FigureRange(
    ge=1, le=1000,
    hint="K is the number of optimisation passes over each batch; papers use 1-4 "
         "(allowed 1-1000)",
)
# The calculator takes G up to 1e5 and K up to 1e3 from a link; the catalog's typical values
# stay inside that, so a default run is always one the calculator can price.

TFLOPS = FigureRange(
    ge=0.001, le=1e6,
    hint="peak dense BF16 TFLOP/s of one accelerator; an H100 has 989 (allowed 0.001 to 1e6)",
)
# The GB200->H100 factor divides one TFLOP/s by another: a positive floor keeps it finite.
MEMORY_GB = FigureRange(ge=0.1, le=1e5,
                        hint="memory of one accelerator in GB; an H100 has 80 (allowed 0.1-1e5)")
BANDWIDTH = FigureRange(ge=0.001, le=1e4,
                        hint="memory bandwidth in TB/s; an H100 has 3.35 (allowed 0.001-1e4)")
POWER_W = FigureRange(ge=1, le=1e6, hint="board power in watts; an H100 draws 700 (allowed 1-1e6)")
GPU_HOUR_PRICE = FigureRange(
    ge=0, le=1e4, hint="USD per GPU-hour; rental prices are a few dollars (allowed 0-10,000)")
LEGACY_FACTOR = FigureRange(gt=0, le=1e4,
                            hint="a compute-equivalence ratio, e.g. 2.8 (allowed above 0, to 1e4)")

BILLION_PARAMS = FigureRange(
    ge=0.001, le=1e5,
    hint="parameters in billions; today's models have 0.5-2,000 (allowed 0.001-1e5)",
)
D_MODEL = FigureRange(ge=1, le=1e6, hint="hidden size, e.g. 4096 (allowed 1-1e6)")
DISCOUNT = FigureRange(ge=0, le=100, hint="a discount in percent: 0-100")
STORAGE_PRICE = FigureRange(ge=0, le=1e4, hint="USD per GB-month of storage (allowed 0-10,000)")
HYPERPARAMETER = FigureRange(le=1e6, hint="a loss hyperparameter's default, e.g. 0.2")

SETUP_WEEKS = FigureRange(ge=0, le=520, hint="engineering time in weeks (allowed 0-520)")
SETUP_RATE = FigureRange(ge=0, le=1e4, hint="USD per engineer-hour (allowed 0-10,000)")
SETUP_HOURS = FigureRange(gt=0, le=168, hint="working hours per week (a week has 168)")
SETUP_TOTAL = FigureRange(ge=0, le=1e9, hint="a one-off cost in USD (allowed 0 to 1e9)")

TOKEN_PRICE_MAX = 10_000
"""USD per 1M tokens: frontier APIs charge at most a few hundred."""
TOKEN_PRICE_HINT = RangeHint("USD per 1M tokens; Tinker charges cents to dollars "
                             f"(allowed 0-{TOKEN_PRICE_MAX:,})")
EXAMPLE_MAX = 1e15
"""A worked example's variable (parameters, tokens, bytes): 8e9 parameters is a typical one."""
EXAMPLE_HINT = RangeHint("a worked example's input, e.g. 8e9 parameters or 2048 tokens: "
                         "above 0 (a zero gives a worthless or infinite example), at most 1e15")
ORDER_MAX = 10_000
ORDER_HINT = RangeHint("a position in its table: 0, 1, 2, ... (allowed 0-10,000)")
