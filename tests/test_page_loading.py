"""Pages load without holding back their first paint: one stylesheet of ours (the build joins the
feature stylesheets into assets/stylesheets/site.css), and deferred scripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest_site import BuiltSite
from helpers_site import PAGES, REPO, Node, load_page

from tinkernomics.site.postbuild import stylesheets

OURS = "assets/stylesheets/"
MATERIAL_CSS = ("main.", "palette.")


def test_the_bundle_joins_every_source_in_cascade_order(tmp_path: Path) -> None:
    for i, name in enumerate(stylesheets.SOURCES):
        (tmp_path / name).write_text(f".rule-{i} {{ order: {i}; }}\n", encoding="utf-8")
    text = stylesheets.bundle_text(tmp_path)
    positions = [text.index(f".rule-{i} ") for i in range(len(stylesheets.SOURCES))]
    assert positions == sorted(positions)
    assert all(f"/* ---- {name} ---- */" in text for name in stylesheets.SOURCES)


def test_every_stylesheet_of_ours_is_a_source() -> None:
    """A file left out of SOURCES would be copied into the site but in no page's styles."""
    folder = REPO / "site_overrides" / "assets" / "stylesheets"
    assert sorted(p.name for p in folder.glob("*.css")) == sorted(stylesheets.SOURCES)


def test_a_missing_source_names_the_file(tmp_path: Path) -> None:
    for name in stylesheets.SOURCES[1:]:
        (tmp_path / name).write_text("a{}", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=stylesheets.SOURCES[0]):
        stylesheets.bundle_text(tmp_path)


def _stylesheets(page: Node) -> list[str]:
    return [n.attrs["href"] for n in page.by_tag("link") if n.attrs.get("rel") == "stylesheet"]


def _ours(href: str) -> bool:
    name = href.rsplit("/", 1)[-1]
    return OURS in href and not name.startswith(MATERIAL_CSS)


@pytest.mark.build
@pytest.mark.parametrize("path", [*PAGES, "algorithms/grpo/", "calculator/", "api/"])
def test_each_page_links_one_stylesheet_of_ours_and_defers_its_scripts(
        built_site: BuiltSite, path: str) -> None:
    page = load_page(built_site.root, path)
    ours = [href for href in _stylesheets(page) if _ours(href)]
    assert [h.rsplit("/", 1)[-1] for h in ours] == [stylesheets.BUNDLE], ours
    body = next(iter(page.by_tag("body")))
    scripts = [n for n in body.iter() if n.tag == "script" and "src" in n.attrs]
    trailing = [s for s in scripts if "assets/javascripts/" in s.attrs["src"]]
    names = [s.attrs["src"].rsplit("/", 1)[-1] for s in trailing]
    # Material's bundle, then ours joined into one file (issue 47: one tag, not six); calculator.js
    # is added by calculator-loader.js (inside site.js) where a page has a calculator, never linked
    assert names[0].startswith("bundle.") and names[1:] == [stylesheets.SCRIPT_BUNDLE], names
    assert all("defer" in s.attrs for s in trailing), names


@pytest.mark.build
def test_the_built_bundle_holds_every_source_as_copied(built_site: BuiltSite) -> None:
    folder = built_site.root / "assets" / "stylesheets"
    bundle = (folder / stylesheets.BUNDLE).read_text(encoding="utf-8")
    for name in stylesheets.SOURCES:
        assert (folder / name).read_text(encoding="utf-8").strip() in bundle, name
    scripts = built_site.root / stylesheets.SCRIPT_FOLDER
    joined = (scripts / stylesheets.SCRIPT_BUNDLE).read_text(encoding="utf-8")
    at = [joined.index((scripts / name).read_text(encoding="utf-8").strip())
          for name in stylesheets.SCRIPT_SOURCES]
    assert at == sorted(at), "the scripts in the order they ran as separate tags"
    assert "calculator-loader.js" in stylesheets.SCRIPT_SOURCES
    assert "calculator.js" not in stylesheets.SCRIPT_SOURCES  # added where a page needs it
