"""The raw-HTML extension (tinkernomics.site.pages.rawhtml) passes a marked block through
Markdown as written, with the site's own Markdown extensions (mkdocs.yml) loaded."""

from __future__ import annotations

from pathlib import Path

import markdown
import yaml

from tinkernomics.site.pages.rawhtml import raw_block

ROOT = Path(__file__).resolve().parent.parent


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its ``!ENV`` and ``!!python/name`` tags ignored."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def site_markdown() -> markdown.Markdown:
    """A Markdown converter with mkdocs.yml's extensions and their settings."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    names, settings = [], {}
    for item in config["markdown_extensions"]:
        name, options = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        names.append(name)
        if options:
            settings[name] = options
    settings.pop("pymdownx.snippets", None)  # reads files relative to the project: not needed
    return markdown.Markdown(extensions=names, extension_configs=settings)


BLOCK = ('<div class="x">\n<p>fence-like lines follow</p>\n```\n<p>*not emphasis*</p>\n'
         '```\n</div>')


def test_marked_block_reaches_the_page_as_written() -> None:
    html = site_markdown().convert(f"# Title\n\n{raw_block(BLOCK)}\n\nAfter *it*.\n")
    assert BLOCK in html
    assert "<em>it</em>" in html  # the markdown around the block is still markdown


def test_marked_block_is_stashed_before_fenced_code() -> None:
    """Raw lines never reach the fenced-code preprocessor (pymdownx.superfences), which ran over
    every line of every raw block before (issue 47: build time at 1,000 algorithms)."""
    at = site_markdown().preprocessors.get_index_for_name  # Registry's public order
    assert at("tinkernomics_raw_html") < at("fenced_code_block")
    assert at("normalize_whitespace") < at("tinkernomics_raw_html")
