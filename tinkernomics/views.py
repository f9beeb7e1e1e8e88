"""Page view models (pipeline step 6): catalog + derive.py -> plain values templates loop over.

Everything a page shows is decided here -- which figures, in what order, formatted how, citing
what, marked how, linking where -- so the Jinja templates only loop, branch and format.

Computed fields, by view:

- ``Links``: relative hrefs from one page to another (the site works under any sub-path).
- ``Cite``: a reference's global number (its position on the References page), its href and the
  hover text; every figure carries at least one.
- ``Shown``: a value with provenance -- formatted text, status, cites, hover text, the note, what
  the sources report instead, and for unverified figures the element id on the page where the
  figure lives plus the link to its Data quality entry.
- ``SiteIndex``: built once per build: reference numbering, back-links (who cites what) and the
  list of unverified items.
- one builder per page (``algorithm_view``, ``tinker_view`` ...).

Nothing here reads files or knows about MkDocs.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from markdown import Markdown
from markupsafe import Markup
from pydantic import BaseModel

from tinkernomics import derive
from tinkernomics import models as m
from tinkernomics.catalog import KINDS, Catalog
from tinkernomics.fields import STATUS_MEANINGS, UNIT_LABELS, Status, Unit
from tinkernomics.mathml import MathExtension, to_mathml
from tinkernomics.rules import PROVENANCE, walk

# --------------------------------------------------------------------------- page addresses

HOME = ""
ALGORITHMS = "algorithms/"
FORMULAS = "formulas/"
HARDWARE = "hardware/"
TINKER = "tinker/"
REFERENCES = "references/"
FURTHER_READING = "further-reading/"
DATA_QUALITY = "data-quality/"
"""Site-relative page paths (``use_directory_urls: true``); docs/<path>.md renders to each."""


def algorithm_path(algo_id: str) -> str:
    return f"{ALGORITHMS}{algo_id}/"


@dataclass(frozen=True)
class Links:
    """Relative links from the page at ``here`` (a site-relative directory path)."""

    here: str

    def to(self, path: str, anchor: str | None = None) -> str:
        """Href of ``path`` (a site-relative directory path), optionally at ``#anchor``."""
        if path == self.here:
            return f"#{anchor}" if anchor else "./"
        rel = posixpath.relpath("/" + path, "/" + self.here)
        href = "./" if rel == "." else rel + "/"
        return f"{href}#{anchor}" if anchor else href


# --------------------------------------------------------------------------- prose and math

_MARKDOWN = Markdown(
    extensions=["pymdownx.arithmatex", MathExtension()],
    extension_configs={"pymdownx.arithmatex": {
        "generic": True, "inline_syntax": ["round"], "block_syntax": ["square"],
    }},
)
_SINGLE_P = re.compile(r"^<p>(.*)</p>$", re.DOTALL)


def prose(text: str) -> Markup:
    """Catalog markdown (validated: no raw HTML) as HTML paragraphs."""
    return Markup(_MARKDOWN.reset().convert(text))


def prose_inline(text: str) -> Markup:
    """Catalog markdown as inline HTML (without the wrapping paragraph)."""
    html = str(prose(text))
    match = _SINGLE_P.match(html)
    return Markup(match.group(1) if match and "<p>" not in match.group(1) else html)


def plain(text: str) -> str:
    """Catalog markdown as plain text (for title attributes)."""
    return prose(text).striptags()


def math(latex: str, *, display: bool = False) -> Markup:
    return Markup(to_mathml(latex, display=display))


def money(value: float) -> str:
    """USD amount as written in the catalog, with at least two decimals: ``$0.195``, ``$15.40``."""
    text = format(Decimal(repr(value)).normalize(), "f")
    whole, _, frac = text.partition(".")
    return f"${int(whole):,}.{frac.ljust(2, '0')}"


def yes_no(flag: bool) -> str:
    return "Yes" if flag else "No"


# --------------------------------------------------------------------------- provenance

STATUS_LABELS: dict[Status, str] = {s: s.value for s in Status}


@dataclass(frozen=True)
class Cite:
    """A footnote-style link to one reference on the References page."""

    ref_id: str
    number: int
    href: str
    hover: str


