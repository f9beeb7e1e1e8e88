"""Duplicate references (pipeline step 3, a cross-entry rule): one work, one reference file.

Two references are the same work when they share an arXiv id (wherever written: an arXiv or
mirror address, an arXiv DOI, the venue; ``mirrors.arxiv_id``), a DOI, a URL or a title, each
normalised (``normal_keys``). The file to keep is the one more entries cite (a new duplicate is
usually cited by nothing yet, or by the entry added with it); between equals, the earlier id. The
others are reported, naming it. Two algorithms with the same name (case and spacing aside) or
names a reader cannot tell apart (Cyrillic "GRPО" beside "GRPO": the same UTS #39 skeleton,
``catalog.confusables``) are reported too, the later id naming the earlier (a plain-ASCII name
is kept before a look-alike): the index, the charts' legends and search would show two entries
no reader can tell apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import urlsplit

from tinkernomics.catalog.confusables import lookalikes, skeleton
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.mirrors import ARXIV, arxiv_id
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import citing_entries

ARXIV_ID = ARXIV
"""An arXiv id in an arxiv.org address, an arXiv DOI or 'arXiv <id>' (``tinkernomics find``)."""
DOI = re.compile(r"\b(10\.\d{4,9}/[^\s?#]+)", re.IGNORECASE)
TRACKING_PARAMS = re.compile(r"^(utm_[a-z]+|ref|source)=", re.IGNORECASE)

KEY_LABELS = {"arxiv": "arXiv id", "doi": "DOI", "url": "URL", "title": "title"}
KEY_FIELDS = {"arxiv": "url", "doi": "url", "url": "url", "title": "title"}


def normal_url(url: str) -> str:
    """Scheme, ``www.``, case of the host, trailing slash, fragment and tracking query
    parameters do not make a different page."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/") or ""
    query = "&".join(sorted(q for q in parts.query.split("&") if q and
                            not TRACKING_PARAMS.match(q)))
    return f"{host}{path}" + (f"?{query}" if query else "")


def normal_title(title: str) -> str:
    """Case, accents, punctuation and spacing do not make a different title."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().casefold()
    return " ".join(re.findall(r"[a-z0-9]+", text))


def normal_name(name: str) -> str:
    """Case, width and spacing do not make a different name; symbols do ('REINFORCE++')."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def normal_keys(url: str | None, venue: str | None, title: str) -> dict[str, str]:
    """The identifying keys of a reference: arXiv id, DOI, URL and title, normalised."""
    keys = {"title": normal_title(title)}
    if arxiv := arxiv_id(url, venue):  # an arXiv address, a mirror's, an arXiv DOI, a venue
        keys["arxiv"] = arxiv
    if url and (doi := DOI.search(url)):
        keys["doi"] = doi.group(1).lower().rstrip(".")
    if url:
        keys["url"] = normal_url(url)
    return {k: v for k, v in keys.items() if v}


def _safe_keys(ref: object) -> dict[str, str]:
    """Keys of a reference, leaving out any field that failed validation."""
    fields = {name: value if isinstance(value := field_or_none(ref, name), str) else None
              for name in ("url", "venue", "title")}
    return normal_keys(fields["url"], fields["venue"], fields["title"] or "")


def _keep_first(ids: list[str], cited: dict[str, int]) -> list[str]:
    """``ids`` ordered so the one to keep comes first: most cited, then earliest id."""
    return sorted(ids, key=lambda key: (-cited.get(key, 0), key))


def rule_references_unique(catalog: Catalog) -> Iterator[Problem]:
    """Two references never share an arXiv id, a DOI, a URL or a title (normalised)."""
    cited = citing_entries(catalog)
    seen: dict[tuple[str, str], str] = {}
    for key in _keep_first(list(catalog.references), cited):
        reported = set()
        for name, value in _safe_keys(catalog.references[key]).items():
            first = seen.setdefault((name, value), key)
            if first == key or first in reported:
                continue
            reported.add(first)
            other = catalog.entry("reference", first).doc.path
            yield catalog.problem("reference", key, (KEY_FIELDS[name],),
                                  f"same {KEY_LABELS[name]} as {other} ({value})",
                                  f"this work is already in the catalog: cite {first!r} "
                                  "and delete this file")


def name_key(name: str) -> str:
    """What a reader sees of a name: its NFKC form, case and spacing aside, each character as
    its UTS #39 prototype (so look-alikes from other scripts compare equal)."""
    folded = skeleton(skeleton(normal_name(name)).casefold())
    return " ".join(folded.split())


def _name_problem(catalog: Catalog, key: str, first: str) -> Problem:
    name, other_name = catalog.algorithms[key].name, catalog.algorithms[first].name
    other = catalog.entry("algorithm", first).doc.path
    if normal_name(name) == normal_name(other_name):
        return catalog.problem(
            "algorithm", key, ("name",), f"same name as {other} ({name})",
            "if it is the same method, keep one file; if not, give this one the name its "
            "paper uses for it, or add what sets it apart (e.g. 'GRPO (2-sample)')")
    odd = "; ".join(lookalikes(name)) or "look-alike characters"
    return catalog.problem(
        "algorithm", key, ("name",),
        f"name {name!r} looks the same as {other_name!r} in {other} ({odd})",
        "retype the name in plain letters; if it is another method, give it a name readers "
        "can tell apart")


def rule_algorithm_names_unique(catalog: Catalog) -> Iterator[Problem]:
    """Two algorithms never share a name (case and spacing aside) or names that look the same."""
    names: dict[str, list[str]] = {}
    for key, algo in catalog.algorithms.items():
        name = field_or_none(algo, "name")
        if isinstance(name, str) and (normal := name_key(name)):
            names.setdefault(normal, []).append(key)
    for keys in names.values():
        plain_first = sorted(keys, key=lambda k: (not catalog.algorithms[k].name.isascii(), k))
        first, *others = plain_first
        for key in sorted(others):
            yield _name_problem(catalog, key, first)
