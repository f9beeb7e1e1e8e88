"""Quoted locators for papers and web pages (pipeline step 3, a cross-entry rule).

A ``reported`` value's locator says where its source states it; ``quotes`` checks the ones
into a file of a GitHub repository against a kept copy. Everything else a figure cites (a
paper, a blog post, a vendor's page) cannot be checked by the build, so its locator must carry
a short verbatim quote a reviewer finds with the browser's search: at least two words, or a
number (a table's cell), between "...", “...” or `...` (a section title alone, one word, does
not show the figure). A reported
value citing a GitHub repository must name the file, line and words (``quotes.FILE_LINE``), so
that ``quotes.rule_quotes_at_their_lines`` checks it. A value no reachable copy confirms is
marked ``unverified`` with ``reported_instead`` saying why, never given an invented quote.

``rule_pages_quoted`` runs with ``rules.RULES``. The places in ``NOT_YET_QUOTED`` (hardware,
runs and the Tinker platform's gaps, whose files other branches edited this round) are left out
until their locators quote; drop one once its catalog passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.quotes import Located, located, parse_locator, repo_of, squash

NOT_YET_QUOTED: frozenset[tuple[str, ...]] = frozenset(
    {("hardware",), ("run",), ("platform", "gaps")})
"""Where the rule does not look yet: a kind, or a kind and the first field of a value's path."""
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


def _not_yet(item: Located) -> bool:
    kind = item.entry.kind.name
    return (kind,) in NOT_YET_QUOTED or (kind, str(item.loc[0])) in NOT_YET_QUOTED


def unquoted(catalog: Catalog) -> Iterator[tuple[Located, str, str]]:
    """Every reported value whose locator does not quote its source, with why and a hint."""
    for item in located(catalog):
        if not item.reported or not item.text.strip() or _not_yet(item):
            continue
        why = _why(catalog, item)
        if why is not None:
            yield item, *why


def rule_pages_quoted(catalog: Catalog) -> Iterator[Problem]:
    """A reported value's locator quotes its paper or page, or names a repository file line."""
    for item, why, hint in unquoted(catalog):
        yield catalog.problem(item.entry.kind.name, item.entry.key, item.loc, why, hint)