@dataclass(frozen=True)
class Shown:
    """A value with its provenance, ready for the ``shown`` partial."""

    text: Markup | str
    status: str
    status_meaning: str
    cites: tuple[Cite, ...]
    hover: str
    note: Markup | None = None
    reported_instead: Markup | None = None
    anchor: str | None = None
    quality_href: str | None = None

    @property
    def unverified(self) -> bool:
        return self.status == Status.unverified.value


Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Origin:
    """Where a catalog value lives: entry kind, entry id and the path inside the entry."""

    kind: str
    key: str
    loc: Loc = ()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-")


def entry_anchor(kind: str, key: str) -> str | None:
    """Element id of an entry's block on its page (None when the entry is the whole page)."""
    if kind in ("algorithm", "platform"):
        return None
    if kind == "reference":
        return key
    prefix = {"formula": "formula", "hardware": "hw", "conversion": "conv", "model": "model",
              "loss": "loss", "price_list": "prices"}[kind]
    return f"{prefix}-{_slug(key)}"


def entry_page(kind: str, key: str) -> str:
    """Page path on which an entry is shown."""
    return {
        "algorithm": algorithm_path(key), "reference": REFERENCES, "formula": FORMULAS,
        "hardware": HARDWARE, "conversion": HARDWARE, "model": TINKER, "loss": TINKER,
        "price_list": TINKER, "platform": TINKER,
    }[kind]


def value_anchor(origin: Origin) -> str:
    """Element id of an unverified value where it is shown (a reference: its own entry)."""
    if origin.kind == "reference" and not origin.loc:
        return origin.key
    parts = [origin.kind, origin.key, *(str(p) for p in origin.loc)]
    return "uv-" + _slug("-".join(parts))


def quality_anchor(origin: Origin) -> str:
    return "dq-" + _slug("-".join([origin.kind, origin.key, *(str(p) for p in origin.loc)]))


# --------------------------------------------------------------------------- the site index


@dataclass(frozen=True)
class Backlink:
    label: str
    kind_title: str
    page: str
    anchor: str | None


@dataclass
class SiteIndex:
    """Built once per build: reference order, who cites what, what is unverified."""

    catalog: Catalog
    factor: derive.Factor
    ref_order: list[str]
    backlinks: dict[str, list[Backlink]]
    unverified: list[tuple[Origin, Any]]
    numbers: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.numbers = {ref_id: i + 1 for i, ref_id in enumerate(self.ref_order)}

    def cite(self, ref_id: str, links: Links) -> Cite:
        ref = self.catalog.references[ref_id]  # KeyError: unknown reference id
        bits = [ref.authors, ref.title, ref.venue, str(ref.year) if ref.year else None]
        return Cite(ref_id, self.numbers[ref_id], links.to(REFERENCES, ref_id),
                    ", ".join(b for b in bits if b))

    # ------------------------------------------------------------------ shown values

    def shown(self, text: Markup | str, status: Status, sources: Iterable[str], links: Links,
              *, note: str | None = None, reported_instead: str | None = None,
              origin: Origin | None = None, anchor: bool = True) -> Shown:
        """A value with provenance. ``origin`` marks the value's home: an unverified value gets
        an element id there (unless ``anchor`` is False) and a link to its Data quality entry."""
        cites = tuple(self.cite(s, links) for s in dict.fromkeys(sources))
        meaning = STATUS_MEANINGS[status]
        hover = [f"{status.value.capitalize()}: {meaning}."]
        hover.append("Source: " + "; ".join(c.hover for c in cites) + ".")
        if note:
            hover.append(plain(note))
        if reported_instead:
            hover.append("Sources report instead: " + plain(reported_instead))
        unverified = status == Status.unverified
        return Shown(
            text=text, status=status.value, status_meaning=meaning, cites=cites,
            hover=" ".join(hover),
            note=prose_inline(note) if note else None,
            reported_instead=prose_inline(reported_instead) if reported_instead else None,
            anchor=value_anchor(origin) if origin and unverified and anchor else None,
            quality_href=(links.to(DATA_QUALITY, quality_anchor(origin))
                          if origin and unverified else
                          links.to(DATA_QUALITY) if unverified else None),
        )

    def figure(self, fig: m.Figure, links: Links, origin: Origin | None = None) -> Shown:
        return self.shown(derive.format_figure(fig), fig.status, [fig.source], links,
                          note=fig.note, reported_instead=fig.reported_instead, origin=origin)

    def figure_list(self, figs: m.FigureList, links: Links,
                    origin: Origin | None = None) -> Shown:
        label = UNIT_LABELS[figs.unit]
        text = ", ".join(str(v) for v in figs.values) + (f" {label}" if label else "")
        return self.shown(text, figs.status, [figs.source], links, note=figs.note,
                          reported_instead=figs.reported_instead, origin=origin)

    def claim(self, claim: m.Claim, links: Links, origin: Origin | None = None) -> Shown:
        return self.shown(prose_inline(claim.text), claim.status, [claim.source], links,
                          reported_instead=claim.reported_instead, origin=origin)

    def cites(self, ref_ids: Iterable[str], links: Links) -> list[Cite]:
        return [self.cite(r, links) for r in dict.fromkeys(ref_ids)]


