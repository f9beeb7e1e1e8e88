"""Look things up in the catalog (reads a loaded catalog; used by ``tinkernomics find``).

"Is this paper already in the catalog?" without grep: a query matches an entry's id, name or
title, authors or attribution, arXiv id, URL, or its summary or notes, compared after the
normalisation the duplicate-reference rule uses (case, accents, punctuation: "leave-one-out"
finds "Leave-One-Out").
"""

from __future__ import annotations

from dataclasses import dataclass

from tinkernomics.catalog.duplicates import ARXIV_ID, normal_title
from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import printable

SEARCHED_FIELDS = ("id", "name", "full_name", "title", "label", "authors", "attribution",
                   "venue", "url", "family", "summary", "notes", "description")
"""Fields a query is compared with, when the entry's kind has them (prose last)."""


@dataclass(frozen=True)
class Match:
    """An entry that matches a query, and the fields that matched."""

    path: str
    kind: str
    id: str
    label: str
    fields: tuple[str, ...]

    def format(self) -> str:
        """One terminal line, escaped like every message (``problems.printable``): a title
        holding ESC or a line break would otherwise drive the reviewer's terminal."""
        matched = ", ".join(self.fields)
        return printable(f"{self.path}: {self.kind} {self.id} — {self.label} (matches {matched})")


def _text(entry: Entry, name: str) -> str:
    value = field_or_none(entry.model, name)  # None for a field that failed validation
    return value if isinstance(value, str) else ""


def _matches(entry: Entry, query: str, arxiv: str | None) -> tuple[str, ...]:
    hits = []
    for name in SEARCHED_FIELDS:
        text = _text(entry, name)
        if not text:
            continue
        found = ARXIV_ID.search(text)
        if (query and query in normal_title(text)) or (arxiv and found and
                                                       found.group(1) == arxiv):
            hits.append(name)
    return tuple(hits)


def find(catalog: Catalog, query: str) -> list[Match]:
    """Entries matching ``query``, in catalog order (kind, then id)."""
    wanted = normal_title(query)
    arxiv = found.group(1) if (found := ARXIV_ID.search(f"arxiv {query.strip()}")) else None
    matches = []
    for entry in catalog.iter_entries():
        hits = _matches(entry, wanted, arxiv)
        if hits:
            label = next((t for n in ("title", "full_name", "name") if (t := _text(entry, n))),
                         entry.key)
            matches.append(Match(entry.doc.path, entry.kind.name, entry.key, label, hits))
    return matches
