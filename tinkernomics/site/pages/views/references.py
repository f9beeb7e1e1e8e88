"""Reference, further-reading, data-quality and home views."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import KINDS
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.models.algorithms import SourcedFlag, SourcedTeacher
from tinkernomics.derived import derive
from tinkernomics.site.pages.views.core import (
    ALGORITHMS,
    DATA_QUALITY,
    FORMULAS,
    FURTHER_READING,
    HARDWARE,
    HOME,
    REFERENCES,
    TINKER,
    Cite,
    Links,
    Loc,
    Origin,
    Shown,
    SiteIndex,
    algorithm_path,
    math,
    money,
    prose_inline,
    quality_anchor,
    slug,
    tinker_model_ids,
    value_anchor,
)
from tinkernomics.site.pages.views.kinds import entry_label, entry_page, kind_title

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
    """(label, kind title, href) of each entry citing it, once each."""

    @property
    def cited_groups(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """``cited_by`` by kind, kinds in the order they first cite: the page names a kind once,
        before its entries, instead of in a title on each link (issue 47: title="Algorithms" on
        9,000 links at 1,000 algorithms). A kind's one entry of the kind's own name (the Tinker
        platform) is not named twice."""
        groups: dict[str, list[tuple[str, str]]] = {}
        for label, kind, href in self.cited_by:
            groups.setdefault(kind, []).append((label, href))
        return [("" if len(items) == 1 and items[0][0] == kind else kind, items)
                for kind, items in groups.items()]


def reference_views(index: SiteIndex) -> list[ReferenceView]:
    links = Links(REFERENCES)
    views = []
    for ref_id in index.ref_order:
        ref = index.references[ref_id]
        when = ref.date.isoformat() if ref.date else (str(ref.year) if ref.year else "")
        provenance = None
        if ref.status == Status.unverified:
            provenance = index.shown(ref.status.value, ref.status, [ref_id], links,
                                     reported_instead=ref.reported_instead,
                                     asserted_by=ref.asserted_by,
                                     origin=Origin("reference", ref_id), anchor=False)
        # An entry citing a reference in several fields links back once.
        cited_by = list(dict.fromkeys((b.label, b.kind_title, links.to(b.page, b.anchor))
                                      for b in index.backlinks.get(ref_id, [])))
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
        ref = index.references[ref_id]
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
class QualityEntry:
    """One entry's line on the Data quality page whose values are listed on its own page."""

    name: str
    href: str
    count: int
    fields: str


@dataclass(frozen=True)
class QualityGroup:
    title: str
    anchor: str
    items: list[QualityItem]
    entries: list[QualityEntry] = field(default_factory=list)
    """Entries listed by name, with their values on their own pages (algorithms)."""


FIELD_WORDS = {"scalerl": "ScaleRL", "C_mid": "C_mid", "R0": "R0", "A": "A", "B": "B",
               "usd": "USD", "gb": "GB", "tflops": "TFLOP/s", "bf16": "BF16",
               # reader words for field names (issue 44: no code names in reader text)
               "semantics": "Run model", "kl_reference": "KL term to a frozen reference",
               "reward": "Reward from", "rollouts": "Samples rollouts",
               "oversampling": "Over-sampling", "kl": "KL", "mfu": "MFU", "lora": "LoRA",
               "vram": "GPU memory", "params": "parameters", "h100": "H100", "gb200": "GB200",
               "gpu": "GPU", "gpus": "GPUs", "cpu": "CPU", "cuda": "CUDA", "tp": "TP",
               "hf": "Hugging Face", "moe": "MoE", "api": "API"}
"""Field-name words shown as written (the rest: first word capitalised, single letters upper)."""


def field_words(name: str) -> str:
    """``typical_k`` -> ``Typical K``; ``bf16_dense_tflops`` -> ``BF16 dense TFLOP/s``."""
    if name in FIELD_WORDS:
        return FIELD_WORDS[name]
    words = [FIELD_WORDS.get(w, w.upper() if len(w) == 1 else w) for w in name.split("_")]
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


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
            parts.append(field_words(part))
    return " › ".join(parts) or "the whole entry"


def _value_text(obj: Any, models: Mapping[str, m.LanguageModel]) -> Markup | str:
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
    return _fact_text(obj, models)


def _fact_text(obj: Any, models: Mapping[str, m.LanguageModel]) -> str:
    """A sourced yes/no or categorical fact (an algorithm's semantics) in reader words; a teacher
    by its model's name. Never a Python repr or an id (issue 44: no code in reader text)."""
    if isinstance(obj, SourcedFlag):
        return "Yes" if obj.value else "No"
    if isinstance(obj, SourcedTeacher):
        return models[obj.model].name if obj.model in models else obj.model
    value = getattr(obj, "value", None)
    if isinstance(value, str):
        return value.replace("_", " ")
    return "the value in its catalog file"


