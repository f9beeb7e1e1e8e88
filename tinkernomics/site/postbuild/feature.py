"""Site-wide passes after every other feature has written its files (last in ``FEATURES``).

The Content-Security-Policy (``csp``) goes on every page, the embed pages the charts feature
writes after the pages included, so it must run after them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinkernomics.site.postbuild.csp import add_policies

if TYPE_CHECKING:
    from tinkernomics.site.build import SiteContext


def macros(ctx: SiteContext) -> dict[str, Any]:
    """No macros: this feature only works on the finished site."""
    return {}


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """Every page gets its Content-Security-Policy."""
    add_policies(site_dir)
