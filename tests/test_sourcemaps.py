"""The built site carries no source maps, and nothing points at one (pages.sourcemaps)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest_site import BuiltSite

from tinkernomics.site.pages.sourcemaps import drop_source_maps


def test_maps_and_the_comments_naming_them_go_and_the_code_stays(tmp_path: Path) -> None:
    js = tmp_path / "assets" / "javascripts"
    css = tmp_path / "assets" / "stylesheets"
    js.mkdir(parents=True)
    css.mkdir(parents=True)
    (js / "bundle.min.js").write_text("var a=1;\n//# sourceMappingURL=bundle.min.js.map\n")
    (js / "bundle.min.js.map").write_text("{}" * 100)
    (css / "main.min.css").write_text("a{b:c}\n/*# sourceMappingURL=main.min.css.map*/")
    (css / "main.min.css.map").write_text("{}")
    (js / "plain.js").write_text("// a comment about sourceMappingURL\nvar b=2;\n")
    saved = drop_source_maps(tmp_path)
    assert not list(tmp_path.rglob("*.map"))
    assert (js / "bundle.min.js").read_text() == "var a=1;\n"
    assert (css / "main.min.css").read_text() == "a{b:c}\n"
    assert (js / "plain.js").read_text() == "// a comment about sourceMappingURL\nvar b=2;\n"
    assert saved > 202


@pytest.mark.build
def test_the_built_site_has_no_source_map(built_site: BuiltSite) -> None:
    assert not list(built_site.root.rglob("*.map"))
    for path in [*built_site.root.rglob("*.js"), *built_site.root.rglob("*.css")]:
        assert "sourceMappingURL=" not in path.read_text(encoding="utf-8")[-300:], path
