"""Converters of the public API (pipeline step 5): one authoring entry -> its public model.

Every number is either a catalog value copied as is, or computed by ``derive`` (conversion
factors, H100-equivalent hours, ScaleRL curve points, formula worked examples, the self-hosting
setup cost) and then marked ``status: derived`` with its inputs named and located (a
``<file>#<JSON pointer>`` path inside the API). Nothing here does arithmetic of its own beyond
rounding for publication and percent scaling. Each kind's converter is named in its declaration
(``site.kinds``); ``api.build.build_api`` runs them over the catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter

from tinkernomics.catalog import models as m
from tinkernomics.catalog import walk
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import UNIT_LABELS, Status, Unit
from tinkernomics.derived import derive
from tinkernomics.site.api.entries import (
    Algorithm,
    Conversion,
    Curve,
    CurvePoint,
    Formula,
    PriceList,
    PriceRow,
    Reference,
    ScaleRL,
    SetupCost,
    Variable,
    WorkedExample,
)
from tinkernomics.site.api.generic import SIMPLE_PUBLIC
from tinkernomics.site.api.provenance import (
    ApiModel,
    Citation,
    Derivation,
    DerivationInput,
    Figure,
    FigureList,
)
from tinkernomics.site.api.version import PLATFORM_PATH
from tinkernomics.site.paths import algorithm_path

CURVE_LOW_GB200_HOURS = 100.0
CURVE_HIGH_GB200_HOURS = 100_000.0
CURVE_POINTS = 31
"""ScaleRL curves are sampled on one shared log grid (10 points a decade) so algorithms line up."""

SIGNIFICANT_DIGITS = 12
"""Computed values are rounded to this many significant digits so a libm's last-bit difference
cannot change the published files."""


# --------------------------------------------------------------------------- builder helpers


CURVE_DIGITS = 6
"""A curve point's significant digits: a sampled curve, drawn or tabled, as the chart files give
it (``charts.spec.num``); at 12 digits the points were 40% of an algorithm's document, which
the collection repeats (1 MB at 1,000 algorithms, issue 47). A and the other figures keep 12."""


def _sig(value: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """A computed value rounded to SIGNIFICANT_DIGITS (see there), or to ``digits``."""
    return float(f"{value:.{digits}g}")


def figure_data(f: m.Figure) -> dict[str, Any]:
    """A catalog figure, copied as is, as the data of a public ``Figure`` (validated with the
    model that holds it: one validation per entry, not one per nested value)."""
    return {"value": f.value, "high": f.high, "approx": f.approx, "unit": f.unit,
            "unit_label": UNIT_LABELS[f.unit], "status": f.status, "source": f.source,
            "locator": f.locator, "note": f.note, "reported_instead": f.reported_instead,
            "asserted_by": f.asserted_by, "derivation": None}


def figure(f: m.Figure) -> Figure:
    """A catalog figure, copied as is."""
    return Figure.model_validate(figure_data(f))


def input_of(name: str, f: Figure, path: str) -> DerivationInput:
    """A figure used as an input of a computation."""
    return DerivationInput(name=name, value=f.value, unit=f.unit, status=f.status,
                           source=f.source, path=path)


def _inputs_status(figures: Iterable[Figure], extra: Iterable[Status] = (),
                   ) -> Literal[Status.reported, Status.unverified]:
    statuses = [f.derivation.inputs_status if f.derivation else f.status for f in figures]
    return Status.unverified if Status.unverified in [*statuses, *extra] else Status.reported


def _sources(figures: Iterable[Figure], extra: Iterable[str] = ()) -> list[str]:
    found = set(extra)
    for f in figures:
        found.update(f.derivation.sources if f.derivation else [f.source or ""])
    return sorted(found - {""})


def derivation(method: str, expression: str, named: list[tuple[str, Figure, str]], *,
               extra_inputs: Iterable[DerivationInput] = (), extra_status: Iterable[Status] = (),
               extra_sources: Iterable[str] = ()) -> Derivation:
    """Derivation record of a computation over named figures (name, figure, API path)."""
    figures = [f for _, f, _ in named]
    return Derivation(
        method=method, expression=expression,
        inputs=[*(input_of(n, f, p) for n, f, p in named), *extra_inputs],
        inputs_status=_inputs_status(figures, extra_status),
        sources=_sources(figures, extra_sources),
    )


def derived(value: float, unit: Unit, how: Derivation, *, high: float | None = None,
            note: str | None = None) -> Figure:
    """A figure computed here."""
    return Figure(value=_sig(value), high=None if high is None else _sig(high), approx=False,
                  unit=unit, unit_label=UNIT_LABELS[unit], status=Status.derived, source=None,
                  locator=None, note=note, reported_instead=None, asserted_by=None, derivation=how)


def _copy(obj: BaseModel, cls: type[ApiModel], **extra: Any) -> Any:
    """Public ``cls`` from an authoring model: same-named fields copied, nested ones converted.

    A public field that the authoring model lacks must be given in ``extra``; an AttributeError
    here means the two drifted apart.
    """
    return cls.model_validate(_data(obj, cls, extra))


def _data(obj: BaseModel, cls: type[ApiModel], extra: dict[str, Any]) -> dict[str, Any]:
    """The data of public ``cls`` from ``obj`` (see ``_copy``): nested models as plain data
    too, which ``cls`` validates in one call with the rest (a ``model_validate`` per nested
    claim, figure and record was a third of the algorithms' conversion, issue 47)."""
    return {name: extra[name] if name in extra else _convert(getattr(obj, name))
            for name in _field_names(cls)}


_FIELD_NAMES: dict[type[BaseModel], tuple[str, ...]] = {}


def _field_names(cls: type[BaseModel]) -> tuple[str, ...]:
    """``cls.model_fields``' names, read once per class (the attribute is a slow descriptor)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(cls.model_fields)
    return names


_PLAIN = (str, int, float, type(None))


def _convert(value: Any) -> Any:
    if isinstance(value, _PLAIN):  # most values: returned before the model checks below
        return value
    if isinstance(value, list):
        return [_convert(v) for v in value]
    if isinstance(value, m.Figure):
        return figure_data(value)
    if isinstance(value, m.FigureList):
        return _data(value, FigureList, {"unit_label": UNIT_LABELS[value.unit]})
    if isinstance(value, m.Variable):
        return _data(value, Variable, {"unit_label": UNIT_LABELS[value.unit]})
    if isinstance(value, m.SetupCost):
        return build_setup_cost(value)
    if isinstance(value, BaseModel):
        return _data(value, SIMPLE_PUBLIC[type(value)], {})
    return value


def item_path(collection: str, entry_id: str) -> str:
    return f"{collection}/{entry_id}.json"


def pointer(collection: str, entry_id: str, *keys: str | int) -> str:
    """``<file>#<JSON pointer>`` of a value inside an item document."""
    return item_path(collection, entry_id) + "#/result/" + "/".join(str(k) for k in keys)


# --------------------------------------------------------------------------- builders


@dataclass(frozen=True)
class FactorView:
    """The default GB200->H100 factor as a derived public figure (None if not in the catalog),
    and the shared curve grid in H100-hours by it (the same for every curve: computed once)."""

    factor: derive.Factor
    figure: Figure
    path: str
    grid_h100: tuple[float, ...] = ()


def conversion_figure(catalog: Catalog, conversion_id: str) -> tuple[derive.Factor, Figure]:
    """A conversion's factor (derive.conversion_factor) as a derived figure."""
    f = derive.conversion_factor(catalog, conversion_id)
    src, dst = figure(f.numerator), figure(f.denominator)
    how = derivation("conversion_factor", "from_tflops / to_tflops", [
        ("from_tflops", src, pointer("hardware", f.from_id, "bf16_dense_tflops")),
        ("to_tflops", dst, pointer("hardware", f.to_id, "bf16_dense_tflops")),
    ])
    return f, derived(f.value, Unit.ratio, how, note=f.basis)


def default_factor(catalog: Catalog) -> FactorView | None:
    if derive.DEFAULT_CONVERSION not in catalog.conversions:
        return None
    factor, fig = conversion_figure(catalog, derive.DEFAULT_CONVERSION)
    grid_h100 = tuple(_sig(derive.h100_equivalent_hours(c, factor), CURVE_DIGITS)
                      for c in curve_grid())
    return FactorView(factor, fig, pointer("conversions", factor.id, "factor"), grid_h100)


def build_conversion(catalog: Catalog, conv: m.Conversion) -> Conversion:
    _, fig = conversion_figure(catalog, conv.id)
    return _copy(conv, Conversion, factor=fig, api_path=item_path("conversions", conv.id))


def curve_grid() -> list[float]:
    """The shared compute grid of every published curve, in GB200-hours."""
    return derive.log_grid(CURVE_LOW_GB200_HOURS, CURVE_HIGH_GB200_HOURS, CURVE_POINTS)


_POINTS = TypeAdapter(list[CurvePoint])
"""Validates a curve's points in one call (31 ``model_construct`` calls cost four times more)."""


GRID_GB200 = tuple(_sig(c, CURVE_DIGITS) for c in curve_grid())
"""The shared grid's compute column as published (``curve_grid`` rounded), the same for every
curve: rounded once at import, not once per point of every curve."""


def _curve_points(params: derive.SigmoidParams, fv: FactorView | None) -> list[CurvePoint]:
    """A fit's curve on the shared grid; the grid's columns are the same for every curve (the
    H100 one is the factor's, ``FactorView.grid_h100``), only the reward is the fit's."""
    grid = curve_grid()
    h100: Iterable[float | None] = fv.grid_h100 if fv is not None else [None] * len(grid)
    points: list[CurvePoint] = _POINTS.validate_python([
        {"gb200_hours": c, "h100_equivalent_hours": h,
         "reward_percent": _sig(r * derive.PERCENT, CURVE_DIGITS)}
        for c, (_, r), h in zip(GRID_GB200, derive.curve_points(params, grid), h100,
                                strict=True)
    ])
    return points


def build_scalerl(algo_id: str, fit: m.ScaleRLFit, fv: FactorView | None) -> ScaleRL:
    """The fit as published, with C_mid in H100-hours and the curve (both derived)."""
    A, B, C_mid = figure(fit.A), figure(fit.B), figure(fit.C_mid)
    R0 = figure(fit.R0) if fit.R0 is not None else None
    at = lambda name: pointer("algorithms", algo_id, "scalerl", name)  # noqa: E731
    h100 = None
    named = [("A", A, at("A")), ("B", B, at("B")), ("C_mid", C_mid, at("C_mid"))]
    if R0 is not None:
        named.append(("R0", R0, at("R0")))
    if fv is not None:
        how = derivation("h100_equivalent_hours", "C_mid * factor",
                         [("C_mid", C_mid, at("C_mid")), ("factor", fv.figure, fv.path)])
        high = (derive.h100_equivalent_hours(fit.C_mid.high, fv.factor)
                if fit.C_mid.high is not None else None)
        h100 = derived(derive.h100_equivalent_hours(fit.C_mid.value, fv.factor), Unit.gpu_hours,
                       how, high=high, note=f"H100-hours: {fv.factor.basis}")
        named.append(("factor", fv.figure, fv.path))
    points = _curve_points(derive.sigmoid_params(fit), fv)
    shape = ("R0 + (A - R0) / (1 + (C_mid / C) ** B)" if R0 is not None
             else "A / (1 + (C_mid / C) ** B)")
    curve = Curve(status=Status.derived, points=points,
                  derivation=derivation("curve_points", shape, named))
    return ScaleRL(model=fit.model, dataset=fit.dataset, setting=fit.setting,
                   curve_label=fit.curve_label, A=A, B=B,
                   C_mid=C_mid, R0=R0, C_mid_h100_equivalent=h100, curve=curve)


def build_setup_cost(setup: m.SetupCost) -> SetupCost:
    """The platform's setup cost with its total recomputed by derive.setup_cost_usd."""
    low, high = derive.setup_cost_usd(setup)
    parts = ("duration", "hours_per_week", "hourly_rate")
    how = derivation("setup_cost_usd", "duration * hours_per_week * hourly_rate", [
        (name, figure(getattr(setup, name)), PLATFORM_PATH + "#/result/setup_cost/" + name)
        for name in parts
    ])
    total = derived(low, Unit.usd, how, high=high)
    return _copy(setup, SetupCost, computed_total=total)


def build_algorithm(algo: m.Algorithm, fv: FactorView | None) -> Algorithm:
    scalerl = build_scalerl(algo.id, algo.scalerl, fv) if algo.scalerl else None
    return _copy(algo, Algorithm, scalerl=scalerl, page=algorithm_path(algo.id),
                 api_path=item_path("algorithms", algo.id))


def build_formula(formula: m.Formula) -> Formula:
    """A formula with its worked example (derive.worked_example) as a derived figure."""
    ex = derive.worked_example(formula)
    inputs = [DerivationInput(name=v.name, value=v.example, unit=v.unit, status=None, source=None,
                              path=pointer("formulas", formula.id, "variables", i, "example"))
              for i, v in enumerate(formula.variables)]
    how = derivation("worked_example", formula.expression, [], extra_inputs=inputs,
                     extra_status=[formula.status], extra_sources=[formula.source])
    worked = WorkedExample(inputs=ex.inputs, result=derived(ex.result, ex.unit, how))
    return _copy(formula, Formula, worked_example=worked,
                 api_path=item_path("formulas", formula.id))


def price_figure(value: float, plist: m.PriceList, row: m.PriceRow) -> Figure:
    """A price in USD per 1M tokens; status and source come from the row, else the list.

    A row that overrides status or source brings its own ``reported_instead``.
    """
    own = row.status is not None or row.source is not None  # as on the Tinker page (views)
    status = row.status or plist.status
    return Figure(
        value=value, high=None, approx=False, unit=Unit.usd_per_million_tokens,
        unit_label=UNIT_LABELS[Unit.usd_per_million_tokens], status=status,
        source=row.source or plist.source, note=row.note, derivation=None,
        locator=row.locator or (None if row.source else plist.locator),
        reported_instead=row.reported_instead if own else plist.reported_instead,
        asserted_by=row.asserted_by if own else plist.asserted_by,
    )


def build_price_list(catalog: Catalog, plist: m.PriceList, latest: str | None) -> PriceList:
    rows = [
        PriceRow(model=row.model, model_name=catalog.models[row.model].name, variant=row.variant,
                 prefill=price_figure(row.prefill, plist, row),
                 sample=price_figure(row.sample, plist, row),
                 train=price_figure(row.train, plist, row), note=row.note,
                 locator=row.locator, change_note=row.change_note)
        for row in plist.rows
    ]
    return _copy(plist, PriceList, rows=rows, latest=plist.id == latest,
                 api_path=item_path("prices", plist.id))


def latest_price_list(catalog: Catalog) -> str | None:
    """Id of the price list with the newest effective date (ties: the larger id)."""
    lists = catalog.price_lists
    return max(lists, key=lambda k: (lists[k].effective, k)) if lists else None


def citations(catalog: Catalog) -> dict[str, list[Citation]]:
    """Reference id -> entries citing it (through any `source` or `references`), sorted; read
    off the catalog's one list of its citations (``walk.cited``, which its validation made:
    issue 47, the API walked every nested model a second time for it)."""
    cited: dict[str, set[tuple[str, str]]] = {}
    for entry, _, ref in walk.cited(catalog):
        if entry.kind.name != "reference" and isinstance(ref, str):
            cited.setdefault(ref, set()).add((entry.kind.name, entry.key))
    return {ref: [Citation(kind=k, id=i) for k, i in sorted(pairs)]
            for ref, pairs in cited.items()}


@dataclass(frozen=True)
class Shared:
    """What the converters share, computed once per build."""

    catalog: Catalog
    factor: FactorView | None
    cited: dict[str, list[Citation]]
    latest: str | None


Convert = Callable[[Shared, Any], ApiModel]
"""How an entry becomes its public model (a kind's ``site.kinds.ApiSide.convert``)."""


def copy_entry(model: type[ApiModel], path: str) -> Convert:
    """The default converter: the entry copied field by field into ``model``, plus its
    ``api_path`` in collection ``path``."""
    return lambda _shared, entry: _copy(entry, model, api_path=item_path(path, entry.id))


def copy_single(model: type[ApiModel], file: str) -> Convert:
    """The default converter of a kind published as one document ``file``."""
    return lambda _shared, entry: _copy(entry, model, api_path=file)


def convert_reference(shared: Shared, ref: m.Reference) -> Reference:
    return _copy(ref, Reference, cited_by=shared.cited.get(ref.id, []),
                 api_path=item_path("references", ref.id))
