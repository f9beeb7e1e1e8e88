"""The one pass over every finished HTML file (pipeline step 6, the last feature's outputs).

Each HTML file the build wrote (MkDocs' pages, the features' embed pages and fragments) is read
once, passed through every page-level transform in order, and written once, only if it changed:

1. the build date into ``main.html``'s placeholder (``freshness.feature.fill_page``);
2. link-preview tags and the theme's indentation out (``previews.tag_page``);
3. the Content-Security-Policy, last, so that it covers everything the page ends up holding
   (``csp.with_policy``).

Each transform reads only the page it is given, so one pass gives the same bytes as one walk
of the site per transform did (three reads and up to three writes of every page before).
"""

from __future__ import annotations

from pathlib import Path

from tinkernomics.site.freshness.feature import BuildDates, fill_page
from tinkernomics.site.postbuild.csp import PolicyReport, add_policies
from tinkernomics.site.postbuild.knownscripts import KnownScripts
from tinkernomics.site.postbuild.previews import page_url, site_base, tag_page


def finish_pages(site_dir: Path, site_url: str, dates: BuildDates,
                 known: KnownScripts) -> PolicyReport:
    """Date, previews and policy for every HTML file under ``site_dir``, each read and
    written once; the policy pass's report of what it disarmed."""
    base = site_base(site_url)

    def transform(original: str, path: Path) -> str:
        return tag_page(fill_page(original, dates), page_url(site_dir, path), base)

    return add_policies(site_dir, known, before=transform)
