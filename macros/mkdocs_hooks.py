"""MkDocs hooks (mkdocs.yml ``hooks:``): the search plugin parses only what it indexes, and
``mkdocs serve`` draws no chart PNGs.

Thin, like the macros adapter beside it: the work is ``tinkernomics.site.pages.searchcut``,
given the search plugin's rules from the theme adapter (``theme.profile()``).
When a page's HTML is ready (``on_page_content``, after every other plugin's), the parts the
search index ignores are taken out; Material's search plugin indexes the rest in its
``on_page_context`` (default priority, 0), and after it, before the theme renders the page, the
parts go back, less the exclusion marks (``restore_unmarked``: read by nothing once the index
is built).
The search index is what it would be without these hooks, and the page too but for the marks;
only the parsing of the excluded HTML is saved. Zensical has its own search over the finished
HTML and does not run MkDocs hooks: its pages keep the marks.

Algorithm pages skip Python-Markdown: ``on_page_markdown`` gives each one a ``render`` that
builds its HTML, table of contents and title with ``tinkernomics.site.pages.rawhtml.convert``
(headings around finished HTML blocks, byte for byte what Markdown makes of them), and falls
back to MkDocs' own ``Page.render`` for any text outside that shape.

Material's scripts block is written again by ``site_overrides/main.html`` to defer the theme's
bundle; ``on_env`` gives it the bundle's path, read from the theme's ``base.html``, and fails the
build if that block ever holds more than the bundle and the ``extra_javascript`` loop. It also
gives main.html the search worker's query-message shape (``theme.search_shape``), which the page
carries for ``search-terms.js``, and the search dialog's markup that the header labels
(``theme.SEARCH_DIALOG``, ``site_overrides/partials/tn-header.html``), which it renders once
for all the pages of a folder (``theme_header.py``, beside ``theme.py``: rule 10). The theme's
icons become empty ``<svg>`` elements the stylesheet paints (``theme_icons.py``, rule 11):
``on_post_build``, before the outputs step, writes their rules (``theme_icons.STYLESHEET``),
which that step joins into ``site.css``.

What these hooks rely on in MkDocs and Material (hook priorities, the search plugin, the scripts
block) is named in the theme adapter, ``theme.py`` beside this file: its version pins and
upgrade checklist.

Each page MkDocs renders is finished before MkDocs writes it (``on_post_page``, after every
other plugin's): build date, link-preview tags and glossary links, theme indentation out and
Content-Security-Policy, the transforms of the post-build pass
(``tinkernomics.site.postbuild.finish``), which then skips those files, so each page is written
once instead of written, read back and written again. ``on_pre_build`` starts a build's pass
afresh (dates, site URL, the scripts the policy allows: ``_page_pass``).

A one-shot ``mkdocs build`` writes the outputs that need no page (embeds, images, the API) in
a child forked at ``on_env``, beside the pages' templates (``tinkernomics.site.outputjob``:
``on_startup`` decides, ``on_build_error`` stops the child); the macros adapter waits for it.

Chart PNGs serve link previews and image-only hosts, not a local preview: under ``mkdocs serve``
(``on_startup``'s command) the charts feature writes every other file and no PNG
(``$TINKERNOMICS_CHART_IMAGES``, unless set already: ``=1`` draws them while serving too).
The same command sets ``$TINKERNOMICS_SERVE``: the pages' Content-Security-Policy then allows
inline scripts, for the live-reload script MkDocs writes into every response
(``site/postbuild/csp.py``).

A one-shot ``mkdocs build`` (``on_startup``'s command again) scans only the garbage collector's
youngest generation until the process ends (``site.build.OneShotCollector``): the older ones
hold the build's pages and search index, which live to its end.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from tinkernomics.site.build import OneShotCollector
from tinkernomics.site.charts.feature import CHART_IMAGES_ENV
from tinkernomics.site.freshness.feature import new_build, of_build
from tinkernomics.site.outputjob import JOB
from tinkernomics.site.pages import rawhtml
from tinkernomics.site.pages.searchcut import cut, restore_unmarked
from tinkernomics.site.pagesahead import AHEAD
from tinkernomics.site.postbuild import finish
from tinkernomics.site.postbuild.csp import SERVE_ENV
from tinkernomics.site.postbuild.knownscripts import known_scripts


def _load_theme(file: str = "theme.py", name: str = "tinkernomics_theme_adapter"):
    """The theme adapter beside this file (``macros/theme.py``; ``theme_header.py``, its rule
    10), loaded by path as MkDocs loads this module (the project root need not be importable)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load the theme adapter beside {__file__}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


