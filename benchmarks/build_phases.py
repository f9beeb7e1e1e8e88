"""Benchmark tool: one ``mkdocs build --strict`` of a project, broken into its phases, in wall
and CPU seconds (issue 47: where a rebuild's time goes, beside ``bench_scale.py``'s totals).

Wraps, for this process only, the functions each phase runs in -- MkDocs' own steps (config,
cleaning the site folder, reading and building pages), mkdocs-macros' page rendering, Material's
search plugin, each site feature's ``write_outputs`` and the post-build passes -- with a timer,
then builds as ``make build`` does. Timers nest (a page's macros run inside "populate pages"),
so the indented rows are parts of the row below them. CPU seconds are this process's (user +
system); on a shared machine wall time also measures the neighbours, so decide by CPU.

Usage, in a project folder (``bench_scale.py --keep DIR`` keeps one at 1,000 algorithms)::

    .venv/bin/python benchmarks/build_phases.py [--profile OUT] [--macros]

``--profile OUT`` also writes a cProfile (CPU-time clock) of the build, ``--macros`` times each
page macro by name. A one-shot build renders most algorithm pages' macros in a forked child
(``tinkernomics/site/pagesahead.py``), which neither the timers nor the profile see: with
``TINKERNOMICS_OUTPUTS_FORK=0`` every page and output is built, and timed, in this process.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import os
import resource
import time
from collections.abc import Callable
from typing import Any

TIMES: dict[str, list[float]] = {}
"""Phase label -> [wall seconds, CPU seconds, calls], in the order phases first ended."""


def timer(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            row = TIMES.setdefault(label, [0.0, 0.0, 0])
            row[0] += time.perf_counter() - wall
            row[1] += time.process_time() - cpu
            row[2] += 1
    return timed


def wrap(owner: Any, name: str, label: str) -> None:
    setattr(owner, name, timer(label, getattr(owner, name)))


def wrap_mkdocs() -> None:
    import mkdocs.commands.build as build
    import mkdocs.utils as utils
    from material.plugins.search.plugin import SearchPlugin
    from mkdocs.structure.pages import Page
    from mkdocs_macros.plugin import MacrosPlugin

    wrap(build, "build", "TOTAL mkdocs build()")
    wrap(MacrosPlugin, "on_config", "config: macros define_env (catalog load, macros)")
    wrap(MacrosPlugin, "on_pre_build", "pre_build: mkdocs-macros")
    wrap(utils, "clean_directory", "clean the site folder (MkDocs)")
    wrap(MacrosPlugin, "on_page_markdown", "  populate: page macros (mkdocs-macros)")
    wrap(Page, "render", "  populate: Markdown (Page.render, pages other than algorithms)")
    wrap(build, "_populate_page", "populate pages (read, macros, Markdown, content hooks)")
    wrap(SearchPlugin, "on_page_context", "  build: search plugin indexing a page")
    wrap(utils, "write_file", "  build: write a page")
    wrap(build, "_build_page", "build pages (theme templates, search, write)")
    wrap(SearchPlugin, "on_post_build", "  post_build: search index written")
    wrap(MacrosPlugin, "on_post_build", "post_build: every feature's write_outputs")


def wrap_features(per_macro: bool) -> None:
    from tinkernomics.catalog import loader
    from tinkernomics.site import build as sitebuild
    from tinkernomics.site.postbuild import csp, finish, previews

    wrap(loader, "load_catalog", "  config: load_catalog")
    for name in sitebuild.FEATURES:
        module = importlib.import_module(name)
        if hasattr(module, "write_outputs"):
            wrap(module, "write_outputs", f"  outputs: {name.split('.')[2]}")
    wrap(previews, "link_first_uses", "    postbuild: glossary links")
    wrap(previews, "strip_theme_indentation", "    postbuild: theme indentation")
    wrap(previews, "preview", "    postbuild: preview tags")
    wrap(csp, "with_policy", "    postbuild: content security policy")
    wrap(finish, "fill_page", "    postbuild: build date")
    if per_macro:
        every = sitebuild.all_macros
        sitebuild.all_macros = lambda ctx: {
            k: timer(f"    macro {k}", v) for k, v in every(ctx).items()}


def report() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{'phase':<70}{'wall s':>8}{'CPU s':>8}{'calls':>7}")
    for label, (wall, cpu, calls) in TIMES.items():
        print(f"{label:<70}{wall:8.2f}{cpu:8.2f}{int(calls):7d}")
    print(f"process CPU {usage.ru_utime + usage.ru_stime:.1f} s (user + system); "
          f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", help="also write a cProfile (CPU clock) here")
    parser.add_argument("--macros", action="store_true", help="time each page macro")
    args = parser.parse_args()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    wrap_mkdocs()
    wrap_features(args.macros)
    from mkdocs.__main__ import cli

    profile = cProfile.Profile(time.process_time) if args.profile else None
    if profile:
        profile.enable()
    try:
        cli(["build", "--strict", "--quiet"], standalone_mode=False)
    finally:
        if profile:
            profile.disable()
            profile.dump_stats(args.profile)
        report()


if __name__ == "__main__":
    main()