def _sources_in(model: BaseModel) -> Iterator[str]:
    for _, obj, _, _ in walk(model):
        source = getattr(obj, "source", None)
        if isinstance(source, str):
            yield source
        yield from getattr(obj, "references", None) or []


def entry_label(kind: str, model: Any) -> str:
    if kind == "algorithm":
        return model.name
    if kind == "platform":
        return "Tinker platform"
    if kind == "price_list":
        return f"Tinker prices {model.id}"
    if kind == "conversion":
        return f"{model.from_hardware} to {model.to_hardware} conversion"
    if kind == "reference":
        return model.title
    return model.name


KIND_TITLES = {k.name: k.title for k in KINDS}


def _unverified_items(catalog: Catalog) -> list[tuple[Origin, Any]]:
    """Every provenance-carrying value whose own status is unverified, in catalog order."""
    found: list[tuple[Origin, Any]] = []
    for entry in catalog.iter_entries():
        for loc, obj, _, _ in walk(entry.model):
            if isinstance(obj, PROVENANCE) and getattr(obj, "status", None) == Status.unverified:
                found.append((Origin(entry.kind.name, entry.key, loc), obj))
    return found


def _reference_order(catalog: Catalog) -> list[str]:
    refs = catalog.references
    ordered = sorted(refs, key=lambda r: (not refs[r].key, refs[r].title.casefold(), r))
    return ordered


def build_index(catalog: Catalog, factor: derive.Factor) -> SiteIndex:
    backlinks: dict[str, list[Backlink]] = defaultdict(list)
    for entry in catalog.iter_entries():
        kind = entry.kind.name
        if kind == "reference":
            continue
        link = Backlink(entry_label(kind, entry.model), KIND_TITLES[kind],
                        entry_page(kind, entry.key), entry_anchor(kind, entry.key))
        for ref_id in dict.fromkeys(_sources_in(entry.model)):
            backlinks[ref_id].append(link)
    return SiteIndex(catalog, factor, _reference_order(catalog), dict(backlinks),
                     _unverified_items(catalog))


# --------------------------------------------------------------------------- algorithms


@dataclass(frozen=True)
class FactorView:
    shown: Shown
    basis: str
    from_name: str
    to_name: str
    numerator: Shown
    denominator: Shown
    legacy: Shown | None
    href: str


@dataclass(frozen=True)
class ScaleRLView:
    model: str
    dataset: str
    A: Shown
    B: Shown
    C_mid: Shown
    R0: Shown | None
    h100: Shown
    legacy_h100: Shown | None
    factor: FactorView


@dataclass(frozen=True)
class LossLink:
    id: str
    name: str
    href: str


@dataclass(frozen=True)
class AlgorithmRow:
    """One algorithm as a row of the comparison table and the head of its page."""

    id: str
    name: str
    full_name: str
    attribution: str
    year: int
    href: str
    models_in_memory: str
    needs_critic: str
    needs_reward_model: str
    memory_profile: str
    typical_k: Shown
    typical_g: Shown | None
    async_support: str
    rollouts: str
    losses: list[LossLink]
    scalerl: ScaleRLView | None


@dataclass(frozen=True)
class AlgorithmView:
    row: AlgorithmRow
    notes: Markup
    tinker_mapping: Markup | None
    claims: list[Shown]
    references: list[Cite]
    others: list[tuple[str, str]]
    factor_href: str


def factor_view(index: SiteIndex, links: Links, *, home: bool = False) -> FactorView:
    """The GB200 -> H100 factor with its inputs; ``home`` when shown on the Hardware page."""
    f = index.factor
    conv = Origin("conversion", f.id)
    hw = index.catalog.hardware
    numerator = index.figure(f.numerator, links)
    denominator = index.figure(f.denominator, links)
    shown = index.shown(f.text, f.status, [f.numerator.source, f.denominator.source], links,
                        note=f"{f.basis}: {derive.format_figure(f.numerator)} "
                             f"({hw[f.from_id].name}) / {derive.format_figure(f.denominator)} "
                             f"({hw[f.to_id].name})")
    legacy = None
    if f.legacy is not None:
        legacy = index.figure(f.legacy, links,
                              Origin(conv.kind, conv.key, ("legacy_factor",)) if home else None)
    return FactorView(shown, f.basis, f.from_name, f.to_name, numerator, denominator, legacy,
                      links.to(HARDWARE, entry_anchor("conversion", f.id)))


