"""mkdocs-macros adapter: the package's macros for the pages, its outputs after them.

Thin on purpose (see tinkernomics.site.build): no logic here, so the package survives a move
to another site generator. Zensical runs this same module (it implements mkdocs-macros) but calls
``define_env`` once per page and never ``on_post_build``: ``shared_site`` loads the catalog once
per build either way, a Zensical build writes the outputs with ``tinkernomics outputs``
(``make build-zensical``), and under Zensical each macro's links are rewritten relative to the
page's source file (``tinkernomics.site.relink``). An invalid catalog fails the build with the
validator's messages.
"""

from __future__ import annotations

import functools
from pathlib import Path

from tinkernomics.site.build import shared_site, write_all_outputs
from tinkernomics.site.relink import for_source_file

_CONTEXT_KEY = "tinkernomics_context"


def _under_zensical(env) -> bool:
    return type(env).__module__.startswith("zensical")


def _relinked(fn, page):
    @functools.wraps(fn)
    def macro(*args, **kwargs):
        out = fn(*args, **kwargs)
        return for_source_file(out, page.url, page.path) if isinstance(out, str) else out
    return macro


def define_env(env) -> None:
    root = Path(env.project_dir)
    zensical = _under_zensical(env)
    # Zensical: env.conf is its config dict, one object per build, shared by every page.
    ctx, macros = shared_site(root, site_url=env.conf.get("site_url") or "",
                              build=env.conf if zensical else None)
    env.variables[_CONTEXT_KEY] = ctx
    page = env.page if zensical else None
    for name, fn in macros.items():
        env.macro(fn if page is None else _relinked(fn, page), name)


def on_post_build(env) -> None:
    """MkDocs only: the same step as `tinkernomics outputs`, with the context already loaded."""
    ctx = env.variables[_CONTEXT_KEY]
    write_all_outputs(ctx, Path(env.conf["site_dir"]))
