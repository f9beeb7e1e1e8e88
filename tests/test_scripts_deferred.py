"""Every script of a page is deferred, in the theme's order (Material's bundle, then our
extra_javascript): ours by ``defer: true`` in mkdocs.yml, the bundle by main.html's scripts block,
which writes Material's block again with the path the MkDocs hook reads from Material's
``base.html``; the hook fails the build if that block ever holds more."""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from conftest_site import BuiltSite
from helpers_site import load_hooks, load_theme, mkdocs_config
from jinja2 import DictLoader, Environment, FileSystemLoader
from mkdocs.exceptions import PluginError

MATERIAL_TEMPLATES = load_theme().templates()
_SCRIPT = re.compile(r"<script\b([^>]*)>")
_SRC = re.compile(r'\ssrc="([^"]+)"')


def hooks() -> ModuleType:
    return load_hooks("tn_hooks_scripts")


def our_scripts() -> list[str]:
    config = mkdocs_config()
    return [entry["path"] for entry in config["extra_javascript"]]


def material_bundle() -> str:
    """The bundle path the hook reads from Material's installed ``base.html``."""
    return hooks().theme_bundle(Environment(loader=FileSystemLoader(str(MATERIAL_TEMPLATES))))


def test_the_bundle_is_read_from_materials_base_html() -> None:
    bundle = material_bundle()
    assert bundle.endswith(".js") and (MATERIAL_TEMPLATES / bundle).is_file()
    assert f"'{bundle}' | url" in (MATERIAL_TEMPLATES / "base.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("extra", [
    '<script src="{{ \'assets/javascripts/extra.js\' | url }}"></script>',
    '<script>document.body.dataset.x = 1</script>',
    '{% include "partials/more-scripts.html" %}',
    "{{ config.extra.more }}",
])
def test_a_scripts_block_holding_more_fails_the_build(extra: str) -> None:
    block = ("{% block scripts %}<script src=\"{{ 'assets/javascripts/bundle.0.min.js' | url }}\">"
             "</script>{% for script in config.extra_javascript %}{{ script | script_tag }}"
             "{% endfor %}EXTRA{% endblock %}")
    plain = Environment(loader=DictLoader({"base.html": block.replace("EXTRA", "")}))
    assert hooks().theme_bundle(plain) == "assets/javascripts/bundle.0.min.js"
    changed = Environment(loader=DictLoader({"base.html": block.replace("EXTRA", extra)}))
    with pytest.raises(PluginError, match=re.escape("site_overrides/main.html")):
        hooks().theme_bundle(changed)


def test_every_page_defers_every_script_in_the_themes_order(built_site: BuiltSite) -> None:
    pages = sorted(built_site.root.glob("**/index.html"))
    pages = [p for p in pages if p.relative_to(built_site.root).parts[:1] != ("embed",)]
    assert len(pages) > 20
    bundle = material_bundle()
    for page in pages:
        tags = _SCRIPT.findall(page.read_text(encoding="utf-8"))
        external = [t for t in tags if _SRC.search(t)]
        sources = [_SRC.search(t).group(1).lstrip("./") for t in external]  # type: ignore[union-attr]
        assert sources[0] == bundle, page
        assert sources[1:] == our_scripts(), page
        assert all(re.search(r"\sdefer\b", t) for t in external), page
