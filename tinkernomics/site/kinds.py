"""The site side of each kind of entry, declared once (pipeline steps 5-6).

The catalog declares a kind (``catalog.entries.KINDS``: model, folder, title, label); the site
attaches what it does with it here, in ONE ``SiteKind`` per kind in ``SITE_KINDS``: the page
that shows an entry (``page``: a ``KindPage``) and how the API publishes it (``api``: an
``ApiSide`` with the collection path, public model, description, CSV file and converter), and
the fields another page shows in full (``elsewhere``: a ``ShownOn`` by field name, which the
generic view links to instead of repeating: a published run's notes, on the Back-test page).
Every consumer reads these declarations: the pages (``views.kinds``, ``views.generic``), the
API's collections, envelopes and converters (``api.documents``, ``api.build``) and the names the
site reserves (``site.reserved``: each listed page's anchors, each collection's files).

A kind without a declaration, or a declaration that leaves ``page`` or ``api`` out, gets the
generic default: its entries are listed on the Data quality page (anchor
``entry-<kind>-<id>``) and published as ``<last folder part>.json`` with a public model read
off the authoring model (``api.generic.public_model``). A test declares a throwaway kind's site
side for a ``with SITE_KINDS.declared(...)`` block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tinkernomics.catalog import entries as e
from tinkernomics.catalog.entries import KINDS_BY_NAME, Kind
from tinkernomics.site.api import convert as c
from tinkernomics.site.api import entries as public
from tinkernomics.site.api.provenance import ApiModel
from tinkernomics.site.paths import (
    BACKTEST,
    FORMULAS,
    HARDWARE,
    REFERENCES,
    TINKER,
    WAYS,
    algorithm_path,
    backtest_anchor,
    slug,
)

ID = "{}"
"""Where the entry's id goes in a namespace pattern (``site.reserved``)."""


@dataclass(frozen=True)
class KindPage:
    """Where a kind's entries are shown: the page of an entry (by id) and its element id there
    (None when the entry is the whole page)."""

    page: Callable[[str], str]
    anchor: Callable[[str], str | None]
    generic: bool = False
    """True for a kind without a page of its own: listed by the generic section."""
    anchors: str | None = None
    """The anchors' pattern in the built site (``tinker/#loss-{}``), for ``site.reserved``."""


def listed_on(page: str, prefix: str | None) -> KindPage:
    """Entries shown as blocks on one page, with the element id ``<prefix>-<id>`` (or the bare
    id when ``prefix`` is None)."""
    head = f"{prefix}-" if prefix else ""
    return KindPage(lambda _key: page, lambda key: f"{head}{slug(key)}",
                    anchors=f"{page}#{head}{ID}")


def whole_page(page: Callable[[str], str]) -> KindPage:
    """Each entry is a page of its own (or the whole of one page)."""
    return KindPage(page, lambda _key: None)


@dataclass(frozen=True)
class ApiSide:
    """How the API publishes a kind: as the collection ``<path>.json`` and ``<path>/<id>.json``
    (or, ``single``, as the one document ``<path>.json`` of the kind's only entry) of
    ``model``s made by ``convert`` (default: the entry copied field by field, plus its
    ``api_path``). The title is the kind's unless given; ``csv`` names the collection's CSV."""

    path: str
    model: type[ApiModel]
    description: str
    convert: c.Convert | None = None
    title: str | None = None
    csv: str | None = None
    single: bool = False


@dataclass(frozen=True)
class ShownOn:
    """Another page that shows one field of every entry of a kind in full: the page's name in
    words ("the Back-test page"), its path and the element id of an entry's part there."""

    title: str
    page: str
    anchor: Callable[[str], str]


@dataclass(frozen=True)
class SiteKind:
    """The site side of one kind: its page and its API publication (None: the defaults), and
    the fields another page shows in full (``elsewhere``), which the generic view names with a
    link there instead of repeating them (issue 47: a page's size)."""

    kind: Kind[Any]
    page: KindPage | None = None
    api: ApiSide | None = None
    elsewhere: Mapping[str, ShownOn] = field(default_factory=dict)


