"""`tinkernomics outputs`: the site's files besides pages, for any generator (pipeline step 6).

A page generator writes the pages; this step writes everything else (chart embeds and
downloads, the JSON API, the self-hosted plotly.js) into the same site folder, through every
feature's ``write_outputs`` (``site.build.write_all_outputs``). MkDocs runs it from the macros
adapter's ``on_post_build``; Zensical has no such hook, so ``zensical build`` is followed by
this command (``make build-zensical`` does both in one process, ``macros.zensical_build``).
Both read the site URL and folder from ``mkdocs.yml`` the same way, so the two builds write the
same files.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.build import OutputError, shared_site, write_all_outputs

CONFIG_FILE = "mkdocs.yml"


@dataclass(frozen=True)
class SiteConfig:
    """What the outputs step needs from the generator's config file."""

    root: Path
    site_dir: Path
    site_url: str


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


def read_config(config_file: Path, site_dir: Path | None = None) -> SiteConfig:
    """Site folder and URL as the generator sees them (``site_dir`` overrides the config's)."""
    data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}
    root = config_file.resolve().parent
    folder = site_dir if site_dir is not None else root / str(data.get("site_dir") or "site")
    return SiteConfig(root=root, site_dir=Path(folder), site_url=str(data.get("site_url") or ""))


def write_site_outputs(config: SiteConfig) -> None:
    """Load the catalog (once) and let every feature write its files into the site folder."""
    if not config.site_dir.is_dir():
        raise OutputError(f"{config.site_dir}: no built site here (build the pages first)")
    ctx, _macros = shared_site(config.root, site_url=config.site_url)
    write_all_outputs(ctx, config.site_dir)


def cmd_outputs(args: argparse.Namespace) -> int:
    """Write the outputs; a catalog problem or a file that cannot be written is printed as the
    validator's lines or one line (path, what failed, what to do), exit 1, no traceback."""
    config = read_config(Path(args.config), Path(args.site_dir) if args.site_dir else None)
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
    p.set_defaults(func=cmd_outputs)
