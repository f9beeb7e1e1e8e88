"""The loaded catalog (pipeline step 3): kinds of entry, entries, and the Catalog that holds them.

``KINDS`` says where each kind of entry lives (one entry per file, file name = id). ``Catalog``
is what every later step reads: valid entries by kind and id, with the YAML positions that let a
rule locate its problem. ``loader`` fills it; ``rules`` read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from tinkernomics.catalog import models as m
from tinkernomics.catalog.problems import Problem, format_loc
from tinkernomics.catalog.yamlread import Loc, YamlDoc

SCHEMA_DIR = "schema"
"""Sub-folder of the catalog that holds the generated JSON Schemas (not entries)."""


@dataclass(frozen=True)
class Kind:
    """A kind of catalog entry: its model and the folder its files live in."""

    name: str
    model: type[m.StrictModel]
    folder: str
    title: str

    def schema_file(self) -> str:
        return f"{self.name}.schema.json"


KINDS: tuple[Kind, ...] = (
    Kind("algorithm", m.Algorithm, "algorithms", "Algorithms"),
    Kind("reference", m.Reference, "references", "References"),
    Kind("formula", m.Formula, "formulas", "Formulas"),
    Kind("hardware", m.Hardware, "hardware", "Hardware"),
    Kind("conversion", m.Conversion, "conversions", "Conversions"),
    Kind("model", m.LanguageModel, "models", "Models"),
    Kind("loss", m.TinkerLoss, "tinker/losses", "Tinker losses"),
    Kind("price_list", m.PriceList, "tinker/prices", "Tinker price lists"),
    Kind("platform", m.TinkerPlatform, "tinker", "Tinker platform"),
)
KINDS_BY_NAME = {kind.name: kind for kind in KINDS}

T = TypeVar("T", bound=BaseModel)


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

    # Typed accessors used by derive/site code.
    @property
    def algorithms(self) -> dict[str, m.Algorithm]:
        return self.of("algorithm")

    @property
    def references(self) -> dict[str, m.Reference]:
        return self.of("reference")

    @property
    def formulas(self) -> dict[str, m.Formula]:
        return self.of("formula")

    @property
    def hardware(self) -> dict[str, m.Hardware]:
        return self.of("hardware")

    @property
    def conversions(self) -> dict[str, m.Conversion]:
        return self.of("conversion")

    @property
    def models(self) -> dict[str, m.LanguageModel]:
        return self.of("model")

    @property
    def losses(self) -> dict[str, m.TinkerLoss]:
        return self.of("loss")

    @property
    def price_lists(self) -> dict[str, m.PriceList]:
        return self.of("price_list")

    @property
    def platform(self) -> m.TinkerPlatform | None:
        return self.of("platform").get("tinker")
