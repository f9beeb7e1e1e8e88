"""Quote-checked locators (pipeline step 3, a cross-entry rule): a locator into a file of a public
repository at a pinned commit names the file, the line and the words found there, and the
check reads them in the catalog's copy of that file.

A locator of the form ``[@<hex> ]<path> line <N>[-<M>] [(commit <hex>)] "<quote>"`` (the
quote between "...", `...` or “...”) citing a reference whose ``url`` is a GitHub repository is
checked against ``<catalog>/sources/github/<owner>/<repo>/<commit>/<path>``: the commit is the
locator's (seven or more hex digits, matched against the copies kept) or else the one in the
reference's url (``.../tree/<40 hex>``). The quote, runs of white space taken as one space,
must be on line N (or within lines N-M); a reported value's locator must quote, a derived or
unverified one's is checked when it does. A wrong file, line or commit, a missing copy or a
missing quote is a validation problem naming the locator's file and line and where the quote
actually is (another line, another kept file of the repository, or nowhere). Only the cited
files are kept (``catalog/sources/README.md``); ``rule_quotes_at_their_lines`` runs with
``rules.RULES``.

Papers and web pages (a GitHub issue, pull request or discussion is a page: its url names no
file) cannot be checked by the build, so ``rule_pages_quoted`` makes a reported
value's locator into one carry a short verbatim quote a reviewer finds with the browser's
search: two words or more, or a number (a table's cell), between "...", “...” or `...` (a
section title alone, one word, does not show the figure); a reported value citing a GitHub
repository must name the file, line and words, for the check above. A value no reachable copy
confirms is marked ``unverified`` with ``reported_instead``, never given an invented quote. Every
kind is checked; no part of the catalog is exempt.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.partial import HoleTouched
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import attribute, attribute_missing, nested_models
from tinkernomics.catalog.yamlread import Loc

SOURCES_DIR = "sources"
"""Folder of the catalog root that keeps the cited files (skipped by the loader)."""
GITHUB = re.compile(r"^https://github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?"
                    r"(?!/(?:issues|pull|discussions)(?:[/?#]|$))"
                    r"(?:/(?:tree|blob)/(?P<commit>[0-9a-f]{40})(?:/(?P<path>[^?#]*))?)?"
                    r"(?:[/?#].*)?$")
FILE_LINE = re.compile(
    r"(?:@(?P<commit0>[0-9a-f]{7,40}) )?(?P<path>[\w][\w./+-]*\.[A-Za-z0-9]+)"
    r"(?: \(commit (?P<commit>[0-9a-f]{7,40})\))?,? "
    r"lines? (?P<start>\d+)(?:\s*[-–]\s*(?P<end>\d+))?(?: \(commit (?P<commit2>[0-9a-f]{7,40})\))?")
ANY_COMMIT = re.compile(r"\(commit ([0-9a-f]{7,40})\b")
CLOSING = {'"': '"', "`": "`", "“": "”"}
HINT = ('write it as <path> line <N>: "<the words on that line>", keep a copy of the file under '
        "catalog/sources/github/<owner>/<repo>/<commit>/ (catalog/sources/README.md)")


@dataclass(frozen=True)
class FileQuote:
    """What a locator says: a file, its lines, maybe a commit, and the quoted words."""

    path: str
    start: int
    end: int
    commit: str | None
    quote: str | None


def parse_locator(text: str) -> FileQuote | None:
    """The file, lines, commit and quote a locator names; None if it names no file line."""
    found = FILE_LINE.search(text)
    if found is None:
        return None
    start = int(found["start"])
    end = int(found["end"]) if found["end"] else start
    elsewhere = ANY_COMMIT.search(text)
    commit = (found["commit0"] or found["commit"] or found["commit2"]
              or (elsewhere[1] if elsewhere else None))
    return FileQuote(found["path"], start, max(start, end), commit,
                     _quote_after(text[found.end():]))


def _quote_after(rest: str) -> str | None:
    """The first quoted text after the line number (skipping a parenthesis and a colon)."""
    match = re.match(r"\s*(?:\([^)]*\))?\s*[:,]?\s*(?P<open>[\"`“])", rest)
    if match is None:
        return None
    body = rest[match.end():]
    close = body.find(CLOSING[match["open"]])
    return body[:close] if close > 0 else None


def squash(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Repo:
    """A GitHub repository a reference's url names, with its commit and path if pinned."""

    owner: str
    name: str
    commit: str | None
    path: str = ""

    def folder(self, root: Path) -> Path:
        return root / SOURCES_DIR / "github" / self.owner / self.name


