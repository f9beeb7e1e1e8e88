"""Names a site claims (pipeline step 3, cross-entry rules with the site's names as data).

A site's features write files and anchors in namespaces shared with entry ids: the calculator
writes ``calculator/algorithms/<id>.json`` beside its ``index.json``, the charts write
``embed/scalerl-<id>/`` beside ``embed/scalerl-comparison/``, the References page gives each
reference the anchor ``#<id>`` beside its headings' anchors. An algorithm ``index`` would
overwrite the calculator's index and a reference ``key-references`` would duplicate a heading's
anchor, although each file is valid on its own. Algorithm pages are one-line stubs,
``docs/algorithms/<id>.md``; one whose entry is gone (or whose name differs in case) publishes an
orphan page or fails the build inside a macro.

The catalog layer knows none of the site's names: ``tinkernomics.site.reserved`` lists them and
the CLI's ``validate`` (for a catalog beside ``mkdocs.yml``) and the site build pass them in as
``SiteNames``, the way ``needs`` are passed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import FILE_FIELD, Problem

Reserved = tuple[str, str, str]
"""(kind, name, what the site uses it for): a name one of the site's features writes in a
namespace it shares with that kind's ids, e.g. ``("algorithm", "index",
"calculator/algorithms/index.json")``."""

PAGES_FOLDER = "algorithms"
"""Under the docs folder: one page stub per algorithm, ``<id>.md``."""


@dataclass(frozen=True)
class SiteNames:
    """What a site tells the loader about names: those its features use (no entry may take
    them) and its own pages among the algorithm page stubs (``index``, the algorithms list)."""

    reserved: tuple[Reserved, ...] = ()
    own_pages: frozenset[str] = frozenset()
    stub: Callable[[str], str] | None = None
    """The whole text of algorithm ``id``'s page stub. A stub is Jinja source that mkdocs-macros
    renders: one that says more than its macro call would run whatever it says under
    ``make serve``, so anything else is refused (and an invalid catalog renders no page)."""


def _uses(reserved: Iterable[Reserved]) -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for kind, name, used_for in reserved:
        found.setdefault((kind, name), []).append(used_for)
    return found


def _ids_of(entry: Entry) -> set[str]:
    """The entry's file name and its id field (either names it on the site)."""
    typed = field_or_none(entry.model, "id")
    return {entry.key} | ({typed} if isinstance(typed, str) else set())


def rule_reserved_ids(catalog: Catalog, reserved: Iterable[Reserved]) -> Iterator[Problem]:
    """No entry takes a name the site uses in a namespace shared with its kind's ids."""
    uses = _uses(reserved)
    for entry in catalog.iter_entries():
        for name in sorted(_ids_of(entry)):
            used_for = uses.get((entry.kind.name, name))
            if used_for:
                yield catalog.problem(
                    entry.kind.name, entry.key, ("id",),
                    f"id {name!r} is reserved: the site uses that name itself",
                    f"`{name}` is used by the site for {' and '.join(used_for)}; "
                    "choose another id")
                break


def _stub_problem(page: Path, shown: str, stub: Callable[[str], str] | None) -> Problem | None:
    expected = stub(page.stem) if stub else None
    try:
        text = page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    if expected is None or (text is not None and text.strip() == expected.strip()):
        return None
    return Problem(shown, 1, 1, FILE_FIELD,
                   f"page {page.name} is not its algorithm's page stub: it is template source "
                   "the site runs", f"its whole text is {expected.strip()} (the page is made "
                   "from the catalog entry: write there)")


def _page_problem(page: Path, shown: str, catalog: Catalog, root: str,
                  stub: Callable[[str], str] | None = None) -> Problem | None:
    stem, ids = page.stem, catalog.known_ids("algorithm")
    folder = f'{root}/{KINDS_BY_NAME["algorithm"].folder}'
    if stem in ids:
        return _stub_problem(page, shown, stub)
    if stem.lower() in ids:
        twin = page.with_name(f"{stem.lower()}.md")
        hint = (f"delete this file: {twin.name} is the page of {stem.lower()!r}" if twin.is_file()
                else f"rename it to {stem.lower()}.md")
        return Problem(shown, 1, 1, FILE_FIELD, f"page {page.name} has no algorithm: ids and "
                       f"their page names are lower case ({stem.lower()!r})", hint)
    return Problem(shown, 1, 1, FILE_FIELD,
                   f"page {page.name} has no algorithm {folder}/{stem}.yaml",
                   f"delete the page, or restore {folder}/{stem}.yaml "
                   "(git checkout -- it)")


def pages_without_entries(catalog: Catalog, docs_dir: Path, names: SiteNames, shown_docs: str,
                          shown_root: str = "catalog") -> Iterator[Problem]:
    """Every ``docs/algorithms/<x>.md`` is the page of algorithm ``x`` (exact case) or one of
    the site's own pages; reported at the page, line 1 (the build would fail in its macro, or
    publish an orphan)."""
    folder = docs_dir / PAGES_FOLDER
    if not folder.is_dir():
        return
    for page in sorted(folder.iterdir()):
        if page.suffix != ".md" or not page.is_file() or page.stem in names.own_pages:
            continue
        problem = _page_problem(page, f"{shown_docs}/{PAGES_FOLDER}/{page.name}", catalog,
                                shown_root, names.stub)
        if problem is not None:
            yield problem
