"""Shared view machinery: page addresses, relative links, prose and math, provenance.

``Links`` makes relative hrefs (the site works under any sub-path); ``Shown`` is a value with
its provenance (text, status, citations, hover text, anchors); ``SiteIndex`` is built once per
build: reference numbers, back-links and the unverified values. Nothing here reads files.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import Any

from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import (
    ASSERTED_BY_MEANINGS,
    UNIT_LABELS,
    AssertedBy,
    Status,
    status_meaning,
)
from tinkernomics.derived import derive
from tinkernomics.markup import prose as markup_prose
from tinkernomics.site.paths import (  # noqa: F401 - re-exported: the views' addresses
    ALGORITHMS,
    DATA_QUALITY,
    FORMULAS,
    FURTHER_READING,
    HARDWARE,
    HOME,
    REFERENCES,
    TINKER,
    algorithm_path,
    slug,
)

PROSE_CACHE_SIZE = 65_536
"""Distinct texts (catalog prose, link pairs) kept converted; bounded so memory stays small."""


def tinker_model_ids(catalog: Catalog) -> set[str]:
    """Models some Tinker price list carries: what Tinker offers (or offered), and all the
    Tinker page and Home count as its models."""
    return {row.model for plist in catalog.price_lists.values() for row in plist.rows}


@dataclass(frozen=True)
class Links:
    """Relative links from the page at ``here`` (a site-relative directory path)."""

    here: str

    def to(self, path: str, anchor: str | None = None) -> str:
        """Href of ``path`` (a site-relative directory path), optionally at ``#anchor``."""
        if path == self.here:
            return f"#{anchor}" if anchor else "./"
        href = _relative(path, self.here)
        return f"{href}#{anchor}" if anchor else href


@lru_cache(maxsize=PROSE_CACHE_SIZE)
def _relative(path: str, here: str) -> str:
    """posixpath.relpath is slow and a page links the same few pages many times: cached."""
    rel = posixpath.relpath("/" + path, "/" + here)
    return "./" if rel == "." else rel + "/"


# --------------------------------------------------------------------------- prose and math

@lru_cache(maxsize=PROSE_CACHE_SIZE)
def prose(text: str) -> Markup:
    """Catalog markdown as sanitised HTML paragraphs (``tinkernomics.markup``: rendered, then
    cleaned by the allow-list sanitiser; the validator reports what it would remove)."""
    return Markup(markup_prose.to_html(text))


@lru_cache(maxsize=PROSE_CACHE_SIZE)
def prose_inline(text: str) -> Markup:
    """Catalog markdown as sanitised inline HTML (without the wrapping paragraph)."""
    return Markup(markup_prose.to_inline_html(text))


def plain(text: str) -> str:
    """Catalog markdown as plain text (for title attributes; escaped where it is written)."""
    return markup_prose.to_plain(text)


def math(latex: str, *, display: bool = False) -> Markup:
    """A catalog ``latex`` field as sanitised MathML."""
    return Markup(markup_prose.math(latex, display=display))


def money(value: float) -> str:
    """USD amount as written in the catalog, with at least two decimals: ``$0.195``, ``$15.40``."""
    text = format(Decimal(repr(value)).normalize(), "f")
    whole, _, frac = text.partition(".")
    return f"${int(whole):,}.{frac.ljust(2, '0')}"


def yes_no(flag: bool) -> str:
    return "Yes" if flag else "No"