theme = _load_theme()
theme_header = _load_theme("theme_header.py", "macros.theme_header")
theme_icons = _load_theme("theme_icons.py", "macros.theme_icons")
THEME = theme.profile()
"""The theme's facts (the search plugin's rules for the cut)."""

_CUT: dict[str, list[str]] = {}
"""The parts cut from each page (by source path), held between the two hooks."""


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.startswith(ALGORITHM_PAGES) and page.file.src_uri != ALGORITHMS_INDEX:
        theme.render_without_markdown(page, rawhtml.convert)  # this page object only (rule 4)
    return markdown


ALGORITHM_PAGES = "algorithms/"
ALGORITHMS_INDEX = "algorithms/index.md"


@event_priority(theme.AFTER_OTHERS)
def on_page_content(html, page, config, files):
    kept, _CUT[page.file.src_uri] = cut(html, THEME)
    return kept


@event_priority(theme.AFTER_OTHERS)  # after the search plugin (theme.SEARCH_PRIORITY)
def on_page_context(context, page, config, nav):
    page.content = restore_unmarked(page.content, _CUT.pop(page.file.src_uri, []), THEME)
    return context


_PASS: list[finish.PagePass] = []
"""This build's page pass, made at its first page (empty between builds)."""


def on_build_error(error):
    JOB.stop()
    AHEAD.finish()


@event_priority(theme.AFTER_OTHERS)
def on_nav(nav, config, files):
    """Every hook before the pages has run: a forked child starts on the algorithm pages from
    the last (``tinkernomics.site.pagesahead``), in the order MkDocs fills them."""
    AHEAD.start([uri[len(ALGORITHM_PAGES):-len(".md")] for uri in
                 (f.src_uri for f in files.documentation_pages())
                 if uri.startswith(ALGORITHM_PAGES) and uri.endswith(".md")
                 and uri != ALGORITHMS_INDEX and uri.count("/") == 1])
    return nav


def on_pre_build(config):
    _COLLECTOR.build_starts()
    _PASS.clear()
    finish.FINISHED.clear()
    new_build()


@event_priority(theme.AFTER_OTHERS)  # last: the policy covers what every plugin wrote
def on_post_page(output, page, config):
    return finish.finish_rendered(output, page.file.dest_uri, config.site_dir, _page_pass(config))


def _page_pass(config) -> finish.PagePass:
    if not _PASS:
        root = Path(config.config_file_path).parent
        _PASS.append(finish.PagePass.of(config.site_url or "",
                                        of_build(root).dates,
                                        known_scripts(root, THEME)))
    return _PASS[0]


_COLLECTOR = OneShotCollector()
"""The garbage collector's thresholds for a one-shot build (``site.build.OneShotCollector``)."""


def on_startup(command, dirty):
    _COLLECTOR.begin(command)
    JOB.enable(command)
    if command == "serve":
        os.environ.setdefault(CHART_IMAGES_ENV, "0")
        os.environ[SERVE_ENV] = "1"  # the page policy allows the live-reload script


def on_env(env, config, files):
    AHEAD.finish()  # its child is done or stopped before the outputs step forks
    JOB.start(Path(config.site_dir))  # the pages' Markdown is done; their templates are not
    env.globals["tn_theme_bundle"] = theme_bundle(env)
    env.globals["tn_theme_search"] = theme.search_shape()  # theme.py rule 5 (search-terms.js)
    env.globals["tn_theme_dialog"] = theme.SEARCH_DIALOG  # rule 7 (partials/tn-header.html)
    theme.share_nav(env)  # rule 9: one rendering of the nav for the pages outside it
    theme_header.share_header(env)  # rule 10: one rendering of the header for a folder's pages
    _ICONS[:] = [theme_icons.share_icons(env)]  # rule 11: the theme's icons painted by CSS
    return env


_ICONS: list = []
"""This build's icons (``theme_icons.Icons``), set by ``on_env``."""


@event_priority(-theme.AFTER_OTHERS)  # before the outputs step (mkdocs-macros) joins site.css
def on_post_build(config):
    if _ICONS:
        path = Path(config.site_dir) / theme_icons.STYLESHEET
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_ICONS[0].stylesheet(), encoding="utf-8")


def theme_bundle(env) -> str:
    """The theme's script bundle path (``theme.theme_bundle``); a changed theme fails the
    build with the adapter's message."""
    try:
        return theme.theme_bundle(env)
    except theme.ThemeChanged as err:
        raise PluginError(str(err)) from None