def _scalerl_view(index: SiteIndex, algo: m.Algorithm, links: Links,
                  home: bool) -> ScaleRLView | None:
    fit = algo.scalerl
    if fit is None:
        return None

    def at(name: str) -> Origin | None:
        return Origin("algorithm", algo.id, ("scalerl", name)) if home else None

    factor = factor_view(index, links)
    hours = derive.h100_equivalent_hours(fit.C_mid.value, index.factor)
    worst = (Status.unverified if Status.unverified in (fit.C_mid.status, index.factor.status)
             else Status.derived)
    sources = [fit.C_mid.source, index.factor.numerator.source, index.factor.denominator.source]
    label = f"{derive.format_number(hours)} H100-equivalent hours"
    h100 = index.shown(f"≈{label}", worst, sources, links,
                       note=f"C_mid × {index.factor.text} ({index.factor.basis})")
    legacy_hours = derive.legacy_h100_equivalent_hours(fit.C_mid.value, index.factor)
    legacy = None
    if legacy_hours is not None and index.factor.legacy is not None:
        legacy = index.shown(
            f"{derive.format_number(legacy_hours)} H100-equivalent hours", Status.unverified,
            [fit.C_mid.source, index.factor.legacy.source], links,
            note=f"C_mid × {derive.format_figure(index.factor.legacy)}, the original site's factor",
            reported_instead=index.factor.legacy.reported_instead,
        )
    return ScaleRLView(
        fit.model, fit.dataset, index.figure(fit.A, links, at("A")),
        index.figure(fit.B, links, at("B")), index.figure(fit.C_mid, links, at("C_mid")),
        index.figure(fit.R0, links, at("R0")) if fit.R0 else None, h100, legacy, factor,
    )


ROLE_LABELS = {m.ModelRole.reward_model: "reward model"}


def algorithm_row(index: SiteIndex, algo: m.Algorithm, links: Links, *,
                  home: bool = False) -> AlgorithmRow:
    def at(*loc: str) -> Origin | None:
        return Origin("algorithm", algo.id, loc) if home else None

    losses = [LossLink(lid, index.catalog.losses[lid].name,
                       links.to(TINKER, entry_anchor("loss", lid))) for lid in algo.tinker_losses]
    return AlgorithmRow(
        id=algo.id, name=algo.name, full_name=algo.full_name, attribution=algo.attribution,
        year=algo.year, href=links.to(algorithm_path(algo.id)),
        models_in_memory=", ".join(ROLE_LABELS.get(r, r.value) for r in algo.models_in_memory),
        needs_critic=yes_no(algo.needs_critic),
        needs_reward_model=yes_no(algo.needs_reward_model),
        memory_profile=algo.memory_profile.value,
        typical_k=index.figure_list(algo.typical_k, links, at("typical_k")),
        typical_g=(index.figure_list(algo.typical_g, links, at("typical_g"))
                   if algo.typical_g else None),
        async_support=yes_no(algo.async_support),
        rollouts="online" if algo.online else "offline (no rollouts)",
        losses=losses,
        scalerl=_scalerl_view(index, algo, links, home),
    )


def algorithm_rows(index: SiteIndex, links: Links) -> list[AlgorithmRow]:
    algos = sorted(index.catalog.algorithms.values(), key=lambda a: (a.year, a.name.casefold()))
    return [algorithm_row(index, a, links) for a in algos]


def algorithm_view(index: SiteIndex, algo_id: str) -> AlgorithmView:
    """Everything the page ``algorithms/<id>/`` shows."""
    algo = index.catalog.algorithms.get(algo_id)
    if algo is None:
        known = ", ".join(sorted(index.catalog.algorithms))
        raise KeyError(f"unknown algorithm id {algo_id!r} (known: {known})")
    links = Links(algorithm_path(algo_id))
    others = [(a.name, links.to(algorithm_path(a.id)))
              for a in sorted(index.catalog.algorithms.values(), key=lambda a: a.name.casefold())
              if a.id != algo_id]
    return AlgorithmView(
        row=algorithm_row(index, algo, links, home=True),
        notes=prose(algo.notes),
        tinker_mapping=prose(algo.tinker_mapping) if algo.tinker_mapping else None,
        claims=[index.claim(c, links, Origin("algorithm", algo.id, ("claims", i)))
                for i, c in enumerate(algo.claims)],
        references=index.cites(algo.references, links),
        others=others,
        factor_href=links.to(HARDWARE, entry_anchor("conversion", index.factor.id)),
    )


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
                               reported_instead=formula.reported_instead, origin=origin),
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