def repo_of(url: str | None) -> Repo | None:
    found = GITHUB.match(url or "")
    if found is None:
        return None
    return Repo(found["owner"], found["repo"], found["commit"], (found["path"] or "").strip("/"))


def file_path(commit_dir: Path, repo: Repo, named: str) -> str:
    """The repository path a locator's file means: the url's file when the locator gives its
    name only, else as written, else under the url's folder (the first that is kept)."""
    found = [repo.path] if repo.path == named or repo.path.endswith("/" + named) else []
    found += [named, f"{repo.path}/{named}"] if repo.path else [named]
    return next((p for p in found if (commit_dir / p).is_file()), found[0])


def _commit(root: Path, repo: Repo, named: str | None) -> tuple[str | None, str | None]:
    """The full commit the locator means, or why there is none."""
    if named is None:
        if repo.commit is None:
            return None, ("the locator names no commit and the reference's url pins none: add "
                          "'(commit <hex>)' or a url .../tree/<commit>")
        return repo.commit, None
    kept = [p.name for p in repo.folder(root).glob("*") if p.name.startswith(named)]
    if len(kept) == 1:
        return kept[0], None
    if repo.commit and repo.commit.startswith(named):
        return repo.commit, None
    return None, (f"no copy of {repo.owner}/{repo.name} at commit {named} under "
                  f"{SOURCES_DIR}/github/{repo.owner}/{repo.name}/")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def _where(lines: list[str], quote: str, span: int = 1) -> list[int]:
    """Lines (1-based) a quote starts on, white space squashed, spanning up to ``span`` lines."""
    def has(i: int, n: int) -> bool:
        return quote in squash(" ".join(lines[i:i + n]))
    return [i + 1 for i in range(len(lines)) if has(i, span) and not has(i + 1, span - 1)]


def _elsewhere(commit_dir: Path, own: Path, quote: str, span: int) -> list[str]:
    places = []
    for other in sorted(p for p in commit_dir.rglob("*") if p.is_file() and p != own):
        rel = other.relative_to(commit_dir).as_posix()
        places += [f"{rel} line {n}" for n in _where(_lines(other), quote, span)]
    return places


def check(root: Path, repo: Repo, fq: FileQuote,
          lines_of: Callable[[Path], list[str]] = _lines) -> str | None:
    """Why the locator's quote is not where it says; None when it is. ``lines_of`` reads a
    kept file's lines (the rule reads each file once for all its locators)."""
    commit, why = _commit(root, repo, fq.commit)
    if commit is None:
        return why
    named = f"{fq.path} line {fq.start}" + (f"-{fq.end}" if fq.end != fq.start else "")
    if not fq.quote:
        return f"{named}: the locator quotes nothing (quote the words on that line)"
    commit_dir = repo.folder(root) / commit
    path = commit_dir / file_path(commit_dir, repo, fq.path)
    if not path.is_file():
        shown = path.relative_to(root).as_posix()
        return f"{named}: no copy of the file at {shown} (keep the cited file there)"
    quote, lines = squash(fq.quote), lines_of(path)
    if fq.start > len(lines):
        return f"{named}: the file has {len(lines)} lines"
    span = fq.end - fq.start + 1
    if quote in squash(" ".join(lines[fq.start - 1:fq.end])):
        return None
    actual = ([f"line {n}" for n in _where(lines, quote, span)]
              or _elsewhere(commit_dir, path, quote, span))
    if not actual:
        return (f'{named}: "{fq.quote}" is not on that line, nor anywhere in the kept files '
                f"at {commit[:12]}")
    return f'{named}: "{fq.quote}" is not on that line; it is at {", ".join(actual)}'


@dataclass(frozen=True)
class Located:
    entry: Entry
    loc: Loc
    text: str
    source: str
    reported: bool


_LOCATORS = ("locator", "model_names_locator")
_UNREAD: Any = object()
"""A memo's "not looked up yet" (None is an answer)."""


def _locates(cls: type) -> bool:
    """True if an instance of ``cls`` may hold a locator, or a status (which may be a hole)."""
    return not all(attribute_missing(cls, name) for name in (*_LOCATORS, "status"))


def _find_located(catalog: Catalog) -> Iterator[Located | None]:
    """``located``'s items; None, then nothing more, where one touches a hole."""
    locates: dict[type, bool] = {}
    for entry, loc, obj, _, _ in nested_models(catalog):
        cls = type(obj)
        if (does := locates.get(cls)) is None:
            does = locates[cls] = _locates(cls)
        if not does:
            continue
        try:
            source = attribute(obj, "source")
            reported = attribute(obj, "status", Status.reported) == Status.reported
        except HoleTouched:
            yield None
            return
        for name in _LOCATORS:
            text = attribute(obj, name)
            if isinstance(text, str) and isinstance(source, str):
                yield Located(entry, (*loc, name), text, source, reported)


