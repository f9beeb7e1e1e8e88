"""What the search index holds of the listing pages (issue 47), on the fixture catalog: the Data
quality page indexes each entry without a page of its own by its heading (its name), not its field
list, and the References page indexes each reference's title and authors, not its summary or its
back-links; what is left out is cut before Material's search parser runs (site/pages/searchcut.py),
so the parser never reads it. The pages are rendered by their macros and converted by Markdown
with the site's extensions, as the build does; the index is Material's parser's sections."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest
from helpers_catalog import copy_valid
from helpers_site import load_theme, mkdocs_config
from markupsafe import escape

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.build import SiteContext
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages.searchcut import PLACEHOLDER, cut
from tinkernomics.site.pages.views import build_index
from tinkernomics.site.pages.views.generic import generic_views

REPO_ROOT = Path(__file__).resolve().parent.parent
THEME = load_theme()


def _html(text: str) -> str:
    """``text`` (a page macro's Markdown) as the site's Markdown makes it."""
    names, configs = [], {}
    for ext in mkdocs_config()["markdown_extensions"]:
        name, opts = next(iter(ext.items())) if isinstance(ext, dict) else (ext, {})
        names.append(name)
        configs[name] = opts or {}
    return markdown.Markdown(extensions=names, extension_configs=configs).convert(text)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> SiteContext:
    catalog = load_valid_catalog(copy_valid(tmp_path_factory.mktemp("catalog")))
    return SiteContext(root=REPO_ROOT, catalog=catalog)


def _sections(html: str) -> dict[str | None, tuple[str, str]]:
    """Material's search sections of ``html``: id -> (title, text)."""
    return {sid: (title, text) for sid, title, text in THEME.search_sections(html)}


def test_an_entry_without_a_page_is_found_by_its_name_not_its_field_list(ctx: SiteContext) -> None:
    html = _html(pages.data_quality_page(ctx))
    kinds = generic_views(build_index(ctx.catalog, ctx.factor))
    entries = [e for kind in kinds for e in kind.entries]
    assert entries  # the fixture has a published run, a kind without a page of its own
    sections = _sections(html)
    for entry in entries:
        title, text = sections[entry.anchor]
        assert title == entry.label, entry.id
        assert entry.id not in text and not any(f.label in text for f in entry.fields), text
        assert f"<code>{entry.id}</code>" in html  # still on the page
    # the page's own prose is still indexed
    assert "unverified" in " ".join(text for _, text in sections.values())
    kept, parts = cut(html, THEME.profile())
    assert not any(f"<code>{e.id}</code>" in kept for e in entries)  # the parser never reads it
    assert sum(f"<code>{e.id}</code>" in part for part in parts for e in entries) == len(entries)


def test_a_reference_is_found_by_title_and_authors_not_its_summary_or_back_links(
        ctx: SiteContext) -> None:
    html = _html(pages.references_page(ctx))
    text = " ".join(f"{title} {body}" for title, body in _sections(html).values())
    refs = ctx.catalog.references.values()
    assert refs
    for ref in refs:
        assert str(escape(ref.title)) in text and str(escape(ref.authors)) in text, ref.id
    summaries = [str(r.summary).split("`")[0] for r in refs if r.summary]
    assert summaries and all(s[:30] in html and s[:30] not in text for s in summaries)
    assert "Cited by:" in html and "Cited by:" not in text
    kept, _ = cut(html, THEME.profile())
    assert "Cited by:" not in kept and summaries[0][:30] not in kept  # never parsed
    for ref in refs:  # a reference's summary and back-links are one cut (one placeholder)
        item = kept.split(f'<li id="{ref.id}"', 1)[1].split("</li>", 1)[0]
        assert item.count(PLACEHOLDER.split("{")[0]) <= 1, item
