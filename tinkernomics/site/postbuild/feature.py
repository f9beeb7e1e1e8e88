"""Site-wide passes after every other feature has written its files (last in ``FEATURES``).

The site's one stylesheet (``stylesheets``); the theme's source maps and unused search
languages dropped (``themefiles``); then one pass over every HTML file (``finish``), each read
and written once: the build date (``freshness``), link-preview tags with the theme's
indentation taken out (``previews``, ``whitespace``) and last a Content-Security-Policy
(``csp``), which hashes only the inline scripts the templates write (``knownscripts``) and
disarms ``http-equiv``/``srcdoc`` attributes; what it disarmed (nothing, on a sound build) is
printed as a warning, one line a file.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinkernomics.site.freshness.feature import new_build, of_build
from tinkernomics.site.postbuild.finish import finish_pages
from tinkernomics.site.postbuild.knownscripts import known_scripts
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
    write_bundle(site_dir)
    drop_unused_theme_files(site_dir, ctx.theme)
    dates = of_build(ctx.root).dates
    report = finish_pages(site_dir, ctx.site_url, dates, known_scripts(ctx.root, ctx.theme))
    new_build()  # the build's last step: its dates are not the next one's
    for line in report.warnings():
        log.warning("content security: %s", line)
