"""Search requires every word of a query (search-terms.js; the query message's shape from the
theme adapter, macros/theme.py rule 5): what a reader sees, typed into Material's search box in
Chromium on a tiny site built with the project's theme overrides, hooks and search settings.

The same site with the page's ``<meta name="tn-theme-search">`` taken out searches as Material
does on its own (any one word): the rewrite is what requires the words, and without the shape
the script leaves the search alone. A theme release that moves the message fails here; walk the
upgrade checklist in macros/theme.py."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from helpers_search import SearchTab
from helpers_site import REPO, load_theme, mkdocs_config

pytestmark = [pytest.mark.build, pytest.mark.browser]

THEME = load_theme()
MKDOCS = Path(sys.executable).with_name("mkdocs")
RECHECK = "walk the upgrade checklist in macros/theme.py (rule 5)"

PAGES = {
    "index.md": "# Home\n\nNothing to find on this page.\n",
    "reward.md": "# Reward scoring\n\nThe reward model scores each rollout. The price list is "
                 "dated.\n",
    "world.md": "# World\n\nA model of the world, with no scores.\n",
    "modelling.md": "# Modelling\n\nModels and modelling, never the bare word.\n",
    "clip.md": "# Clipping\n\nClip higher raises the upper bound.\n",
    "cliponly.md": "# Clip alone\n\nA clip with nothing above it.\n",
}
META = re.compile(r"""\s*<meta name="tn-theme-search" content='[^']*'>""")


def _build(root: Path) -> Path:
    """A tiny site with the project's theme overrides, MkDocs hooks and search settings."""
    (root / "docs").mkdir(parents=True)
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    project = mkdocs_config()
    search = next(p["search"] for p in project["plugins"]
                  if isinstance(p, dict) and "search" in p)
    config = {
        "site_name": "t",
        "theme": {"name": "material", "custom_dir": str(REPO / "site_overrides"),
                  "features": project["theme"]["features"]},
        "extra_javascript": [{"path": "assets/javascripts/search-terms.js", "defer": True}],
        "hooks": [str(REPO / "macros" / "mkdocs_hooks.py")],
        "plugins": [{"search": search}],
    }
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    subprocess.run([str(MKDOCS), "build", "-q", "-f", str(root / "mkdocs.yml")], check=True,
                   cwd=root, capture_output=True)
    return root / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("search-terms"))


@pytest.fixture(scope="module")
def search(browser, site: Path) -> Iterator[SearchTab]:
    tab = SearchTab(browser, site)
    yield tab
    tab.close()


@pytest.fixture(scope="module")
def plain_search(browser, site: Path) -> Iterator[SearchTab]:
    """The same site, its pages without the query message's shape."""
    plain = site.with_name("plain-site")
    shutil.copytree(site, plain)
    for page in plain.rglob("*.html"):
        page.write_text(META.sub("", page.read_text(encoding="utf-8")), encoding="utf-8")
    tab = SearchTab(browser, plain)
    yield tab
    tab.close()


def test_every_page_carries_the_shape_the_adapter_declares(site: Path) -> None:
    for page in site.rglob("*.html"):
        found = META.search(page.read_text(encoding="utf-8"))
        assert found is not None, page
        content = html.unescape(found.group(0).split("content='")[1][:-2])
        assert content == THEME.search_shape(), page


@pytest.mark.parametrize(("query", "pages"), [
    ("reward model", ["reward/"]),            # both words, not either
    ("reward zzqqxx", []),                    # a word no page holds: nothing
    ("clip-higher", ["clip/"]),               # two words of the index, both required
    ("clip higher", ["clip/"]),
    ("model -world", ["reward/"]),            # a word the reader marked is left as it is
])
def test_every_word_of_a_query_is_required(search: SearchTab, query: str,
                                           pages: list[str]) -> None:
    assert search.results(query) == pages, RECHECK
    assert search.errors == []


def test_a_short_last_word_is_a_prefix_a_long_one_a_whole_word(search: SearchTab) -> None:
    assert search.results("pri") == ["reward/"]                    # "price", still typing
    assert sorted(search.results("model")) == ["reward/", "world/"]  # not "models"
    assert search.errors == []


def test_without_the_shape_the_search_is_materials_own(plain_search: SearchTab) -> None:
    """Material alone takes any one word (and every word as a prefix): the same queries find
    more, so the tests above see the rewrite at work."""
    assert sorted(plain_search.results("reward model")) == ["modelling/", "reward/", "world/"]
    assert plain_search.results("reward zzqqxx") == ["reward/"]
    assert plain_search.errors == []