@dataclass(frozen=True)
class ConversionView:
    anchor: str
    title: str
    factor: FactorView
    description: Markup
    alternatives: list[Shown]


HARDWARE_SPECS = (("bf16_dense_tflops", "Peak dense BF16"), ("memory_gb", "Memory"),
                  ("bandwidth_tb_s", "Memory bandwidth"), ("power_w", "Board power"))


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
                                  specs, notes, prices, prose(hw.notes) if hw.notes else None))
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


# --------------------------------------------------------------------------- Tinker


@dataclass(frozen=True)
class PrimitiveView:
    name: str
    client: str
    signature: str
    phase: str
    description: Markup
    cite: Cite


@dataclass(frozen=True)
class PriceRowView:
    model: str
    model_href: str
    variant: str
    prefill: str
    sample: str
    train: str
    hover: str
    note: str
    shown: Shown | None


@dataclass(frozen=True)
class PriceListView:
    id: str
    anchor: str
    title: str
    effective: str
    provenance: Shown
    storage: Shown | None
    cached_discount: Shown | None
    rows: list[PriceRowView]
    notes: Markup | None


@dataclass(frozen=True)
class ModelView:
    id: str
    anchor: str
    name: str
    family: str
    architecture: str
    vision: str
    total: Shown
    active: Shown | None
    d_model: Shown | None
    notes: Markup | None


@dataclass(frozen=True)
class HyperparameterView:
    name: str
    description: Markup
    default: Shown | None


@dataclass(frozen=True)
class LossView:
    id: str
    anchor: str
    name: str
    builtin: bool
    math: Markup
    inputs: list[tuple[str, str, str]]
    outputs: list[str]
    hyperparameters: list[HyperparameterView]
    description: Markup
    claims: list[Shown]
    references: list[Cite]
    used_by: list[tuple[str, str]]


@dataclass(frozen=True)
class SetupCostView:
    duration: Shown
    hourly_rate: Shown
    hours_per_week: Shown
    total: Shown
    computed: Shown
    description: Markup


@dataclass(frozen=True)
class TinkerView:
    intro: Markup
    core: list[PrimitiveView]
    other_calls: list[PrimitiveView]
    phases: Markup
    token_types: list[tuple[str, str, Markup]]
    pricing_rationale: Markup
    price_lists: list[PriceListView]
    models: list[ModelView]
    absorbs: list[tuple[str, Markup]]
    setup_cost: SetupCostView
    losses: list[LossView]
    grpo_note: Markup
    spectrum_intro: Markup
    spectrum: list[dict[str, Any]]
    gpu_hours_hide: Markup
    gpu_hours_claims: list[Shown]
    general_purpose_note: Markup
    references: list[Cite]


def _primitive(index: SiteIndex, p: m.Primitive, links: Links) -> PrimitiveView:
    return PrimitiveView(p.name, p.client, p.signature,
                         p.phase.value if p.phase else "—", prose_inline(p.description),
                         index.cite(p.source, links))


def price_list_view(index: SiteIndex, plist: m.PriceList, links: Links) -> PriceListView:
    models = index.catalog.models

    def at(*loc: str | int) -> Origin:
        return Origin("price_list", plist.id, loc)

    provenance = index.shown(plist.status.value, plist.status, [plist.source], links,
                             reported_instead=plist.reported_instead, origin=at())
    rows = []
    for i, row in enumerate(plist.rows):
        own = row.status is not None or row.source is not None
        status = row.status or plist.status
        source = row.source or plist.source
        shown = index.shown(status.value, status, [source], links,
                            reported_instead=row.reported_instead,
                            origin=at("rows", i)) if own else None
        hover = (shown or provenance).hover
        rows.append(PriceRowView(
            model=models[row.model].name, model_href=links.to(TINKER, entry_anchor("model",
                                                                                   row.model)),
            variant=row.variant or "", prefill=money(row.prefill), sample=money(row.sample),
            train=money(row.train), hover=hover, note=row.note or "", shown=shown))
    return PriceListView(
        id=plist.id, anchor=entry_anchor("price_list", plist.id) or plist.id, title=plist.title,
        effective=plist.effective.isoformat(), provenance=provenance,
        storage=(index.figure(plist.storage_usd_per_gb_month, links,
                              at("storage_usd_per_gb_month"))
                 if plist.storage_usd_per_gb_month else None),
        cached_discount=(index.figure(plist.cached_prefill_discount, links,
                                      at("cached_prefill_discount"))
                         if plist.cached_prefill_discount else None),
        rows=rows, notes=prose(plist.notes) if plist.notes else None,
    )


