"""Site-wide passes after every other feature has written its files (last in ``FEATURES``).

In order: link-preview tags on every page, with the theme's indentation taken out in the same
read and write (``previews``, ``whitespace``); the site's one stylesheet (``stylesheets``); the
theme's source maps and unused search languages dropped (``themefiles``); last, a
Content-Security-Policy on every HTML file (``csp``), which hashes only the inline scripts the
templates write (``knownscripts``) and disarms ``http-equiv``/``srcdoc`` attributes; what it
disarmed (nothing, on a sound build) is printed as a warning, one line a file.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinkernomics.site.postbuild.csp import add_policies
from tinkernomics.site.postbuild.knownscripts import known_scripts
from tinkernomics.site.postbuild.previews import add_previews
from tinkernomics.site.postbuild.stylesheets import write_bundle
from tinkernomics.site.postbuild.themefiles import drop_unused_theme_files

if TYPE_CHECKING:
    from tinkernomics.site.build import SiteContext

log = logging.getLogger(__name__)


def macros(ctx: SiteContext) -> dict[str, Any]:
    """No macros: this feature only works on the finished site."""
    return {}


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """The passes over the finished site, in the order the module docstring gives."""
    add_previews(site_dir, ctx.site_url)
    write_bundle(site_dir)
    drop_unused_theme_files(site_dir)
    report = add_policies(site_dir, known_scripts(ctx.root))
    for line in report.warnings():
        log.warning("content security: %s", line)
