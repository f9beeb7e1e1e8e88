"""`tinkernomics outputs`: the site's files besides pages, for any generator (pipeline step 6).

A page generator writes the pages; this step writes everything else (chart embeds and
downloads, the JSON API, the self-hosted plotly.js) into the same site folder, through every
feature's ``write_outputs`` (``site.build.write_all_outputs``). MkDocs runs it from the macros
adapter's ``on_post_build``; Zensical has no such hook, so ``zensical build`` is followed by
this command (``make build-zensical`` does both in one process, ``macros.zensical_build``).
Both read the site URL and folder from ``mkdocs.yml`` the same way, so the two builds write the
same files.

The theme's facts (``site.build.ThemeProfile``) come from the theme adapter, ``macros/theme.py``
beside the config unless ``--theme-adapter`` names another: its ``PROFILE`` assignment is read
as plain data (``read_theme_adapter``: parsed, never imported or run), so the package knows the
theme only through what the adapter declares, under any generator.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.build import OutputError, ThemeProfile, shared_site, write_all_outputs

CONFIG_FILE = "mkdocs.yml"
THEME_ADAPTER = Path("macros", "theme.py")
"""The theme adapter, relative to the config's folder."""
PROFILE_NAME = "PROFILE"
"""The adapter's assignment of the theme's facts, a literal of plain data."""


@dataclass(frozen=True)
class SiteConfig:
    """What the outputs step needs from the generator's config file."""

    root: Path
    site_dir: Path
    site_url: str
    theme_adapter: Path


class _ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml's dialect: ``!ENV`` is read; other tags (``!!python/name:...``) are ignored."""


def _env_tag(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """``!ENV NAME`` or ``!ENV [NAME, OTHER, default]`` as MkDocs and Zensical read it."""
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    elif isinstance(node, yaml.SequenceNode):
        *names, default = loader.construct_sequence(node)
        if not names:  # a one-item list names a variable, with no default
            names, default = [default], None
    else:
        raise yaml.constructor.ConstructorError(
            None, None, "!ENV takes a variable name or a list of them", node.start_mark)
    for name in names:
        if str(name) in os.environ:
            return os.environ[str(name)]
    return default


_ConfigLoader.add_constructor("!ENV", _env_tag)
_ConfigLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def read_config(config_file: Path, site_dir: Path | None = None,
                theme_adapter: Path | None = None) -> SiteConfig:
    """Site folder and URL as the generator sees them (``site_dir`` overrides the config's),
    and where the theme adapter is (``THEME_ADAPTER`` unless ``theme_adapter`` is given)."""
    data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}
    root = config_file.resolve().parent
    folder = site_dir if site_dir is not None else root / str(data.get("site_dir") or "site")
    return SiteConfig(root=root, site_dir=Path(folder), site_url=str(data.get("site_url") or ""),
                      theme_adapter=theme_adapter or root / THEME_ADAPTER)


@functools.lru_cache(maxsize=4)
def read_theme_adapter(path: Path) -> ThemeProfile:
    """The ``PROFILE = {...}`` literal of the theme adapter at ``path``, without running it
    (Zensical reloads the macros module for every page: read once). A missing file or
    assignment, or a value that is not plain data, is an ``OutputError`` naming the file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError) as err:
        raise OutputError(f"{path}: cannot read the theme adapter ({err}): pass "
                          "--theme-adapter FILE") from err
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == PROFILE_NAME for t in node.targets):
            try:
                return ThemeProfile.from_data(ast.literal_eval(node.value))
            except (ValueError, TypeError) as err:
                raise OutputError(f"{path}:{node.lineno}: {PROFILE_NAME}: {err}") from err
    raise OutputError(f"{path}: no {PROFILE_NAME} = {{...}} assignment (the theme's facts)")


def write_site_outputs(config: SiteConfig) -> None:
    """Load the catalog (once) and let every feature write its files into the site folder."""
    if not config.site_dir.is_dir():
        raise OutputError(f"{config.site_dir}: no built site here (build the pages first)")
    theme = read_theme_adapter(config.theme_adapter)
    ctx, _macros = shared_site(config.root, site_url=config.site_url, theme=theme)
    write_all_outputs(ctx, config.site_dir)


def cmd_outputs(args: argparse.Namespace) -> int:
    """Write the outputs; a catalog problem or a file that cannot be written is printed as the
    validator's lines or one line (path, what failed, what to do), exit 1, no traceback."""
    config = read_config(Path(args.config), Path(args.site_dir) if args.site_dir else None,
                         Path(args.theme_adapter) if args.theme_adapter else None)
    try:
        write_site_outputs(config)
    except (OutputError, CatalogError) as err:
        print(err, file=sys.stderr)
        return 1
    print(f"wrote embeds, API and vendor files into {config.site_dir}")
    return 0


def add_outputs_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("outputs", help="write embeds, the JSON API and plotly.js into a built "
                       "site (after `zensical build`; MkDocs does it itself)")
    p.add_argument("--config", default=CONFIG_FILE,
                   help="generator config giving site_url and site_dir (default: mkdocs.yml)")
    p.add_argument("--site-dir", default=None, help="built site folder (default: the config's)")
    p.add_argument("--theme-adapter", default=None,
                   help=f"theme adapter whose PROFILE names the theme's files and rules "
                        f"(default: {THEME_ADAPTER.as_posix()} beside the config)")
    p.set_defaults(func=cmd_outputs)