def located(catalog: Catalog) -> Iterator[Located]:
    """Every locator in the catalog with the reference it points into. Found once per catalog
    for both quote rules (issue 47); a hole raises ``HoleTouched`` where the walk meets it, as
    a walk of its own would (``rules.run_guarded``)."""
    found = catalog.memo.get("located")
    if found is None:
        found = catalog.memo["located"] = list(_find_located(catalog))
    for item in found:
        if item is None:
            raise HoleTouched
        yield item


def file_quotes(catalog: Catalog) -> Iterator[tuple[Located, Repo, FileQuote]]:
    """The locators into a GitHub repository's file line, with what they name. A reference's
    repository and a locator's text are read once however many values name them (issue 47)."""
    refs = catalog.references
    repos: dict[str, Repo | None] = {}
    parsed = functools.cache(parse_locator)
    for item in located(catalog):
        if (repo := repos.get(item.source, _UNREAD)) is _UNREAD:
            ref = refs.get(item.source)
            repo = repos[item.source] = repo_of(ref.url) if ref is not None else None
        fq = parsed(item.text) if repo is not None else None
        if repo is not None and fq is not None:
            yield item, repo, fq


def rule_quotes_at_their_lines(catalog: Catalog) -> Iterator[Problem]:
    """A locator into a repository file says the words on the line it names (a kept copy).
    Each kept file is read once for every locator into it (issue 47: hundreds of locators
    name a few files)."""
    lines_of = functools.cache(_lines)
    checked: dict[tuple[Repo, FileQuote], str | None] = {}
    for item, repo, fq in file_quotes(catalog):
        if fq.quote is None and not item.reported:
            continue  # a derived or unverified value may point at a line it does not quote
        if (why := checked.get((repo, fq), _UNREAD)) is _UNREAD:  # the same locator, the
            why = checked[repo, fq] = check(catalog.root, repo, fq, lines_of)  # same answer
        if why is not None:
            yield catalog.problem(item.entry.kind.name, item.entry.key, item.loc, why, HINT)


QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|`([^`]+)`')
PAGE_HINT = ('quote a few words of it, e.g. §4.2: "For each question, we sample 64 outputs.", '
             "or mark the value unverified with reported_instead saying why")
REPO_HINT = ('write it as <path> line <N> "<the words on that line>" and keep the file under '
             "catalog/sources/github/<owner>/<repo>/<commit>/ (catalog/sources/README.md)")


def quoted_passages(text: str) -> list[str]:
    """The quoted passages of a locator, white space squashed."""
    return [squash(next(g for g in found.groups() if g is not None))
            for found in QUOTED.finditer(text)]


def quotes_enough(text: str) -> bool:
    """True when the locator quotes two words or more, or a number, of its source."""
    return any(len(passage.split()) >= 2 or any(c.isdigit() for c in passage)
               for passage in quoted_passages(text))


def _why(catalog: Catalog, item: Located) -> tuple[str, str] | None:
    """What the locator lacks, with a hint; None when it quotes as its source needs."""
    ref = catalog.references.get(item.source)
    if ref is None:
        return None  # rule_sources_exist reports the unknown source
    if repo_of(ref.url) is not None:
        if parse_locator(item.text) is not None:
            return None  # quotes.rule_quotes_at_their_lines checks file, line and words
        return ("a reported value from a repository names the file, the line and the words "
                "there (the build checks them in a kept copy)", REPO_HINT)
    if quotes_enough(item.text):
        return None
    return ("a reported value from a paper or web page carries a short verbatim quote of it "
            "(two words or more, or a number, in quotation marks)", PAGE_HINT)


def unquoted(catalog: Catalog) -> Iterator[tuple[Located, str, str]]:
    """Every reported value whose locator does not quote its source, with why and a hint
    (found once for each source and locator text, however many values share them)."""
    found: dict[tuple[str, str], tuple[str, str] | None] = {}
    for item in located(catalog):
        if not item.reported or not item.text.strip():
            continue
        if (why := found.get((item.source, item.text), _UNREAD)) is _UNREAD:
            why = found[item.source, item.text] = _why(catalog, item)
        if why is not None:
            yield item, *why


def rule_pages_quoted(catalog: Catalog) -> Iterator[Problem]:
    """A reported value's locator quotes its paper or page, or names a repository file line."""
    for item, why, hint in unquoted(catalog):
        yield catalog.problem(item.entry.kind.name, item.entry.key, item.loc, why, hint)