# --------------------------------------------------------------------------- provenance


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
    hover_status: str
    """The value's hover text: its status and what that means. Not its source (each citation
    link's own title says it) nor its locator (visible text beside the value)."""
    note: Markup | None = None
    reported_instead: Markup | None = None
    anchor: str | None = None
    quality_href: str | None = None
    asserted: str = ""
    """Who asserted an unverified value, e.g. 'as given by the original site'."""
    locator: str = ""
    """Where in its source the value is stated (section, table, file and line, or the quoted
    sentence), as plain text: catalog text, escaped where it is written; "" when none."""
    hover_note: str = ""
    """The note as plain text, for the hover text where the page does not print it beside."""
    hover_instead: str = ""
    """"Sources report instead: ..." as plain text, likewise."""
    quality_entry: bool = False
    """An unverified value whose badge links to its own data-quality entry (``quality_href``
    has its anchor), which prints what the sources report instead."""

    @property
    def hover(self) -> str:
        """The whole hover text: status, note and what the sources report instead."""
        return self.title()

    def title(self, *, note_beside: bool = False, instead_beside: bool = False) -> str:
        """The hover text of the value where the page prints its note (``note_beside``) or what
        the sources report instead (``instead_beside``) next to it: only what is not visible."""
        parts = [self.hover_status,
                 "" if note_beside else self.hover_note,
                 "" if instead_beside else self.hover_instead]
        return " ".join(p for p in parts if p)

    @property
    def unverified(self) -> bool:
        return self.status == Status.unverified.value

    def without_locator(self) -> Shown:
        """The same value for a table that prints its locators in a column of their own."""
        return replace(self, locator="")


Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Origin:
    """Where a catalog value lives: entry kind, entry id and the path inside the entry."""

    kind: str
    key: str
    loc: Loc = ()

    @cached_property
    def anchor_name(self) -> str:
        """The value's name in its anchors: kind, entry and field, or the field alone for an
        algorithm's value, whose page (where it is shown, with its data-quality entry) is the
        algorithm's own (issue 47: "algorithm-<id>-" four times a value, 0.5 MB over 1,000
        algorithm pages). Made once per origin: a value's ``uv-`` and ``dq-`` anchors and its
        data-quality entry's links all name it."""
        parts = [*(str(p) for p in self.loc)]
        if not (self.kind == "algorithm" and parts):
            parts = [self.kind, self.key, *parts]
        return slug("-".join(parts))


def value_anchor(origin: Origin) -> str:
    """Element id of an unverified value where it is shown (a reference: its own entry)."""
    if origin.kind == "reference" and not origin.loc:
        return origin.key
    return "uv-" + origin.anchor_name


def quality_anchor(origin: Origin) -> str:
    return "dq-" + origin.anchor_name


def quality_page(origin: Origin) -> str:
    """Where an unverified value's data-quality entry is: an algorithm's on its own page (so
    the Data quality page does not grow with every algorithm), any other on Data quality."""
    return algorithm_path(origin.key) if origin.kind == "algorithm" else DATA_QUALITY


def _words(status: Status, asserted_by: AssertedBy | None) -> tuple[str, str]:
    meaning = status_meaning(status, asserted_by)
    return meaning, f"{status.value.capitalize()}: {meaning}."


_STATUS_WORDS = {(s, a): _words(s, a) for s in Status for a in (None, *AssertedBy)}
"""A status's meaning and hover text for each asserter: the same for every value that has
them (23,000 values shown over 1,000 algorithm pages), so written once."""


def _status_words(status: Status, asserted_by: AssertedBy | None) -> tuple[str, str]:
    """(meaning, hover text) of a value's status (``_STATUS_WORDS``)."""
    words = _STATUS_WORDS.get((status, asserted_by))
    return words if words is not None else _words(status, asserted_by)


# --------------------------------------------------------------------------- the site index


@dataclass(frozen=True)
class Backlink:
    label: str
    kind_title: str
    page: str
    anchor: str | None


@dataclass(frozen=True)
class AlgorithmOrder:
    """Algorithm ids in name order and each id's place in it (pages link their neighbours)."""

    ids: list[str]
    position: dict[str, int]

    @classmethod
    def of(cls, catalog: Catalog) -> AlgorithmOrder:
        algos = catalog.algorithms
        ids = sorted(algos, key=lambda a: (algos[a].name.casefold(), a))
        return cls(ids, {a: i for i, a in enumerate(ids)})


