"""The theme adapter: every reliance on MkDocs', Material's and Plotly's internals, in one place.

The package (``tinkernomics/``) never imports MkDocs or Material; the MkDocs hooks
(``mkdocs_hooks.py``, beside this file, which loads it by path as MkDocs loads the hooks) and the
tests reach the theme's internals only through the names here. A theme release changes this
module at most: walk the checklist below, then move the pins.

Pinned (exact; ``pyproject.toml`` pins the same, ``tests/test_theme.py`` checks both agree):

- mkdocs 1.6.1, mkdocs-material 9.8.2 (``PINS``).
- plotly.js 4.1.1, vendored (``tinkernomics/site/charts/static/plotly/README.md``: its version and
  sha256); the charts and their tests use Plotly's public API only (``PLOTLY_API``, and
  ``gd.layout``) and the drawn SVG, never a graph's ``_``-prefixed fields (``_fullLayout``):
  ``tests/test_theme.py`` reads the scripts for the first, ``tests/test_theme_boundary.py``
  every script and test for the second.

What is relied on, and where:

1. Material's search plugin indexes a page in ``on_page_context`` at priority 0; the hooks cut
   what the index skips before it (``on_page_content`` at ``AFTER_OTHERS``) and restore it after
   it (``on_page_context`` at ``AFTER_OTHERS``). The cut itself
   (``tinkernomics/site/pages/searchcut.py``) mirrors the plugin's HTML parser: a section ends at
   every h1-h6, even inside an excluded element; an excluded element ends at the first end tag
   of its own name (the structure ``searchcut.py`` follows); what marks an exclusion, which
   elements are void and which attributes are stripped after indexing are ``PROFILE``'s
   ``search_exclude``, ``search_void`` and ``search_stripped``. ``search_sections`` and
   ``search_parser`` run that parser for the tests.
2. Material's ``base.html`` scripts block is its bundle's ``<script>`` plus the
   ``extra_javascript`` loop (``MATERIAL_SCRIPTS``): ``site_overrides/main.html`` writes it
   again, deferred, with the bundle path ``theme_bundle`` reads.
3. Material's built assets (source maps, search language files) that
   ``tinkernomics/site/postbuild/themefiles.py`` drops: where they are (``PROFILE``'s
   ``source_maps_under``, ``search_languages``), and the search index whose ``config.lang``
   says whether the languages are needed (``search_index``; MkDocs' search plugin writes its
   ``config`` first: ``search_index_start``).
4. MkDocs' ``Page.render`` (``mkdocs/structure/pages.py``): it sets ``content``, ``toc``
   (``get_toc`` of the toc tokens), ``_title_from_render``, ``present_anchor_ids`` and
   ``links_to_anchors``; ``render_finished`` sets the same for an algorithm page whose HTML is
   made without Markdown (the hooks' ``on_page_markdown`` calls ``render_without_markdown``,
   which gives such a page a ``render`` that calls it with ``convert`` of
   ``tinkernomics/site/pages/rawhtml.py``), and the build calls ``page.render`` after
   ``on_page_markdown``.
5. Material's search worker: the page posts it the index (``SEARCH_MESSAGES["setup"]``) and
   each query (``"query"``), and reads the answers (``"result"``); a message's content is its
   ``SEARCH_DATA`` field (Material's ``SearchMessageType`` and ``SearchMessage``, in
   ``integrations/search/worker/message``). Material offers no public way to change how a
   query is read (its worker takes the words as alternatives), so
   ``site_overrides/assets/javascripts/search-terms.js`` rewrites the query message. It knows
   nothing of the message's shape: it reads it from the page's
   ``<meta name="tn-theme-search">`` (``search_shape``, written by ``main.html`` from the hooks'
   ``on_env``; without it the script changes nothing). The tests that watch the worker
   (``tests/helpers_search.py``, ``tests/helpers_browser.py``) read the same constants here.
6. Material's inline scripts: the templates in ``templates/partials/javascripts/`` of its
   package (and of Zensical's, the same scripts) are the theme's only inline scripts, which the
   pages' Content-Security-Policy allows (``PROFILE``'s ``script_packages`` and
   ``script_templates``; read by ``tinkernomics/site/postbuild/knownscripts.py``).
7. Material's search dialog (``partials/search.html``) opens with ``SEARCH_DIALOG`` and no
   accessible name: ``site_overrides/partials/tn-header.html`` adds one to that text (the hooks'
   ``on_env`` hands it over; Zensical's dialog has a name already).
8. Material's markup our stylesheets, scripts, templates and tests name (``MARKUP``): its
   classes (``md-typeset``, ``md-button``...), CSS colour variables (``--md-*``) and data
   attributes (``data-md-color-scheme``...). Most are its documented customisation interface;
   CSS cannot read this module, so a rename is still followed in the stylesheets, but every name
   is declared here: ``tests/test_theme_boundary.py`` fails on a name used and not listed, and
   on a listed name the installed theme no longer has (naming the files that use it).
9. Material's site navigation is the partial ``partials/nav.html`` (``NAV_PARTIAL``), which
   ``base.html``'s ``site_nav`` block includes; it reads the page only to mark it and its
   sections active (``page in``/``==``, MkDocs' ``active`` flags) and to make its links
   relative (the ``url`` filter, MkDocs' ``get_relative_url``). ``share_nav`` (the hooks'
   ``on_env``) puts a wrapper under that name that renders Material's partial once per build
   for every page the nav neither holds nor marks whose links come out the same (``nav_key``):
   the 1,000 algorithm pages outside the nav share one rendering. Zensical runs no hooks.
10. Material's header reads of a page its title and URL only: ``theme_header.py`` (beside).
11. Its icons (``{% include ".icons/" ~ name ~ ".svg" %}``), painted by CSS: ``theme_icons.py``.
12. MkDocs' clean (``utils.clean_directory``, before ``on_files``) leaves a site folder's hidden
    entries: a rebuild holds the previous site in one (``mkdocs_inplace.py``, beside this file,
    and ``tinkernomics/site/postbuild/inplace.py``) to write over its files. Should the clean
    delete it, every file is created afresh (slower, the same site); the sweep group's second
    build (``tests/test_site_build.py``) fails on the inode it expected kept. MkDocs writes each
    page and its other files through ``utils.write_file`` (called as ``utils.write_file`` from
    ``mkdocs.commands.build`` and the search plugin): during such a rebuild the hooks put
    ``inplace.write_over`` under that name, so a page already holding its bytes is not written
    again. Should MkDocs stop calling it by that name, pages are written as before (slower, the
    same site).

How the package learns these facts without importing the theme or this module: ``PROFILE`` is
plain data (a literal: strings and lists), the fields of ``tinkernomics.site.build.ThemeProfile``.
The macros module (``macros/__init__.py``, under MkDocs and Zensical) and ``tinkernomics outputs``
read it with ``tinkernomics.site.outputs.read_theme_adapter``, which parses this file and never
runs it, and hand it to the build (``SiteContext.theme``); the hooks hand ``profile()`` to the
search cut. ``tests/test_theme_boundary.py`` fails if a theme internal (a private path, module
or markup named here) appears in any other module, template, script or test.

What stays outside, by design: Material's documented customisation interface (the template
blocks ``site_overrides/main.html`` extends, ``partials/header.html``, ``data-search-exclude``)
changes only in a major release; the browser layout and axe tests see it move. The markup of
rule 8 is written where it is styled, and listed here. ``main.html`` writes Material's scripts
block again (rule 2): the build fails naming it if that block changes.

Upgrade checklist (a new mkdocs-material or mkdocs):

1. Install it, set ``PINS`` and the pins in ``pyproject.toml`` (the only other file a release
   touches: packaging metadata, checked against ``PINS``).
2. ``pytest tests/test_theme.py tests/test_theme_boundary.py tests/test_searchcut.py
   tests/test_scripts_deferred.py tests/test_themefiles.py tests/test_site_rawpage.py
   tests/test_search_terms.py tests/test_security_wall.py tests/test_a11y_axe.py
   tests/test_theme_nav.py tests/test_theme_icons.py``: the search index of a tiny built site
   must be the same with and without the cut (rule 1); the scripts block must still match (rule
   2, else the build fails naming main.html); the theme files' tests (rule 3); algorithm pages
   built without Markdown the same as with it (rule 4); a tiny site searched in Chromium must
   require every word of a query (rule 5); the theme's inline scripts allowed (rule 6); the
   search dialog named (rule 7); every markup name still there (rule 8); rules 9 to 11.
3. If rule 4 moved (``test_site_rawpage.py``): read ``Page.render``, fix ``render_finished``.
   If rule 1 moved: read the plugin's ``Parser`` and ``on_page_context`` in
   ``material/plugins/search/plugin.py`` against the rules above and set ``PROFILE``'s
   ``search_*``; if its structure moved (where a section or an exclusion ends), set
   ``search_exclude`` to ``""``: no cut, the same index, a slower build, until
   ``tinkernomics/site/pages/searchcut.py`` follows.
   If rule 3 or 6 moved (``test_themefiles.py``, ``test_security_wall.py``): set ``PROFILE``.
   If rule 7 moved (``test_a11y_axe.py``): set ``SEARCH_DIALOG``.
   If rule 8 moved (``test_theme_boundary.py`` names a ``MARKUP`` name the theme lost): find
   its new name in the release's templates and stylesheets, rename it in ``MARKUP`` and in the
   files the test names.
   If rule 5 moved: read the new release's ``integrations/search/worker/message`` (the installed
   bundle's source map holds it), set ``SEARCH_MESSAGES`` and ``SEARCH_DATA``; if the worker
   now reads a query's words as all required, drop ``search-terms.js`` instead.
   If rule 9 moved (``tests/test_theme_nav.py``: a page's nav differs from Material's own):
   read the new ``partials/nav.html`` and ``nav-item.html`` for what else of the page they
   read, add it to ``nav_key`` (or drop the ``share_nav`` call from the hooks).
4. ``make build`` and look at a page (header, search, palette toggle).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import nodes

PROFILE = {
    # rule 6: the theme's inline scripts (Zensical's package holds the same partials)
    "script_packages": ["material", "zensical"],
    "script_templates": "templates/partials/javascripts",
    # rule 3: the built assets no page loads
    "source_maps_under": "assets",
    "search_index": "search/search_index.json",
    "search_index_start": '{"config":',
    "search_languages": "assets/javascripts/lunr",
    # rule 1: the search plugin's HTML parser
    "search_exclude": "data-search-exclude",
    "search_void": ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                    "param", "source", "track", "wbr"],
    "search_stripped": r'\s?data-search-\w+="[^"]+"',
}
"""The theme's facts the package needs, as plain data (``tinkernomics.site.build.ThemeProfile``
says what each field is). Keep it a literal: ``read_theme_adapter`` parses it without running
this file."""

SEARCH_DIALOG = 'role="dialog">'
"""The end of the search dialog's opening tag in Material's ``partials/search.html`` (rule 7)."""

MARKUP = frozenset({
    # classes
    "md-annotation__index", "md-button", "md-button--primary", "md-code__button",
    "md-container", "md-content", "md-content__inner", "md-copyright", "md-header",
    "md-header__button", "md-nav--primary", "md-nav__link", "md-progress", "md-search",
    "md-search-result", "md-search-result__item", "md-search-result__list",
    "md-search-result__meta", "md-search__input", "md-tag", "md-typeset",
    "md-typeset__scrollwrap", "md-typeset__table",
    # colour and font variables
    "--md-accent-fg-color", "--md-code-bg-color", "--md-code-fg-color", "--md-code-font-family",
    "--md-code-hl-constant-color", "--md-default-bg-color", "--md-default-fg-color",
    "--md-default-fg-color--light", "--md-default-fg-color--lighter",
    "--md-default-fg-color--lightest", "--md-footer-fg-color--light", "--md-hue",
    "--md-typeset-a-color", "--md-typeset-table-color", "--md-typeset-table-color--light",
    "--md-warning-fg-color",
    # data attributes
    "data-md-color-primary", "data-md-color-scheme", "data-md-component",
})
"""Material's markup the site's own files name (rule 8)."""

PINS = {"mkdocs": "1.6.1", "mkdocs-material": "9.8.2"}
"""The exact releases this adapter was checked against (``pyproject.toml`` pins the same)."""

PLOTLY_API = ("newPlot", "relayout", "addTraces", "purge", "downloadImage", "Plots.resize")
"""The plotly.js functions the charts call (its documented function reference)."""

SEARCH_PRIORITY = 0
"""The priority of Material's search plugin's ``on_page_context`` (MkDocs' default)."""
AFTER_OTHERS = -100
"""The hooks' priority: after every plugin's handler of the same event, search's included."""

MATERIAL_SCRIPTS = ("{% block scripts %}<script src=\"{{ 'BUNDLE' | url }}\"></script>"
                    "{% for script in config.extra_javascript %}{{ script | script_tag }}"
                    "{% endfor %}{% endblock %}")
"""Material's scripts block as main.html writes it again (``BUNDLE``: the path, which changes)."""

SEARCH_MESSAGES = {"setup": {"type": 0}, "ready": {"type": 1}, "query": {"type": 2},
                   "result": {"type": 3}}
"""Material's search-worker messages, each by the fields that tell it apart (rule 5)."""
SEARCH_DATA = "data"
"""The field of a search-worker message that holds its content (the query's text)."""


def profile() -> Any:
    """``PROFILE`` as the package's ``ThemeProfile`` (what ``read_theme_adapter`` reads)."""
    from tinkernomics.site.build import ThemeProfile

    return ThemeProfile.from_data(PROFILE)


def search_shape() -> str:
    """What ``search-terms.js`` needs to know of the query message, as JSON for the page's
    ``<meta name="tn-theme-search">``: the fields that mark it, the field holding the text."""
    return json.dumps({"query": SEARCH_MESSAGES["query"], "data": SEARCH_DATA},
                      separators=(",", ":"), sort_keys=True)


class ThemeChanged(Exception):
    """The theme no longer looks as this adapter expects (the message says what to re-check)."""


def _shape(block: nodes.Block) -> list[str]:
    """Every node of a block by type and name or value, spaces collapsed, a path as BUNDLE."""
    shape = []
    for node in block.find_all(nodes.Node):
        value = getattr(node, "data", None) or getattr(node, "value", None) or getattr(
            node, "name", None) or getattr(node, "attr", None)
        if isinstance(node, nodes.TemplateData):
            value = " ".join(str(value).split())
        elif isinstance(node, nodes.Const) and str(value).endswith(".js"):
            value = "BUNDLE"
        if value != "" and not isinstance(node, nodes.Output):  # Output: a mere container
            shape.append(f"{type(node).__name__}:{value}")
    return shape


def _scripts_block(env: Any, source: str) -> nodes.Block | None:
    blocks = [b for b in env.parse(source).find_all(nodes.Block) if b.name == "scripts"]
    return blocks[0] if len(blocks) == 1 else None


def theme_bundle(env: Any) -> str:
    """The path of the theme's script bundle, from its ``base.html`` scripts block, which must
    be Material's (``MATERIAL_SCRIPTS``) but for that path: main.html writes the block again,
    deferred, and anything more in it would be lost without a word (``ThemeChanged``)."""
    block = _scripts_block(env, env.loader.get_source(env, "base.html")[0])
    material = _scripts_block(env, MATERIAL_SCRIPTS)
    if block is not None and material is not None and _shape(block) == _shape(material):
        return str(next(c.value for c in block.find_all(nodes.Const)
                        if str(c.value).endswith(".js")))
    raise ThemeChanged(
        "the theme's scripts block (base.html) is no longer its bundle's <script> and the "
        "extra_javascript loop: compare it with the scripts block of site_overrides/main.html, "
        "which writes it again to defer the bundle, then update both and MATERIAL_SCRIPTS in "
        "macros/theme.py (its upgrade checklist)")


def render_without_markdown(page: Any, convert: Callable[[str], Any]) -> None:
    """Give this page object a ``render`` (rule 4) that builds its HTML, table of contents and
    title with ``convert(markdown)`` (an object with ``html``, ``toc_tokens``, ``title`` and
    ``anchor_ids``), or, when that returns None, with MkDocs' own ``Page.render``."""
    page.render = functools.partial(_render_converted, page, convert)


def _render_converted(page: Any, convert: Callable[[str], Any], config: Any, files: Any) -> None:
    from mkdocs.structure.pages import Page

    raw = convert(page.markdown)
    if raw is None:
        return Page.render(page, config, files)
    render_finished(page, raw.html, raw.toc_tokens, raw.title, raw.anchor_ids)
    return None


def render_finished(page: Any, html: str, toc_tokens: list[Any], title: str | None,
                    anchor_ids: set[str]) -> None:
    """Set on ``page`` what MkDocs' ``Page.render`` sets (rule 4), for HTML made without
    Markdown: its headings' permalinks are the only links it holds, so no link to an anchor
    is recorded (MkDocs records them only when it logs at DEBUG level)."""
    import logging

    from mkdocs.structure.toc import get_toc

    page.content = html
    page.toc = get_toc(toc_tokens)  # Python-Markdown's toc token shape
    page._title_from_render = title
    page.present_anchor_ids = anchor_ids
    if logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:
        page.links_to_anchors = {}


def search_parser() -> type:
    """Material's search plugin's HTML parser (the tests watch what it is fed)."""
    from material.plugins.search import plugin as material_search

    return material_search.Parser


def search_sections(html: str) -> list[tuple[str | None, str, str]]:
    """The sections Material's search plugin keeps from ``html``: (id, title, text)."""
    parser = search_parser()()
    parser.feed(html)
    parser.close()
    return [(s.id, "".join(s.title), "".join(s.text)) for s in parser.data if not s.is_excluded()]


def void_elements() -> set[str]:
    """The elements Material's search parser treats as void (never closed)."""
    from material.plugins.search import plugin as material_search

    return set(material_search.void)


def templates() -> Path:
    """The installed Material's templates folder (its ``base.html``, partials and assets)."""
    import material

    return Path(material.__file__).resolve().parent / "templates"


def build_in_process(config_file: Path) -> None:
    """``mkdocs build`` of ``config_file`` in this process (a test watching the plugins)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(config_file)))


NAV_PARTIAL = "partials/nav.html"
"""Rule 9: Material's navigation partial, included by ``base.html``'s ``site_nav`` block."""
_THEMES_OWN = "tn-theme-own/"  # the wrapper includes the theme's own partial under this prefix
_NAV_WRAPPER = ("{%- call tn_nav_once(page, nav) -%}{% include '" + _THEMES_OWN + NAV_PARTIAL
                + "' %}{%- endcall -%}")


def share_nav(env: Any) -> None:
    """Rule 9: render the navigation once per build for all the pages it comes out the same for
    (``nav_key``), instead of once per page; ``env`` is this build's (``on_env``)."""
    import jinja2
    rendered: dict[tuple[Any, ...], str] = {}

    def nav_once(page: Any, nav: Any, caller: Callable[[], str]) -> str:
        key = nav_key(page, nav)
        if key is None:
            return caller()
        if key not in rendered:
            rendered[key] = caller()
        return rendered[key]

    own = env.loader
    env.globals["tn_nav_once"] = nav_once
    env.loader = jinja2.FunctionLoader(lambda name: (_NAV_WRAPPER, None, lambda: True)
                                       if name == NAV_PARTIAL else
                                       own.get_source(env, name.removeprefix(_THEMES_OWN)))


def render_pages(config_file: Path, shared_nav: bool,
                 rendered: list[str] | None = None) -> tuple[dict[str, str], set[str]]:
    """A test of rule 9: every page of ``config_file``'s small site through the theme's
    ``main.html`` as the build renders it (with ``share_nav`` or without), and the pages
    ``nav_key`` shares; ``rendered`` collects the pages Material's nav partial ran for."""
    from mkdocs.commands.build import get_context
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.structure.nav import get_navigation
    from mkdocs.utils import get_relative_url

    config = load_config(str(config_file))
    files = get_files(config)
    nav, env, pages = get_navigation(files, config), config.theme.get_env(), {}
    if shared_nav:
        share_nav(env)
        once: Any = env.globals["tn_nav_once"]

        def counted(page: Any, nav: Any, caller: Callable[[], str]) -> str:
            def render() -> str:
                (rendered if rendered is not None else []).append(page.file.src_uri)
                return caller()
            return once(page, nav, render)
        env.globals["tn_nav_once"] = counted
    for file in files.documentation_pages():
        page: Any = file.page
        page.read_source(config)
        page.render(config, files)
        page.active = True
        context = get_context(nav, files, config, page, get_relative_url(".", page.url))
        pages[file.src_uri] = env.get_template("main.html").render(context)
        page.active = False
    shared = {f.src_uri for f in files.documentation_pages() if nav_key(f.page, nav) is not None}
    return pages, shared


def nav_key(page: Any, nav: Any) -> tuple[Any, ...] | None:
    """What Material's navigation reads of ``page`` (rule 9), or None for a page the nav holds
    or marks (its own rendering): every nav link made relative to the page, and which items
    are active."""
    from mkdocs.utils import get_relative_url

    items, i = list(nav.items) if nav is not None else [], 0
    while i < len(items):  # every item, sections' children too
        items.extend(getattr(items[i], "children", None) or [])
        i += 1
    if page is None or nav is None or page in nav.pages or any(x.active for x in items):
        return None
    urls = [getattr(item, "url", None) for item in items]
    return tuple(get_relative_url(u, page.url) if u else u for u in urls)
