"""The loaded catalog (pipeline step 3): kinds of entry, entries, and the Catalog that holds them.

A kind of entry is declared once, as a ``Kind`` in ``KINDS``: its model, the folder its files
live in (one entry per file, file name = id), its title and how an entry is named; its links to
other entries are typed in its model (``fields.LinkTo``, checked by ``links``). Everything else
iterates ``KINDS``: the loader, the editor schemas, the scaffold, and on the site side the
pages and the API (``site.kinds``: one optional declaration per kind, a generic default for a
kind without one). ``Catalog`` is what every later step reads: valid entries by
kind and id, with the YAML positions that let a rule locate its problem. ``loader`` fills it;
``rules`` read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel

from tinkernomics.catalog import models as m
from tinkernomics.catalog.models.cookbook import CookbookPin
from tinkernomics.catalog.models.runs import PublishedRun
from tinkernomics.catalog.models.ways import WayToRun
from tinkernomics.catalog.problems import Problem, format_loc
from tinkernomics.catalog.yamlread import Loc, YamlDoc

SCHEMA_DIR = "schema"
"""Sub-folder of the catalog that holds the generated JSON Schemas (not entries)."""

M = TypeVar("M", bound=BaseModel)


def name_label(model: Any) -> str:
    """An entry's name in lists and links: its ``name``, else its ``title``, else its id."""
    for attr in ("name", "title", "id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return ""


@dataclass(frozen=True)
class Kind(Generic[M]):
    """A kind of catalog entry: its model, the folder its files live in, its title."""

    name: str
    model: type[M]
    folder: str
    title: str
    label: Callable[[Any], str] = name_label
    """How one entry is named in lists and links (from its validated model)."""
    single: str | None = None
    """The id of the only entry of a kind that has one (the Tinker platform's ``tinker``):
    ``tinkernomics new`` does not scaffold it."""
    rules: tuple[Callable[..., Iterator[Problem]], ...] = ()
    """Cross-entry rules of this kind only, ``rule(catalog) -> problems``: the loader runs them
    after the shared rules (``links.run_kind_rules``)."""

    def schema_file(self) -> str:
        return f"{self.name}.schema.json"


class Kinds(Sequence[Kind[Any]]):
    """The declared kinds, in catalog order; ``by_name`` is kept in step (``KINDS_BY_NAME``).

    Every consumer iterates this one object, so a kind declared here (or, in a test, for a
    ``with KINDS.declared(kind):`` block) is loaded, validated, shown and published."""

    def __init__(self, *kinds: Kind[Any]) -> None:
        self._kinds: list[Kind[Any]] = []
        self.by_name: dict[str, Kind[Any]] = {}
        for kind in kinds:
            self.declare(kind)

    @overload
    def __getitem__(self, index: int) -> Kind[Any]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Kind[Any]]: ...
    def __getitem__(self, index: int | slice) -> Kind[Any] | Sequence[Kind[Any]]:
        return self._kinds[index]

    def __len__(self) -> int:
        return len(self._kinds)

    def declare(self, kind: Kind[Any]) -> Kind[Any]:
        """Add ``kind``; a name or folder already taken is a ValueError naming both."""
        for other in self._kinds:
            if kind.name == other.name or kind.folder == other.folder:
                raise ValueError(f"kind {kind.name!r} (catalog/{kind.folder}/) clashes with "
                                 f"kind {other.name!r} (catalog/{other.folder}/)")
        if kind.folder.split("/")[0] == SCHEMA_DIR:
            raise ValueError(f"kind {kind.name!r}: catalog/{SCHEMA_DIR}/ holds the schemas")
        self._kinds.append(kind)
        self.by_name[kind.name] = kind
        return kind

    def withdraw(self, kind: Kind[Any]) -> None:
        self._kinds.remove(kind)
        del self.by_name[kind.name]

    @contextmanager
    def declared(self, kind: Kind[Any]) -> Iterator[Kind[Any]]:
        """``kind`` declared for the ``with`` block only (tests)."""
        self.declare(kind)
        try:
            yield kind
        finally:
            self.withdraw(kind)


ALGORITHM = Kind("algorithm", m.Algorithm, "algorithms", "Algorithms")
REFERENCE = Kind("reference", m.Reference, "references", "References")
FORMULA = Kind("formula", m.Formula, "formulas", "Formulas")
HARDWARE = Kind("hardware", m.Hardware, "hardware", "Hardware")
CONVERSION = Kind("conversion", m.Conversion, "conversions", "Conversions",
                  label=lambda c: f"{c.from_hardware.upper()} to {c.to_hardware.upper()} "
                  "conversion")
"""A conversion is named by its GPUs as vendors write them (gb200 -> GB200): readers never see
a catalog id (issue 44)."""
MODEL = Kind("model", m.LanguageModel, "models", "Models")
LOSS = Kind("loss", m.TinkerLoss, "tinker/losses", "Tinker losses")
PRICE_LIST = Kind("price_list", m.PriceList, "tinker/prices", "Tinker price lists",
                  label=lambda p: f"Tinker prices {p.id}")