def model_views(index: SiteIndex, links: Links) -> list[ModelView]:
    views = []
    ordered = sorted(index.catalog.models.values(),
                     key=lambda x: (x.family.casefold(), derive.active_params_billion(x), x.id))
    for lm in ordered:
        def at(*loc: str, key: str = lm.id) -> Origin:
            return Origin("model", key, loc)

        views.append(ModelView(
            lm.id, entry_anchor("model", lm.id) or lm.id, lm.name, lm.family,
            "mixture of experts" if lm.architecture == m.Architecture.moe else "dense",
            yes_no(lm.vision), index.figure(lm.total_params, links, at("total_params")),
            index.figure(lm.active_params, links, at("active_params"))
            if lm.active_params else None,
            index.figure(lm.d_model, links, at("d_model")) if lm.d_model else None,
            prose_inline(lm.notes) if lm.notes else None))
    return views


def loss_view(index: SiteIndex, loss: m.TinkerLoss, links: Links) -> LossView:
    def at(*loc: str | int) -> Origin:
        return Origin("loss", loss.id, loc)

    used_by = [(a.name, links.to(algorithm_path(a.id)))
               for a in sorted(index.catalog.algorithms.values(), key=lambda a: a.name.casefold())
               if loss.id in a.tinker_losses]
    return LossView(
        id=loss.id, anchor=entry_anchor("loss", loss.id) or loss.id, name=loss.name,
        builtin=loss.builtin, math=math(loss.latex, display=True),
        inputs=[(i.name, i.dtype, i.description) for i in loss.inputs],
        outputs=list(loss.outputs),
        hyperparameters=[HyperparameterView(
            h.name, prose_inline(h.description),
            index.figure(h.default, links, at("hyperparameters", i, "default"))
            if h.default else None) for i, h in enumerate(loss.hyperparameters)],
        description=prose(loss.description),
        claims=[index.claim(c, links, at("claims", i)) for i, c in enumerate(loss.claims)],
        references=index.cites(loss.references, links), used_by=used_by,
    )


def setup_cost_view(index: SiteIndex, setup: m.SetupCost, links: Links) -> SetupCostView:
    def at(name: str) -> Origin:
        return Origin("platform", "tinker", ("setup_cost", name))

    low, high = derive.setup_cost_usd(setup)
    text = f"${derive.format_number(low)}" + (f"–${derive.format_number(high)}" if high else "")
    inputs = (setup.duration, setup.hours_per_week, setup.hourly_rate)
    status = (Status.unverified if any(f.status == Status.unverified for f in inputs)
              else Status.derived)
    computed = index.shown(text, status, [f.source for f in inputs], links,
                           note="duration × hours per week × hourly rate")
    return SetupCostView(
        duration=index.figure(setup.duration, links, at("duration")),
        hourly_rate=index.figure(setup.hourly_rate, links, at("hourly_rate")),
        hours_per_week=index.figure(setup.hours_per_week, links, at("hours_per_week")),
        total=index.figure(setup.total, links, at("total")),
        computed=computed, description=prose(setup.description),
    )


