"""Theme files no page loads are dropped after the build (tinkernomics.site.postbuild.themefiles):
the source maps, each bundle losing only the comment that named its map, and the search
languages of an English-only site."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest_site import BuiltSite
from helpers_site import load_theme

from tinkernomics.site.build import NO_THEME
from tinkernomics.site.postbuild import themefiles
from tinkernomics.site.postbuild.themefiles import (
    drop_unused_search_languages,
    drop_unused_theme_files,
    index_languages,
)

THEME = load_theme()
PROFILE = THEME.profile()
"""Where the theme adapter says the theme's files are (rule 3 of macros/theme.py)."""
ASSETS, LUNR_DIR, SEARCH_INDEX = (PROFILE.source_maps_under, PROFILE.search_languages,
                                  PROFILE.search_index)
THEME_ASSETS = THEME.templates() / ASSETS


def drop_source_maps(site: Path) -> int:
    return themefiles.drop_source_maps(site, ASSETS)
COMMENT = re.compile(rb"\n?(//|/\*)# sourceMappingURL=\S+( \*/)?\s*\Z")


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_maps_and_the_comments_naming_them_go_other_bytes_stay(tmp_path: Path) -> None:
    js, css = tmp_path / ASSETS / "javascripts", tmp_path / ASSETS / "stylesheets"
    write(js / "bundle.min.js", b"(()=>{a<b})();\n//# sourceMappingURL=bundle.min.js.map\n\n")
    write(js / "bundle.min.js.map", b'{"version":3}' * 100)
    write(js / "workers/search.js", b"x();\n//# sourceMappingURL=../search.js.map")
    write(js / "search.js.map", b"{}")
    write(css / "main.css", b"body{}\n/*# sourceMappingURL=main.css.map */\n")
    write(css / "main.css.map", b"{}")
    orphan = b"y();\n//# sourceMappingURL=gone.js.map\n"
    write(js / "orphan.js", orphan)
    inline = b"z();\n//# sourceMappingURL=data:application/json;base64,e30=\n"
    write(js / "inline.js", inline)
    maps_size = sum(p.stat().st_size for p in tmp_path.rglob("*.map"))
    site_size = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())

    removed = drop_source_maps(tmp_path)

    assert not list(tmp_path.rglob("*.map"))
    assert (js / "bundle.min.js").read_bytes() == b"(()=>{a<b})();\n"
    assert (js / "workers/search.js").read_bytes() == b"x();\n"
    assert (css / "main.css").read_bytes() == b"body{}\n"
    assert (js / "orphan.js").read_bytes() == orphan
    assert (js / "inline.js").read_bytes() == inline
    assert removed > maps_size
    assert removed == site_size - sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert drop_source_maps(tmp_path) == 0


def test_a_site_without_assets_is_left_alone(tmp_path: Path) -> None:
    write(tmp_path / "index.html", b"<p>hi</p>")
    assert drop_source_maps(tmp_path) == 0
    assert (tmp_path / "index.html").read_bytes() == b"<p>hi</p>"


def test_the_index_languages_are_read_from_its_head(tmp_path: Path) -> None:
    """MkDocs writes the config first: the pages' texts after it (megabytes at 1,000
    algorithms) are not read, so not even a cut-off tail stops it; another layout is read
    whole."""
    index = tmp_path / "index.json"
    start = PROFILE.search_index_start  # how MkDocs starts it: the config first
    index.write_text(start + '{"lang":["en"],"separator":"x"},"docs":[{"text":"' + "a" * 99999,
                     encoding="utf-8")
    assert index_languages(index, PROFILE.search_index_start) == ["en"]
    index.write_text(json.dumps({"docs": [{"text": "b" * 99999}], "config": {"lang": ["de"]}}),
                     encoding="utf-8")
    assert index_languages(index, PROFILE.search_index_start) == ["de"]
    index.write_text(start + '{"lang":["ja"],"x":"' + "c" * 99999 + '"},"docs":[]}',
                     encoding="utf-8")
    assert index_languages(index, PROFILE.search_index_start) == ["ja"]


@pytest.mark.build
def test_built_site_has_no_source_map_and_the_theme_bundles_are_otherwise_intact(
        built_site: BuiltSite) -> None:
    assets = built_site.root / ASSETS
    assert not list(assets.rglob("*.map"))
    theme_maps = list(THEME_ASSETS.rglob("*.map"))
    assert theme_maps, "the theme ships source maps: this test checks they are dropped"
    compared = 0
    lunr = THEME.templates() / LUNR_DIR
    for source in THEME_ASSETS.rglob("*"):
        if source.suffix not in (".js", ".css") or not source.is_file() or lunr in source.parents:
            continue
        built = assets / source.relative_to(THEME_ASSETS)
        expected = source.read_bytes()
        if (found := COMMENT.search(expected)) is not None:
            expected = expected[:found.start()] + b"\n"
        assert built.read_bytes() == expected, built
        compared += 1
    assert compared >= 4  # the bundle, the search worker, the main and palette stylesheets


def search_site(root: Path, languages: list[str]) -> Path:
    write(root / SEARCH_INDEX, json.dumps({"config": {"lang": languages}, "docs": []}).encode())
    write(root / LUNR_DIR / "min/lunr.de.min.js", b"de();")
    write(root / LUNR_DIR / "tinyseg.js", b"ja();")
    write(root / ASSETS / "javascripts/workers/search.js", b"worker();")
    return root


def test_an_english_only_site_loses_the_search_languages_and_keeps_the_worker(
        tmp_path: Path) -> None:
    site = search_site(tmp_path, ["en"])
    assert drop_unused_theme_files(site, PROFILE) == len(b"de();") + len(b"ja();")
    assert not (site / LUNR_DIR).exists()
    assert (site / ASSETS / "javascripts/workers/search.js").read_bytes() == b"worker();"
    assert drop_unused_search_languages(site, PROFILE) == 0


def test_without_the_themes_facts_nothing_is_dropped(tmp_path: Path) -> None:
    site = search_site(tmp_path, ["en"])
    write(site / ASSETS / "x.js.map", b"{}")
    assert drop_unused_theme_files(site, NO_THEME) == 0
    assert (site / LUNR_DIR / "tinyseg.js").is_file() and (site / ASSETS / "x.js.map").is_file()


@pytest.mark.parametrize("languages", [["en", "de"], ["ja"], []])
def test_any_other_language_list_keeps_every_search_language(tmp_path: Path,
                                                             languages: list[str]) -> None:
    site = search_site(tmp_path, languages)
    assert drop_unused_search_languages(site, PROFILE) == 0
    assert (site / LUNR_DIR / "min/lunr.de.min.js").is_file()
    assert (site / LUNR_DIR / "tinyseg.js").is_file()


def test_no_search_index_keeps_the_search_languages(tmp_path: Path) -> None:
    site = search_site(tmp_path, ["en"])
    (site / SEARCH_INDEX).unlink()
    assert drop_unused_search_languages(site, PROFILE) == 0
    assert (site / LUNR_DIR / "tinyseg.js").is_file()


@pytest.mark.build
def test_built_site_searches_english_only_without_the_language_files(
        built_site: BuiltSite) -> None:
    index = json.loads((built_site.root / SEARCH_INDEX).read_text(encoding="utf-8"))
    assert index["config"]["lang"] == ["en"]
    assert (THEME.templates() / LUNR_DIR).is_dir()
    assert not (built_site.root / LUNR_DIR).exists()
    assert list((built_site.root / ASSETS / "javascripts/workers").glob("search.*.min.js"))