class SiteKinds:
    """The declarations, in the API's collection order; ``declared(name)`` is a kind's own
    or the defaults (``of``; a ValueError for a kind the catalog does not declare)."""

    def __init__(self, *declared: SiteKind) -> None:
        self._by_name: dict[str, SiteKind] = {}
        for site_kind in declared:
            self.declare(site_kind)

    def __iter__(self) -> Iterator[SiteKind]:
        return iter(list(self._by_name.values()))

    def declare(self, site_kind: SiteKind) -> SiteKind:
        name = site_kind.kind.name
        if name in self._by_name:
            raise ValueError(f"kind {name!r} has its site side declared twice")
        self._by_name[name] = site_kind
        return site_kind

    def withdraw(self, site_kind: SiteKind) -> None:
        del self._by_name[site_kind.kind.name]

    @contextmanager
    def declared(self, site_kind: SiteKind) -> Iterator[SiteKind]:
        """``site_kind`` declared for the ``with`` block only (tests)."""
        self.declare(site_kind)
        try:
            yield site_kind
        finally:
            self.withdraw(site_kind)

    def of(self, name: str) -> SiteKind:
        found = self._by_name.get(name)
        if found is not None:
            return found
        kind = KINDS_BY_NAME.get(name)
        if kind is None:
            raise ValueError(f"unknown kind of entry {name!r} (declared in catalog/entries.py: "
                             f"{', '.join(KINDS_BY_NAME)})")
        return SiteKind(kind)


SITE_KINDS = SiteKinds(
    SiteKind(e.ALGORITHM, whole_page(algorithm_path), ApiSide(
        "algorithms", public.Algorithm,
        "RL post-training algorithms: memory profile, typical K and G, ScaleRL fit with "
        "derived H100-equivalent hours and curve points.",
        convert=lambda s, a: c.build_algorithm(a, s.factor), csv="algorithms.csv")),
    SiteKind(e.REFERENCE, listed_on(REFERENCES, None), ApiSide(
        "references", public.Reference,
        "Every source a figure cites, with the entries that cite it.",
        convert=c.convert_reference)),
    SiteKind(e.FORMULA, listed_on(FORMULAS, "formula"), ApiSide(
        "formulas", public.Formula,
        "FLOP and VRAM formulas with variables and a derived worked example.",
        convert=lambda s, f: c.build_formula(f))),
    SiteKind(e.HARDWARE, listed_on(HARDWARE, "hw"), ApiSide(
        "hardware", public.Hardware, "Accelerator specs and dated rental prices.")),
    SiteKind(e.CONVERSION, listed_on(HARDWARE, "conv"), ApiSide(
        "conversions", public.Conversion,
        "Compute-equivalence factors between accelerators (derived).",
        convert=lambda s, conv: c.build_conversion(s.catalog, conv))),
    SiteKind(e.MODEL, listed_on(TINKER, "model"), ApiSide(
        "models", public.LanguageModel, "Base language models offered for training on Tinker.")),
    SiteKind(e.PRICE_LIST, listed_on(TINKER, "prices"), ApiSide(
        "prices", public.PriceList,
        "Dated Tinker price lists; every price carries the list's status and source "
        "unless its row overrides them.",
        convert=lambda s, p: c.build_price_list(s.catalog, p, s.latest),
        title="Tinker prices", csv="prices.csv")),
    SiteKind(e.LOSS, listed_on(TINKER, "loss"), ApiSide(
        "losses", public.Loss, "Tinker loss functions with inputs and hyperparameters.")),
    SiteKind(e.PLATFORM, whole_page(lambda _key: TINKER), ApiSide(
        "platform", public.Platform, "Tinker as a platform: primitives, token types, setup cost.",
        single=True)),
    SiteKind(e.WAY, listed_on(WAYS, "way")),
    SiteKind(e.COOKBOOK, listed_on(WAYS, "cookbook")),
    SiteKind(e.RUN, elsewhere={  # listed on the Data quality page; the Back-test page has every run
        "notes": ShownOn("the Back-test page", BACKTEST, backtest_anchor)}),
)
"""Every kind's site side; a kind of ``KINDS`` missing here gets the defaults."""


def site_kind(name: str) -> SiteKind:
    """The site side of kind ``name`` (its declaration, or the defaults)."""
    return SITE_KINDS.of(name)