def tinker_view(index: SiteIndex) -> TinkerView:
    links = Links(TINKER)
    platform = index.catalog.platform
    if platform is None:
        raise KeyError("the catalog has no Tinker platform entry (catalog/tinker/tinker.yaml)")

    def at(*loc: str | int) -> Origin:
        return Origin("platform", "tinker", loc)

    lists = sorted(index.catalog.price_lists.values(), key=lambda p: p.effective, reverse=True)
    losses = sorted(index.catalog.losses.values(), key=lambda x: (not x.builtin, x.order, x.id))
    return TinkerView(
        intro=prose(platform.intro),
        core=[_primitive(index, p, links) for p in platform.primitives if p.core],
        other_calls=[_primitive(index, p, links) for p in platform.primitives if not p.core],
        phases=prose(platform.phases),
        token_types=[(t.id, t.name, prose_inline(t.description)) for t in platform.token_types],
        pricing_rationale=prose(platform.pricing_rationale),
        price_lists=[price_list_view(index, p, links) for p in lists],
        models=model_views(index, links),
        absorbs=[(a.name, prose_inline(a.description)) for a in platform.absorbs],
        setup_cost=setup_cost_view(index, platform.setup_cost, links),
        losses=[loss_view(index, x, links) for x in losses],
        grpo_note=prose(platform.grpo_note),
        spectrum_intro=prose(platform.spectrum_intro),
        spectrum=[{"name": s.name, "examples": s.examples, "control": s.control,
                   "burden": s.burden, "description": prose_inline(s.description)}
                  for s in platform.spectrum],
        gpu_hours_hide=prose(platform.gpu_hours_hide),
        gpu_hours_claims=[index.claim(c, links, at("gpu_hours_claims", i))
                          for i, c in enumerate(platform.gpu_hours_claims)],
        general_purpose_note=prose(platform.general_purpose_note),
        references=index.cites(platform.references, links),
    )


# --------------------------------------------------------------------------- references


@dataclass(frozen=True)
class ReferenceView:
    id: str
    number: int
    title: str
    url: str | None
    authors: str
    venue: str
    date: str
    key: bool
    summary: Markup | None
    further_reading: Markup | None
    provenance: Shown | None
    cited_by: list[tuple[str, str, str]]


def reference_views(index: SiteIndex) -> list[ReferenceView]:
    links = Links(REFERENCES)
    views = []
    for ref_id in index.ref_order:
        ref = index.catalog.references[ref_id]
        when = ref.date.isoformat() if ref.date else (str(ref.year) if ref.year else "")
        provenance = None
        if ref.status == Status.unverified:
            provenance = index.shown(ref.status.value, ref.status, [ref_id], links,
                                     reported_instead=ref.reported_instead,
                                     origin=Origin("reference", ref_id), anchor=False)
        cited_by = [(b.label, b.kind_title, links.to(b.page, b.anchor))
                    for b in index.backlinks.get(ref_id, [])]
        views.append(ReferenceView(
            id=ref_id, number=index.numbers[ref_id], title=ref.title, url=ref.url,
            authors=ref.authors, venue=ref.venue or "", date=when, key=ref.key,
            summary=prose_inline(ref.summary) if ref.summary else None,
            further_reading=prose_inline(ref.further_reading) if ref.further_reading else None,
            provenance=provenance, cited_by=cited_by))
    return views


def reference_groups(index: SiteIndex) -> list[tuple[str, str, list[ReferenceView]]]:
    """(title, anchor, references): the key references, then every other source."""
    views = reference_views(index)
    return [(title, anchor, group) for title, anchor, group in (
        ("Key references", "key-references", [v for v in views if v.key]),
        ("Other sources", "other-sources", [v for v in views if not v.key]),
    ) if group]


@dataclass(frozen=True)
class ReadingView:
    title: str
    url: str | None
    authors: str
    when: str
    text: Markup
    cite: Cite
    unverified: bool
    quality_href: str


def further_reading_views(index: SiteIndex) -> list[ReadingView]:
    links = Links(FURTHER_READING)
    views = []
    for ref_id in index.ref_order:
        ref = index.catalog.references[ref_id]
        if not ref.further_reading:
            continue
        views.append(ReadingView(
            ref.title, ref.url, ref.authors, str(ref.year or ""),
            prose_inline(ref.further_reading), index.cite(ref_id, links),
            ref.status == Status.unverified,
            links.to(DATA_QUALITY, quality_anchor(Origin("reference", ref_id)))))
    return views


# --------------------------------------------------------------------------- data quality


@dataclass(frozen=True)
class QualityItem:
    anchor: str
    entry: str
    field: str
    value: Shown
    where_href: str
    where_label: str


@dataclass(frozen=True)
class QualityGroup:
    title: str
    anchor: str
    items: list[QualityItem]


