"""Mirrors of arXiv (pipeline step 3, a cross-entry rule, and the arXiv id the duplicate check
reads): a reference cites the paper where it is published, not a page that copies or wraps it.

``arxiv_id`` finds an arXiv identifier wherever a reference writes it: an arxiv.org address
(abs, pdf, html), a known mirror's address (``MIRRORS``), an arXiv DOI (10.48550/arXiv.<id>) or
"arXiv <id>" in the venue. ``rule_no_arxiv_mirror`` refuses a reference URL on a mirror, with
the arXiv address as the hint: mirrors move, add their own summaries and comments, and hide
that two files cite one paper.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import Problem

NEW_ID = r"(\d{4}\.\d{4,5})(?:v\d+)?"
"""An arXiv identifier since 2007 (YYMM.NNNNN), without its version."""

MIRRORS: dict[str, str] = {
    "huggingface.co": r"^/papers/" + NEW_ID,
    "hf.co": r"^/papers/" + NEW_ID,
    "alphaxiv.org": r"^/(?:abs|overview|pdf)/" + NEW_ID,
    "arxiv-sanity-lite.com": r"pid=" + NEW_ID,
    "arxiv-sanity.com": r"^/(?:abs/)?" + NEW_ID,
    "semanticscholar.org": r"^/arxiv/" + NEW_ID,
    "api.semanticscholar.org": r"arxiv:" + NEW_ID,
    "ar5iv.org": r"^/(?:abs|html)/" + NEW_ID,
    "ar5iv.labs.arxiv.org": r"^/html/" + NEW_ID,
    "export.arxiv.org": r"^/(?:abs|pdf)/" + NEW_ID,
    "paperswithcode.com": r"^/paper/arxiv:?" + NEW_ID,
    "scholar.archive.org": r"arxiv[:/]" + NEW_ID,
    "arxiv.labs.arxiv.org": r"^/html/" + NEW_ID,
    "chatpaper.com": r"^/(?:paper|chatpaper)/.*?" + NEW_ID,
}
"""Host (``www.`` removed) -> pattern over its path and query that captures the arXiv id."""

ARXIV = re.compile(r"(?:arxiv\.org/(?:abs|pdf|html)/|10\.48550/arxiv\.|\barxiv[:\s]+)" + NEW_ID,
                   re.IGNORECASE)


def mirror_of_arxiv(url: str) -> tuple[str, str] | None:
    """(host, arXiv id) when ``url`` is a known mirror's page of an arXiv paper."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    pattern = MIRRORS.get(host)
    if pattern is None:
        return None
    where = parts.path + ("?" + parts.query if parts.query else "")
    found = re.search(pattern, where, re.IGNORECASE)
    return (host, found.group(1)) if found else None


def arxiv_id(*texts: str | None) -> str | None:
    """The arXiv id written in any of ``texts`` (an address, a mirror's, a DOI, a venue)."""
    for text in texts:
        if not text:
            continue
        if mirrored := mirror_of_arxiv(text):
            return mirrored[1]
        if found := ARXIV.search(text):
            return found.group(1)
    return None


def rule_no_arxiv_mirror(catalog: Catalog) -> Iterator[Problem]:
    """A reference URL is the paper's arXiv page, not a mirror's copy of it."""
    for key, ref in catalog.references.items():
        url = field_or_none(ref, "url")
        mirrored = mirror_of_arxiv(url) if isinstance(url, str) else None
        if mirrored is None:
            continue
        host, paper = mirrored
        yield catalog.problem(
            "reference", key, ("url",),
            f"{host} mirrors arXiv paper {paper}: cite the paper where it is published",
            f"url: https://arxiv.org/abs/{paper}")