def _quality_item(index: SiteIndex, origin: Origin, obj: Any, links: Links,
                  own_page: bool = False) -> QualityItem:
    """One unverified value's entry; ``own_page``: in its entry's own page's list, which names
    neither the entry (the page's title) nor the page (its "where it appears" is in the page),
    so neither is looked up."""
    model = index.catalog.entry(origin.kind, origin.key).model
    shown = index.shown(_value_text(obj, index.catalog.models), obj.status,
                        [_source_of(obj, origin)], links,
                        note=getattr(obj, "note", None), reported_instead=obj.reported_instead,
                        asserted_by=obj.asserted_by)
    page = entry_page(origin.kind, origin.key)
    return QualityItem(
        anchor=quality_anchor(origin),
        entry="" if own_page else entry_label(origin.kind, model),
        field=_field_label(origin.loc, model), value=shown,
        where_href=links.to(page, value_anchor(origin)),
        where_label="" if own_page else _page_title(page, getattr(model, "name", None)))


def quality_items(index: SiteIndex, kind: str, key: str, links: Links) -> list[QualityItem]:
    """The unverified values of one entry, for its own page (an algorithm's: the template's
    ``dq_item(item, own_page=true)``, which prints neither the entry's label nor the page's)."""
    return [_quality_item(index, origin, obj, links, own_page=True)
            for origin, obj in index.unverified_of.get((kind, key), [])]


def _algorithm_entries(index: SiteIndex, links: Links) -> list[QualityEntry]:
    entries = []
    for algo_id in index.algorithm_order.ids:
        found = index.unverified_of.get(("algorithm", algo_id))
        if not found:
            continue
        model = index.algorithms[algo_id]
        fields = ", ".join(_field_label(origin.loc, model) for origin, _ in found)
        entries.append(QualityEntry(model.name, links.to(algorithm_path(algo_id), "data-quality"),
                                    len(found), fields))
    return entries


def quality_groups(index: SiteIndex) -> list[QualityGroup]:
    """Every kind with unverified values: its values in full, except algorithms, which are
    listed by name (count and fields) and show their values on their own pages."""
    links = Links(DATA_QUALITY)
    groups: dict[str, list[QualityItem]] = defaultdict(list)
    for origin, obj in index.unverified:
        if origin.kind != "algorithm":
            groups[kind_title(origin.kind)].append(_quality_item(index, origin, obj, links))
    algorithms = _algorithm_entries(index, links)
    result = []
    for kind in KINDS:
        if kind.name == "algorithm" and algorithms:
            result.append(QualityGroup(kind.title, slug(kind.title), [], algorithms))
        elif groups.get(kind.title):
            result.append(QualityGroup(kind.title, slug(kind.title), groups[kind.title]))
    return result


def _source_of(obj: Any, origin: Origin) -> str:
    return origin.key if isinstance(obj, m.Reference) else obj.source


PAGE_TITLES = {HOME: "Home", ALGORITHMS: "Algorithms", FORMULAS: "Formulas",
               HARDWARE: "Hardware", TINKER: "Tinker", REFERENCES: "References",
               FURTHER_READING: "Further reading", DATA_QUALITY: "Data quality"}


def _page_title(page: str, name: str | None = None) -> str:
    """The page's title; an algorithm's page by the algorithm's name (its id if none given)."""
    if page.startswith(ALGORITHMS) and page != ALGORITHMS:
        return f"Algorithms › {name or page[len(ALGORITHMS):].strip('/')}"
    return PAGE_TITLES[page]


# --------------------------------------------------------------------------- home


CALCULATOR_PAGE = "calculator/"
"""The calculator's page (``calculator.pagedata.CALCULATOR``; the site layer above imports this
module, so the path is repeated here and tests/test_reader_ux_home.py checks the two agree)."""
COMPARE_PAGE = "compare/"
"""The compare view's page (``compare.view.PAGE``, likewise)."""


@dataclass(frozen=True)
class HomeLink:
    text: str
    href: str


@dataclass(frozen=True)
class HomeCard:
    title: str
    href: str
    text: str
    more: tuple[HomeLink, ...] = ()
    lead: bool = False
    """The card a reader with a question should open first (drawn wider, before the others)."""


def calculator_card(index: SiteIndex, links: Links) -> HomeCard:
    """The calculator: what it answers, and the compare view beside it."""
    c = index.catalog
    return HomeCard(
        "Cost calculator", links.to(CALCULATOR_PAGE),
        f"What will an RL post-training run cost? Pick one of {len(c.algorithms)} algorithms, "
        f"one of {len(c.models)} models and the run's size: the tokens, the GPU memory, the "
        "GPU-hours and the dollars on rented GPUs, and the Tinker bill, each with its formula. "
        "The settings live in the address, so a copied link shows the same estimate.",
        more=(HomeLink("Open the calculator", links.to(CALCULATOR_PAGE)),
              HomeLink("Compare algorithms side by side", links.to(COMPARE_PAGE))),
        lead=True)


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
        calculator_card(index, links),
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
                 tinker_text + f" for {len(tinker_model_ids(c))} models, and what per-token "
                 "billing hides "
                 "or reveals."),
        HomeCard("References", links.to(REFERENCES),
                 f"{len(c.references)} sources, each linked back to every figure that cites it."),
        HomeCard("Data quality", links.to(DATA_QUALITY),
                 f"{len(index.unverified)} figures no source confirms, with what the sources "
                 "report instead."),
    ]
