"""Formula and hardware views: rendered math, variables, worked examples, GPU specs, the
GB200 -> H100 conversion."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import UNIT_LABELS, Unit
from tinkernomics.catalog.models.hardware import (
    DEFAULT_PRICE_RULE,
    default_rental,
    default_rental_label,
)
from tinkernomics.derived import derive
from tinkernomics.site.pages.views.algorithms import FactorView, factor_view
from tinkernomics.site.pages.views.core import Links, Origin, Shown, SiteIndex, math, prose
from tinkernomics.site.pages.views.kinds import entry_anchor

# --------------------------------------------------------------------------- formulas


@dataclass(frozen=True)
class VariableView:
    name: str
    symbol: Markup
    meaning: str
    unit: str
    example: str


@dataclass(frozen=True)
class FormulaView:
    id: str
    anchor: str
    name: str
    math: Markup
    math_inline: Markup
    result_unit: str
    expression: str
    variables: list[VariableView]
    description: Markup
    provenance: Shown
    example_inputs: list[tuple[Markup, str]]
    example_result: str


def unit_text(unit: Unit) -> str:
    return UNIT_LABELS[unit] or "—"


def _with_unit(value: float, unit: Unit) -> str:
    label = UNIT_LABELS[unit]
    return f"{derive.format_number(value)} {label}".strip()


def formula_view(index: SiteIndex, formula: m.Formula, links: Links) -> FormulaView:
    example = derive.worked_example(formula)
    symbols = {v.name: math(v.symbol) for v in formula.variables}
    origin = Origin("formula", formula.id)
    return FormulaView(
        id=formula.id, anchor=entry_anchor("formula", formula.id) or formula.id,
        name=formula.name, math=math(formula.latex, display=True),
        math_inline=math(formula.latex), result_unit=unit_text(formula.result_unit),
        expression=formula.expression,
        variables=[VariableView(v.name, symbols[v.name], v.meaning, unit_text(v.unit),
                                _with_unit(v.example, v.unit)) for v in formula.variables],
        description=prose(formula.description),
        provenance=index.shown(formula.status.value, formula.status, [formula.source], links,
                               reported_instead=formula.reported_instead, origin=origin,
                               asserted_by=formula.asserted_by),
        example_inputs=[(symbols[name], _with_unit(value, next(
            v.unit for v in formula.variables if v.name == name)))
            for name, value in example.inputs.items()],
        example_result=_with_unit(example.result, example.unit),
    )


def formulas_by_kind(index: SiteIndex, links: Links) -> dict[str, list[FormulaView]]:
    """Formula views grouped by kind (``flops``, ``vram``), each sorted by ``order``."""
    groups: dict[str, list[FormulaView]] = {k.value: [] for k in m.FormulaKind}
    for formula in sorted(index.catalog.formulas.values(), key=lambda f: (f.order, f.id)):
        groups[formula.kind.value].append(formula_view(index, formula, links))
    return groups


# --------------------------------------------------------------------------- hardware


@dataclass(frozen=True)
class PriceView:
    provider: str
    date: str
    price: Shown


@dataclass(frozen=True)
class HardwareView:
    id: str
    anchor: str
    name: str
    specs: list[tuple[str, Shown | None]]
    spec_notes: list[tuple[str, str, Markup]]
    prices: list[PriceView]
    notes: Markup | None
    default_price: str = ""
    """Which rental price the calculator takes by default, and by what rule (the same for
    every GPU); says so when the GPU has none."""


@dataclass(frozen=True)
class ConversionView:
    anchor: str
    title: str
    factor: FactorView
    description: Markup
    alternatives: list[Shown]


HARDWARE_SPECS = (("bf16_dense_tflops", "Peak dense BF16"),
                  ("bf16_sparse_tflops", "Peak BF16 with 2:4 sparsity"), ("memory_gb", "Memory"),
                  ("bandwidth_tb_s", "Memory bandwidth"), ("power_w", "Board power"))


def _default_price(hw: m.Hardware) -> str:
    row = default_rental(hw)
    if row is None:
        return "No rental price listed: the calculator asks for a price per GPU-hour."
    return (f"The calculator's default: {derive.format_figure(row.price)} "
            f"({default_rental_label(hw)}): {DEFAULT_PRICE_RULE}, the same rule for every GPU.")


def hardware_views(index: SiteIndex, links: Links) -> list[HardwareView]:
    views = []
    for hw in index.catalog.hardware.values():
        def at(*loc: str | int, key: str = hw.id) -> Origin:
            return Origin("hardware", key, loc)

        specs = [(label, index.figure(getattr(hw, name), links, at(name))
                  if getattr(hw, name) else None) for name, label in HARDWARE_SPECS]
        prices = [PriceView(p.provider, p.date,
                            index.figure(p.price, links, at("rental_prices", i, "price")))
                  for i, p in enumerate(hw.rental_prices)]
        notes = [(label, str(s.text), s.note) for label, s in specs if s and s.note]
        views.append(HardwareView(hw.id, entry_anchor("hardware", hw.id) or hw.id, hw.name,
                                  specs, notes, prices, prose(hw.notes) if hw.notes else None,
                                  _default_price(hw)))
    return views


def conversion_view(index: SiteIndex, links: Links) -> ConversionView:
    conv = index.catalog.conversions[index.factor.id]
    return ConversionView(
        anchor=entry_anchor("conversion", conv.id) or conv.id,
        title=f"{index.factor.from_name} → {index.factor.to_name}",
        factor=factor_view(index, links, home=True),
        description=prose(conv.description),
        alternatives=[index.claim(c, links, Origin("conversion", conv.id, ("alternatives", i)))
                      for i, c in enumerate(conv.alternatives)],
    )


