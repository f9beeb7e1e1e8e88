"""Algorithm pages without Python-Markdown (``rawhtml.convert``, issue 47): the HTML, table of
contents and title are byte for byte what Markdown makes of the same text with the site's
extensions, on every algorithm page of the fixture catalog; anything outside the narrow shape falls
back to Markdown; the MkDocs stub skips Jinja (``macros/__init__.py``). Fixture catalogs only."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import markdown
import pytest
from helpers_catalog import copy_valid
from helpers_site import load_hooks, mkdocs_config

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages import rawhtml
from tinkernomics.site.pages.feature import algorithm_stub
from tinkernomics.site.pages.rawhtml import raw_block

REPO_ROOT = Path(__file__).resolve().parent.parent


def _markdown() -> markdown.Markdown:
    config = mkdocs_config()
    names, configs = [], {}
    for ext in config["markdown_extensions"]:
        name, opts = next(iter(ext.items())) if isinstance(ext, dict) else (ext, {})
        names.append(name)
        configs[name] = opts or {}
    return markdown.Markdown(extensions=names, extension_configs=configs)


def _plain(tokens: list[Any]) -> list[dict[str, Any]]:
    return [{"level": t["level"], "id": t["id"], "name": t["name"],
             "children": _plain(t["children"])} for t in tokens]


def _same_as_markdown(text: str) -> rawhtml.RawPage:
    md = _markdown()
    html = md.convert(text)
    raw = rawhtml.convert(text)
    assert raw is not None
    assert raw.html == html
    assert raw.toc_tokens == _plain(md.toc_tokens)
    return raw


def test_every_fixture_algorithm_page_is_the_html_markdown_makes(tmp_path: Path) -> None:
    cat = load_valid_catalog(copy_valid(tmp_path))
    ctx = SiteContext(root=REPO_ROOT, catalog=cat)
    for algo_id in cat.algorithms:
        raw = _same_as_markdown(pages.algorithm_page(ctx, algo_id))
        assert raw.title == cat.algorithms[algo_id].name or raw.title is None
        assert {t["id"] for t in raw.toc_tokens} <= raw.anchor_ids


def test_headings_slugs_exclusion_and_a_colliding_title() -> None:
    text = "\n\n".join(["# Notes", raw_block("<div><p>a</p></div>"),
                        "## Notes {#notes}", raw_block("<table><tr><td>1</td></tr></table>"),
                        "### What is it? {#what data-search-exclude}",
                        raw_block("<!-- c -->\n<div>x</div>")])
    raw = _same_as_markdown(text)
    assert raw.title == "Notes" and {"notes", "notes_1", "what"} <= raw.anchor_ids
    assert 'data-search-exclude id="what"' in raw.html


@pytest.mark.parametrize("text", [
    "# A *b*", "# A & B", "# A_b_", "# A `b`", "# A <b>", "# A\\(x\\)", "# A #",
    "Some paragraph", "# A\n\n" + raw_block("<span>inline</span>"),
    "# A\n\n<!--tn:raw-->\n<div>unclosed</div>", "# A\n\n" + raw_block("<div>\ta</div>"),
    "# A\n\n" + raw_block("<div>\n   \n</div>"), "# A\n\n--8<-- \"README.md\"",
    "## X {#x}\n\n## Y {#x}", "",
])
def test_anything_else_goes_to_markdown(text: str) -> None:
    assert rawhtml.convert(text) is None


class _Env(SimpleNamespace):
    pass


def test_the_stub_is_the_macro_called_directly_never_jinja_source() -> None:
    """Under MkDocs the stub calls ``algorithm_page`` itself and the page is not rendered as a
    template, so not even the stub's own text is compiled; another text is left alone."""
    spec = importlib.util.spec_from_file_location("tn_macros_adapter",
                                                  REPO_ROOT / "macros" / "__init__.py")
    assert spec is not None and spec.loader is not None
    adapter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(adapter)
    calls: list[str] = []
    meta: dict[str, Any] = {}
    env = _Env(variables={}, markdown=algorithm_stub("a.b-c_1"), page=SimpleNamespace(meta=meta),
               macros={"algorithm_page": lambda i: calls.append(i) or "{{ not rendered }}"})  # type: ignore[func-returns-value]
    adapter.on_pre_page_macros(env)
    assert calls == ["a.b-c_1"] and env.markdown == "{{ not rendered }}"
    assert meta == {"render_macros": False}
    adapter.on_post_page_macros(env)
    assert meta == {}  # the page's meta is what it was (the theme's templates read it)
    other = _Env(variables={}, markdown='{{ algorithm_page("x") }} and more',
                 page=SimpleNamespace(meta={}), macros=env.macros)
    adapter.on_pre_page_macros(other)
    assert other.markdown.endswith("and more") and other.page.meta == {}


def test_the_mkdocs_hook_renders_an_algorithm_page_without_markdown() -> None:
    """``on_page_markdown`` gives an algorithm page (never the index) the Markdown-free render:
    content, table of contents, title and anchors set as ``Page.render`` sets them."""
    hooks = load_hooks("tn_hooks_rawpage")
    text = "# Grpo\n\n" + raw_block("<div><p>x</p></div>") + "\n\n## Notes {#notes}\n"
    page = SimpleNamespace(file=SimpleNamespace(src_uri="algorithms/grpo.md"), markdown=text)
    assert hooks.on_page_markdown(text, page, None, None) == text
    page.render(None, None)
    assert page.content == _markdown().convert(text)
    assert [(a.title, a.id, [c.id for c in a.children]) for a in page.toc] == \
        [("Grpo", "grpo", ["notes"])]
    assert page._title_from_render == "Grpo" and page.present_anchor_ids == {"grpo", "notes"}
    index = SimpleNamespace(file=SimpleNamespace(src_uri="algorithms/index.md"), markdown=text)
    hooks.on_page_markdown(text, index, None, None)
    assert "render" not in vars(index)
