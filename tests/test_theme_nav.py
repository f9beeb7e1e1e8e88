"""The navigation rendered once for the pages outside it (macros/theme.py rule 9, issue 47):
every page of a small Material site is the same with ``share_nav`` as with Material's own
partial (pages in the nav, a section's pages, pages outside it at several depths, a page whose
nav links come out differently), and Material's partial runs once for all the pages outside
the nav that share a folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers_site import load_macros_file, load_theme

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


HEADER_CONFIG = CONFIG.replace("  name: material\n",
                               "  name: material\n  custom_dir: {overrides}\n")
TITLES = {"things/a.md": "---\ntitle: Front & <i>matter</i>\n---\n# A\n",
          "things/b.md": "# B & co\n", "things/c.md": "# A\n", "other/a.md": "# Other\n"}


def _header_module() -> Any:
    return load_macros_file("theme_header.py", "macros.theme_header")


def test_the_header_is_rendered_once_a_folder_with_each_pages_title(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 10 (macros/theme_header.py, issue 47): with the site's overrides, every page is the
    same when the header is rendered once for the pages of a folder, each with its own title."""
    root = tmp_path / "site"
    overrides = Path(str(THEME.__file__)).parent.parent / "site_overrides"
    (root / "mkdocs.yml").parent.mkdir(parents=True)
    (root / "mkdocs.yml").write_text(HEADER_CONFIG.format(overrides=overrides))
    for name in PAGES:
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(TITLES.get(name, f"# {name}\n\ntext\n"))
    own, _ = THEME.render_pages(root / "mkdocs.yml", shared_nav=False)
    header = _header_module()
    runs: list[str] = []
    share_nav = THEME.share_nav

    def share_both(env: Any) -> None:
        share_nav(env)
        header.share_header(env)
        once = env.globals["tn_header_once"]

        def counted(page: Any, caller: Callable[[], str]) -> str:
            def render() -> str:
                runs.append(page.file.src_uri)
                return caller()
            return str(once(page, render))
        env.globals["tn_header_once"] = counted

    monkeypatch.setattr(THEME, "share_nav", share_both)
    shared, _ = THEME.render_pages(root / "mkdocs.yml", shared_nav=True)
    for name in PAGES:  # the same but for the spaces of the config JSON (rule 10)
        assert shared[name] == header.compact_config(own[name]), name
        assert shared[name] != own[name] and '"base":' in shared[name], name
    assert "Front & <i>matter</i>" in shared["things/a.md"]
    assert "B &amp; co" in shared["things/b.md"]
    assert len([r for r in runs if r.startswith("things/")]) == 1  # one for a, b and c
    assert len(runs) == 5  # by depth and folder: /, things/ and guide/, things, guide, other


def test_the_config_json_loses_its_spaces_and_keeps_its_escapes() -> None:
    header = _header_module()
    start, end = header.CONFIG
    block = f'<p>{start}{{"a": "\\u003c/script\\u003e \\u0026", "b": [1, 2]}}{end}<script></script>'
    assert header.compact_config(block) == (
        f'<p>{start}{{"a":"\\u003c/script\\u003e \\u0026","b":[1,2]}}{end}<script></script>')
    for kept in (f"{start}{{not json}}{end}", f"{start}{{}}{end}{start}{{}}{end}", "<p>{}</p>"):
        assert header.compact_config(kept) == kept