@dataclass
class SiteIndex:
    """Built once per build: reference order, who cites what, what is unverified."""

    catalog: Catalog
    factor: derive.Factor
    ref_order: list[str]
    backlinks: dict[str, list[Backlink]]
    unverified: list[tuple[Origin, Any]]
    numbers: dict[str, int] = field(init=False)
    algorithm_order: AlgorithmOrder = field(init=False)
    unverified_of: dict[tuple[str, str], list[tuple[Origin, Any]]] = field(init=False)
    """The unverified values of each entry, by (kind, key)."""
    comparisons: dict[str, tuple[float | None, float | None]] = field(init=False)
    """(peak GPU memory, Tinker bill) of each algorithm's comparison run, filled by the first
    view that shows it (``algorithms.compare``)."""

    def __post_init__(self) -> None:
        self.numbers = {ref_id: i + 1 for i, ref_id in enumerate(self.ref_order)}
        self.algorithm_order = AlgorithmOrder.of(self.catalog)
        self.unverified_of = defaultdict(list)
        self.comparisons = {}
        for origin, obj in self.unverified:
            self.unverified_of[(origin.kind, origin.key)].append((origin, obj))

    # Catalog.<kind> builds a sorted dict on every access; a view asks thousands of times.
    @cached_property
    def references(self) -> dict[str, m.Reference]:
        return self.catalog.references

    @cached_property
    def algorithms(self) -> dict[str, m.Algorithm]:
        return self.catalog.algorithms

    @cached_property
    def losses(self) -> dict[str, m.TinkerLoss]:
        return self.catalog.losses

    def cite(self, ref_id: str, links: Links) -> Cite:
        if ref_id not in self.references:
            raise KeyError(f"unknown reference id {ref_id!r}")
        return Cite(ref_id, self.numbers[ref_id], links.to(REFERENCES, ref_id),
                    self.ref_hover[ref_id])

    @cached_property
    def ref_hover(self) -> dict[str, str]:
        """Each reference as one line: authors, title, venue, year (a citation's hover)."""
        def line(ref: m.Reference) -> str:
            bits = [ref.authors, ref.title, ref.venue, str(ref.year) if ref.year else None]
            return ", ".join(b for b in bits if b)

        return {ref_id: line(ref) for ref_id, ref in self.references.items()}

    # ------------------------------------------------------------------ shown values

    def shown(self, text: Markup | str, status: Status, sources: Iterable[str], links: Links,
              *, note: str | None = None, reported_instead: str | None = None,
              origin: Origin | None = None, anchor: bool = True,
              asserted_by: AssertedBy | None = None, locator: str | None = None) -> Shown:
        """A value with provenance. ``origin`` marks the value's home: an unverified value gets
        an element id there (unless ``anchor`` is False) and a link to its Data quality entry.
        ``locator`` (catalog markdown) is kept as plain text, shown beside the citation."""
        cites = tuple(self.cite(s, links) for s in dict.fromkeys(sources))
        meaning, hover_status = _status_words(status, asserted_by)
        where = plain(locator).strip() if locator and locator.strip() else ""
        unverified = status == Status.unverified
        return Shown(
            text=text, status=status.value, status_meaning=meaning, cites=cites,
            asserted=ASSERTED_BY_MEANINGS[asserted_by] if asserted_by and unverified else "",
            hover_status=hover_status,
            hover_note=plain(note) if note else "",
            hover_instead=("Sources report instead: " + plain(reported_instead)
                           if reported_instead else ""),
            note=prose_inline(note) if note else None,
            reported_instead=prose_inline(reported_instead) if reported_instead else None,
            anchor=value_anchor(origin) if origin and unverified and anchor else None,
            quality_href=(links.to(quality_page(origin), quality_anchor(origin))
                          if origin and unverified else
                          links.to(DATA_QUALITY) if unverified else None),
            quality_entry=bool(origin and unverified),
            locator=where,
        )

    def figure(self, fig: m.Figure, links: Links, origin: Origin | None = None,
               *, anchor: bool = True) -> Shown:
        return self.shown(derive.format_figure(fig), fig.status, [fig.source], links,
                          note=fig.note, reported_instead=fig.reported_instead, origin=origin,
                          asserted_by=fig.asserted_by, locator=fig.locator, anchor=anchor)

    def figure_list(self, figs: m.FigureList, links: Links,
                    origin: Origin | None = None) -> Shown:
        label = UNIT_LABELS[figs.unit]
        text = ", ".join(str(v) for v in figs.values) + (f" {label}" if label else "")
        return self.shown(text, figs.status, [figs.source], links, note=figs.note,
                          reported_instead=figs.reported_instead, origin=origin,
                          asserted_by=figs.asserted_by, locator=figs.locator)

    def claim(self, claim: m.Claim, links: Links, origin: Origin | None = None) -> Shown:
        return self.shown(prose_inline(claim.text), claim.status, [claim.source], links,
                          reported_instead=claim.reported_instead, origin=origin,
                          asserted_by=claim.asserted_by, locator=claim.locator)

    def cites(self, ref_ids: Iterable[str], links: Links) -> list[Cite]:
        return [self.cite(r, links) for r in dict.fromkeys(ref_ids)]
