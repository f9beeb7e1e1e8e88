"""mkdocs-macros adapter: load the catalog once, register the package's macros, write outputs.

Thin on purpose (see tinkernomics.site.build): no logic here, so the package survives a move
to another site generator. An invalid catalog fails the build with the validator's messages.
"""

from __future__ import annotations

from pathlib import Path

from tinkernomics.site.build import SiteContext, all_macros, write_all_outputs

_CONTEXT_KEY = "tinkernomics_context"


def define_env(env) -> None:
    ctx = SiteContext.load(Path(env.project_dir), site_url=env.conf.get("site_url") or "")
    env.variables[_CONTEXT_KEY] = ctx
    for name, fn in all_macros(ctx).items():
        env.macro(fn, name)


def on_post_build(env) -> None:
    ctx = env.variables[_CONTEXT_KEY]
    write_all_outputs(ctx, Path(env.conf["site_dir"]))
