"""mkdocs-macros adapter: the package's macros for the pages, its outputs after them.

Thin on purpose (see tinkernomics.site.build): no logic here, so the package survives a move
to another site generator. Zensical runs this same module (it implements mkdocs-macros) but calls
``define_env`` once per page and never ``on_post_build``: ``shared_site`` loads the catalog once
per build either way, and a Zensical build writes the outputs with ``tinkernomics outputs``
(``make build-zensical``). An invalid catalog fails the build with the validator's messages.
"""

from __future__ import annotations

from pathlib import Path

from tinkernomics.site.build import shared_site, write_all_outputs

_CONTEXT_KEY = "tinkernomics_context"


def define_env(env) -> None:
    root = Path(env.project_dir)
    ctx, macros = shared_site(root, site_url=env.conf.get("site_url") or "")
    env.variables[_CONTEXT_KEY] = ctx
    for name, fn in macros.items():
        env.macro(fn, name)


def on_post_build(env) -> None:
    """MkDocs only: the same step as `tinkernomics outputs`, with the context already loaded."""
    ctx = env.variables[_CONTEXT_KEY]
    write_all_outputs(ctx, Path(env.conf["site_dir"]))
