"""mkdocs-macros adapter: load the catalog once, register the package's macros, write outputs.

Thin on purpose (see tinkernomics.site.build): no logic here, so the package survives a move
to another site generator. An invalid catalog fails the build with the validator's messages;
while serving, every page shows them instead (tinkernomics.site.contributing.devserver).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.build import SiteContext, all_macros, write_all_outputs
from tinkernomics.site.contributing.devserver import error_page_markdown, terminal_report

_CONTEXT_KEY = "tinkernomics_context"
_PROBLEMS_KEY = "tinkernomics_catalog_problems"


def _serving() -> bool:
    """`mkdocs serve` (or `zensical serve`): the only way to know is the command line."""
    return sys.argv[1:2] == ["serve"]


def define_env(env) -> None:
    try:
        ctx = SiteContext.load(Path(env.project_dir), site_url=env.conf.get("site_url") or "")
    except CatalogError as err:
        if not _serving():
            raise
        # Lesson: a failed rebuild makes `mkdocs serve` hold every request until a build
        # succeeds; so the build succeeds, and each page lists the problems instead.
        env.variables[_PROBLEMS_KEY] = err.problems
        # print, not log: a logged warning would abort the --strict build
        print(terminal_report(err.problems), file=sys.stderr, flush=True)
        return
    env.variables[_CONTEXT_KEY] = ctx
    for name, fn in all_macros(ctx).items():
        env.macro(fn, name)


def on_pre_page_macros(env) -> None:
    problems = env.variables.get(_PROBLEMS_KEY)
    if problems is not None:
        env.markdown = error_page_markdown(problems)


def on_post_build(env) -> None:
    ctx = env.variables.get(_CONTEXT_KEY)
    if ctx is None:  # serving an invalid catalog: pages list the problems, nothing else to write
        return
    write_all_outputs(ctx, Path(env.conf["site_dir"]))
