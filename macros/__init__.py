"""mkdocs-macros adapter: the package's macros for the pages, its outputs after them.

Thin on purpose (see tinkernomics.site.build): no logic here, so the package survives a move to
another site generator. Zensical runs this same module (it implements mkdocs-macros) but calls
``define_env`` once per page and never ``on_post_build``: ``shared_site`` loads the catalog once
per build either way, a Zensical build writes the outputs afterwards (``macros/zensical_build.py``
or ``tinkernomics outputs``), and under Zensical each macro's links are rewritten relative to the
page's source file (``tinkernomics.site.relink``). The theme's facts (``SiteContext.theme``) are
the theme adapter's ``PROFILE`` (``theme.py`` beside this file), read as data
(``tinkernomics.site.outputs.read_theme_adapter``) the same way ``tinkernomics outputs`` reads it.
An invalid catalog fails the build with the validator's messages; while serving, every page shows
them instead (tinkernomics.site.contributing.devserver).

An algorithm page's source is one stub, ``{{ algorithm_page("<id>") }}``: under MkDocs
``on_pre_page_macros`` calls the macro itself and marks the page ``render_macros: false``, so
mkdocs-macros does not compile the stub as a Jinja template per page (its output, like every
macro's, is never template source). Any other text, and every page under Zensical, renders as
usual.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.build import OutputError, shared_site, start_all_outputs, write_all_outputs
from tinkernomics.site.contributing.devserver import error_page_markdown, terminal_report
from tinkernomics.site.outputjob import JOB, PAGE_PASSES
from tinkernomics.site.outputs import read_theme_adapter
from tinkernomics.site.pagesahead import AHEAD
from tinkernomics.site.relink import for_source_file

THEME_ADAPTER = Path(__file__).with_name("theme.py")
"""The theme adapter, whose ``PROFILE`` the build receives."""
_CONTEXT_ATTR = "tinkernomics_context"
"""The build's ``SiteContext``, held on the plugin object for ``on_post_build`` (MkDocs only).
Not in ``env.variables``: mkdocs-macros serialises every variable to JSON for a debug line
before the build (``on_pre_build``, logged or not), and the catalog's text form cost about a
second at 1,000 algorithms (issue 47)."""
_PROBLEMS_KEY = "tinkernomics_catalog_problems"
_STUB_KEY = "tinkernomics_stub_page"
_ALGORITHM_STUB = re.compile(r'\{\{ algorithm_page\("([a-z0-9][a-z0-9_.-]*)"\) \}\}\s*')
"""An algorithm page's whole source (``tinkernomics.site.pages.feature.algorithm_stub``)."""


def _serving() -> bool:
    """`mkdocs serve` (or `zensical serve`): the only way to know is the command line."""
    return sys.argv[1:2] == ["serve"]


def _under_zensical(env) -> bool:
    return type(env).__module__.startswith("zensical")


def _relinked(fn, page):
    @functools.wraps(fn)
    def macro(*args, **kwargs):
        out = fn(*args, **kwargs)
        return for_source_file(out, page.url, page.path) if isinstance(out, str) else out
    return macro


def define_env(env) -> None:
    zensical = _under_zensical(env)
    if not zensical:
        setattr(env, _CONTEXT_ATTR, None)
        AHEAD.prepare(None)  # no child for this build unless its catalog loads
    try:
        # Zensical: env.conf is its config dict, one object per build, shared by every page.
        ctx, macros = shared_site(Path(env.project_dir), site_url=env.conf.get("site_url") or "",
                                  build=env.conf if zensical else None,
                                  theme=read_theme_adapter(THEME_ADAPTER))
    except CatalogError as err:
        if not _serving():
            if zensical:
                raise
            from mkdocs.exceptions import PluginError  # MkDocs prints it without a traceback

            raise PluginError(str(err)) from None
        # Lesson: a failed rebuild makes `mkdocs serve` hold every request until a build
        # succeeds; so the build succeeds, and each page lists the problems instead.
        env.variables[_PROBLEMS_KEY] = err.problems
        # print, not log: a logged warning would abort the --strict build
        print(terminal_report(err.problems), file=sys.stderr, flush=True)
        return
    if not zensical:  # MkDocs: once per build, before the pages (Zensical writes outputs after)
        setattr(env, _CONTEXT_ATTR, ctx)
        if not JOB.prepare(ctx):  # a one-shot build forks the outputs at on_env instead
            start_all_outputs(ctx)
        AHEAD.prepare(macros.get("algorithm_page"))  # forked at on_nav where JOB forks
    page = env.page if zensical else None
    for name, fn in macros.items():
        env.macro(fn if page is None else _relinked(fn, page), name)


def on_pre_page_macros(env) -> None:
    if env.variables.get(_PROBLEMS_KEY) is not None:
        env.markdown = ""  # the page's macros are not defined: nothing for Jinja to render
        return
    stub = _ALGORITHM_STUB.fullmatch(env.markdown)
    if stub is not None and not _under_zensical(env) and "algorithm_page" in env.macros:
        ahead = AHEAD.take(stub.group(1))  # the page a forked child rendered, if it has
        env.markdown = env.macros["algorithm_page"](stub.group(1)) if ahead is None else ahead
        env.page.meta["render_macros"] = False  # mkdocs-macros returns it as it is
        env.variables[_STUB_KEY] = env.page  # the flag goes again after (the theme reads meta)


def on_post_page_macros(env) -> None:
    """The error page goes in after mkdocs-macros rendered the page: the messages quote catalog
    text (keys and values), which must never be read as Jinja source."""
    if env.variables.pop(_STUB_KEY, None) is not None:
        env.page.meta.pop("render_macros", None)
    problems = env.variables.get(_PROBLEMS_KEY)
    if problems is not None:
        env.markdown = error_page_markdown(problems)


def on_post_build(env) -> None:
    """MkDocs only: the same step as `tinkernomics outputs`, with the context already loaded
    (a one-shot build's child wrote most of it beside the pages: ``site.outputjob``)."""
    ctx = getattr(env, _CONTEXT_ATTR, None)
    if ctx is None:  # serving an invalid catalog: pages list the problems, nothing else to write
        return
    try:
        if JOB.join():  # the outputs needing no page are written; the page passes are left
            write_all_outputs(ctx, Path(env.conf["site_dir"]), only=PAGE_PASSES)
        else:
            write_all_outputs(ctx, Path(env.conf["site_dir"]))
    except OutputError as err:  # a full or read-only site folder: MkDocs prints one line
        from mkdocs.exceptions import PluginError

        raise PluginError(str(err)) from None
