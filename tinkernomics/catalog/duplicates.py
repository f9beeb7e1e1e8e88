"""Duplicate references (pipeline step 3, a cross-entry rule): one work, one reference file.

Two references are the same work when they share an arXiv id, a DOI, a URL or a title, each
normalised (``normal_keys``). The later file (in id order) is reported, naming the earlier one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import urlsplit

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import HoleTouched
from tinkernomics.catalog.problems import Problem

ARXIV_ID = re.compile(r"(?:arxiv\.org/(?:abs|pdf|html)/|arxiv[:\s]+)(\d{4}\.\d{4,5})(?:v\d+)?",
                      re.IGNORECASE)
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


def normal_keys(url: str | None, venue: str | None, title: str) -> dict[str, str]:
    """The identifying keys of a reference: arXiv id, DOI, URL and title, normalised."""
    keys = {"title": normal_title(title)}
    where = " ".join(s for s in (url, venue) if s)
    if arxiv := ARXIV_ID.search(where):
        keys["arxiv"] = arxiv.group(1)
    if url and (doi := DOI.search(url)):
        keys["doi"] = doi.group(1).lower().rstrip(".")
    if url:
        keys["url"] = normal_url(url)
    return {k: v for k, v in keys.items() if v}


def _safe_keys(ref: object) -> dict[str, str]:
    """Keys of a reference, leaving out any field that failed validation."""
    fields: dict[str, str | None] = {}
    for name in ("url", "venue", "title"):
        try:
            value = getattr(ref, name)
            fields[name] = value if isinstance(value, str) else None
        except HoleTouched:
            fields[name] = None
    return normal_keys(fields["url"], fields["venue"], fields["title"] or "")


def rule_references_unique(catalog: Catalog) -> Iterator[Problem]:
    """Two references never share an arXiv id, a DOI, a URL or a title (normalised)."""
    seen: dict[tuple[str, str], str] = {}
    for key, ref in catalog.references.items():
        reported = set()
        for name, value in _safe_keys(ref).items():
            first = seen.setdefault((name, value), key)
            if first == key or first in reported:
                continue
            reported.add(first)
            other = catalog.entry("reference", first).doc.path
            yield catalog.problem("reference", key, (KEY_FIELDS[name],),
                                  f"same {KEY_LABELS[name]} as {other} ({value})",
                                  f"this work is already in the catalog: cite {first!r} "
                                  "and delete this file")