PLATFORM = Kind("platform", m.TinkerPlatform, "tinker", "Tinker platform",
                label=lambda _: "Tinker platform", single="tinker")
WAY = Kind("way", WayToRun, "ways", "Ways to run",
           label=lambda w: f"{w.name} ({w.dated})")
RUN = Kind("run", PublishedRun, "runs", "Published runs")
COOKBOOK = Kind("cookbook", CookbookPin, "cookbook", "Tinker cookbook pin",
                label=lambda _: "tinker-cookbook pin", single="tinker_cookbook")

KINDS = Kinds(ALGORITHM, REFERENCE, FORMULA, HARDWARE, CONVERSION, MODEL, LOSS, PRICE_LIST,
              PLATFORM, WAY, COOKBOOK, RUN)
KINDS_BY_NAME = KINDS.by_name
"""Kind name -> Kind (the same dict as ``KINDS.by_name``, kept in step with it)."""

class Of(Generic[M]):
    """A typed accessor on ``Catalog``: ``catalog.algorithms`` is ``catalog.of("algorithm")``."""

    def __init__(self, kind: Kind[M]) -> None:
        self.kind = kind.name

    def __get__(self, catalog: Catalog | None, owner: type | None = None) -> dict[str, M]:
        if catalog is None:  # read on the class (introspection): the accessor itself
            return self  # type: ignore[return-value]
        return catalog.of(self.kind)


@dataclass
class Entry:
    """A validated entry and the file it came from."""

    kind: Kind
    key: str
    """The file name without `.yaml`; equals ``model.id`` in a valid catalog."""
    model: Any
    doc: YamlDoc
    partial: bool = False
    """True when the file failed validation: values that failed are ``partial.HOLE``."""


@dataclass
class Catalog:
    """Every valid entry, by kind and id, with positions for locating rule problems."""

    root: Path
    entries: dict[str, dict[str, Entry]] = field(default_factory=dict)
    invalid: dict[str, set[str]] = field(default_factory=dict)
    """Ids (file names) of entries whose file exists but did not validate, by kind."""
    _of: dict[str, tuple[tuple[int, int], dict[str, Any]]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Traversals computed once per loaded catalog (see ``walk.nested_models``); read-only after
    load."""

    def of(self, kind: str) -> dict[str, Any]:
        """Models of one kind, by id (file name), in id order. Read-only: the dict is made once
        per kind and shared (pages call this thousands of times on a large catalog); it is made
        again only if entries of that kind were added since."""
        found = self.entries.get(kind, {})
        stamp = (id(found), len(found))
        made = self._of.get(kind)
        if made is None or made[0] != stamp:
            made = (stamp, {k: e.model for k, e in sorted(found.items())})
            self._of[kind] = made
        return made[1]

    def ids(self, kind: str) -> set[str]:
        return set(self.entries.get(kind, {}))

    def known_ids(self, kind: str) -> set[str]:
        """Ids of valid entries plus those of files that exist but failed validation: a link to
        a broken file is not reported a second time as an unknown id."""
        return self.ids(kind) | self.invalid.get(kind, set())

    def partial_entries(self) -> list[Entry]:
        """Entries whose file failed validation (kept so the rules still check the rest)."""
        return [e for e in self.iter_entries() if e.partial]

    def view(self, keep: Entry | None = None) -> Catalog:
        """The complete entries, plus ``keep`` if given; other partial entries count as known
        ids only. Used to run a rule around the holes of partial entries."""
        view = Catalog(root=self.root, invalid={k: set(v) for k, v in self.invalid.items()})
        for entry in self.iter_entries():
            if not entry.partial or entry is keep:
                view.entries.setdefault(entry.kind.name, {})[entry.key] = entry
            else:
                view.invalid.setdefault(entry.kind.name, set()).add(entry.key)
        return view

    def entry(self, kind: str, entry_id: str) -> Entry:
        return self.entries[kind][entry_id]

    def problem(self, kind: str, entry_id: str, loc: Loc, message: str,
                hint: str | None = None, *, key: bool = False) -> Problem:
        """A Problem located at ``loc`` inside entry ``kind/entry_id``."""
        doc = self.entries[kind][entry_id].doc
        line, col = doc.where(loc, key=key)
        return Problem(doc.path, line, col, format_loc(loc), message, hint)

    def iter_entries(self) -> Iterator[Entry]:
        for kind in KINDS:
            for _, entry in sorted(self.entries.get(kind.name, {}).items()):
                yield entry

    # Typed accessors used by derive/site code: each is ``of`` for one declared kind.
    algorithms = Of(ALGORITHM)
    references = Of(REFERENCE)
    formulas = Of(FORMULA)
    hardware = Of(HARDWARE)
    conversions = Of(CONVERSION)
    models = Of(MODEL)
    losses = Of(LOSS)
    price_lists = Of(PRICE_LIST)

    @property
    def platform(self) -> m.TinkerPlatform | None:
        return self.of(PLATFORM.name).get(PLATFORM.single or "")