def _field_label(loc: Loc, model: Any) -> str:
    """``("scalerl", "C_mid")`` -> ``scalerl › C_mid``; list items by name or 1-based number."""
    parts: list[str] = []
    obj = model
    for part in loc:
        if isinstance(part, int):
            obj = obj[part]
            name = getattr(obj, "name", None) or getattr(obj, "provider", None) or \
                getattr(obj, "model", None)
            parts[-1] = f"{parts[-1]} {name}" if isinstance(name, str) else \
                f"{parts[-1]} #{part + 1}"
        else:
            obj = getattr(obj, part)
            parts.append(part.replace("_", " "))
    return " › ".join(parts) or "the whole entry"


def _value_text(obj: Any) -> Markup | str:
    if isinstance(obj, m.Figure):
        return derive.format_figure(obj)
    if isinstance(obj, m.FigureList):
        return ", ".join(str(v) for v in obj.values)
    if isinstance(obj, m.Claim):
        return prose_inline(obj.text)
    if isinstance(obj, m.PriceRow):
        return f"{money(obj.prefill)} / {money(obj.sample)} / {money(obj.train)}"
    if isinstance(obj, m.Formula):
        return math(obj.latex)
    if isinstance(obj, m.Reference | m.PriceList):
        return obj.title
    return str(obj)


def quality_groups(index: SiteIndex) -> list[QualityGroup]:
    links = Links(DATA_QUALITY)
    groups: dict[str, list[QualityItem]] = defaultdict(list)
    for origin, obj in index.unverified:
        model = index.catalog.entry(origin.kind, origin.key).model
        page = entry_page(origin.kind, origin.key)
        anchor = value_anchor(origin)
        shown = index.shown(_value_text(obj), obj.status, [_source_of(obj, origin)], links,
                            note=getattr(obj, "note", None),
                            reported_instead=obj.reported_instead)
        groups[KIND_TITLES[origin.kind]].append(QualityItem(
            anchor=quality_anchor(origin), entry=entry_label(origin.kind, model),
            field=_field_label(origin.loc, model), value=shown,
            where_href=links.to(page, anchor), where_label=_page_title(page)))
    order = [k.title for k in KINDS]
    return [QualityGroup(t, _slug(t), groups[t]) for t in order if groups.get(t)]


def _source_of(obj: Any, origin: Origin) -> str:
    return origin.key if isinstance(obj, m.Reference) else obj.source


PAGE_TITLES = {HOME: "Home", ALGORITHMS: "Algorithms", FORMULAS: "Formulas",
               HARDWARE: "Hardware", TINKER: "Tinker", REFERENCES: "References",
               FURTHER_READING: "Further reading", DATA_QUALITY: "Data quality"}


def _page_title(page: str) -> str:
    if page.startswith(ALGORITHMS) and page != ALGORITHMS:
        return f"Algorithms › {page[len(ALGORITHMS):].strip('/')}"
    return PAGE_TITLES[page]


# --------------------------------------------------------------------------- home


@dataclass(frozen=True)
class HomeCard:
    title: str
    href: str
    text: str


def home_cards(index: SiteIndex) -> list[HomeCard]:
    c = index.catalog
    links = Links(HOME)
    n_formulas = {k: sum(1 for f in c.formulas.values() if f.kind == k) for k in m.FormulaKind}
    newest = max((p.effective for p in c.price_lists.values()), default=None)
    tinker_text = f"The four primitives, {len(c.losses)} loss functions, " \
                  f"{len(c.price_lists)} dated price lists"
    if newest is not None:
        tinker_text += f" (newest {newest.isoformat()})"
    return [
        HomeCard("Algorithms", links.to(ALGORITHMS),
                 f"{len(c.algorithms)} RL post-training algorithms side by side: models in "
                 "memory, group sizes, ScaleRL fits and the Tinker loss each maps to."),
        HomeCard("Formulas", links.to(FORMULAS),
                 f"{n_formulas[m.FormulaKind.flops]} FLOP and {n_formulas[m.FormulaKind.vram]} "
                 "VRAM formulas with every variable explained and a worked example."),
        HomeCard("Hardware", links.to(HARDWARE),
                 f"{len(c.hardware)} GPUs with sourced specs and rental prices, and the "
                 "GB200-to-H100 factor behind every H100-equivalent hour."),
        HomeCard("Tinker", links.to(TINKER),
                 tinker_text + f" for {len(c.models)} models, and what per-token billing hides "
                 "or reveals."),
        HomeCard("References", links.to(REFERENCES),
                 f"{len(c.references)} sources, each linked back to every figure that cites it."),
        HomeCard("Data quality", links.to(DATA_QUALITY),
                 f"{len(index.unverified)} figures no source confirms, with what the sources "
                 "report instead."),
    ]
