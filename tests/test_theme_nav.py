"""The navigation rendered once for the pages outside it (macros/theme.py rule 9, issue 47):
every page of a small Material site is the same with ``share_nav`` as with Material's own
partial (pages in the nav, a section's pages, pages outside it at several depths, a page whose
nav links come out differently), and Material's partial runs once for all the pages outside
the nav that share a folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_site import load_theme

THEME = load_theme()

CONFIG = """site_name: nav test
use_directory_urls: true
theme:
  name: material
  features: [navigation.sections, navigation.indexes]
nav:
  - Home: index.md
  - Things: things/index.md
  - Guide:
      - guide/index.md
      - Deep: guide/deep.md
not_in_nav: |
  /things/*.md
  /guide/extra.md
  /other/*.md
"""
PAGES = ["index.md", "things/index.md", "things/a.md", "things/b.md", "things/c.md",
         "guide/index.md", "guide/deep.md", "guide/extra.md", "other/a.md"]
OUTSIDE = ["things/a.md", "things/b.md", "things/c.md", "guide/extra.md", "other/a.md"]


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("navsite")
    (root / "mkdocs.yml").write_text(CONFIG)
    for name in PAGES:
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n\n## Part\n\ntext\n")
    return root / "mkdocs.yml"


def test_every_page_is_the_same_with_the_shared_nav(config_file: Path) -> None:
    own, _ = THEME.render_pages(config_file, shared_nav=False)
    shared, _ = THEME.render_pages(config_file, shared_nav=True)
    assert sorted(shared) == sorted(PAGES)
    for name in PAGES:
        assert shared[name] == own[name], name
    assert shared["guide/deep.md"].count('href="./"') > shared["things/a.md"].count('href="./"')
    assert 'href="../../guide/deep/"' in shared["things/a.md"]
    assert 'href="../deep/"' in shared["guide/extra.md"]


def test_the_pages_outside_the_nav_share_a_rendering_by_folder(config_file: Path) -> None:
    rendered: list[str] = []
    THEME.render_pages(config_file, shared_nav=True, rendered=rendered)
    # things/a, b and c share one rendering; guide/extra and other/a link differently
    assert len([r for r in rendered if r in OUTSIDE]) == 3, rendered
    assert len(rendered) == len(PAGES) - len(OUTSIDE) + 3


def test_a_page_in_the_nav_is_never_shared(config_file: Path) -> None:
    _, shared = THEME.render_pages(config_file, shared_nav=False)
    assert shared == set(OUTSIDE)
    assert THEME.nav_key(None, None) is None
