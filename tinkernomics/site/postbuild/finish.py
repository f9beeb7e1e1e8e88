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

import os
from pathlib import Path

from tinkernomics.site.freshness.feature import BuildDates, fill_page
from tinkernomics.site.postbuild.csp import SERVE_ENV, PolicyReport, with_policy
from tinkernomics.site.postbuild.knownscripts import KnownScripts
from tinkernomics.site.postbuild.previews import page_url, site_base, tag_page


def finish_pages(site_dir: Path, site_url: str, dates: BuildDates,
                 known: KnownScripts) -> PolicyReport:
    """Date, previews and policy for every HTML file under ``site_dir``, each read and
    written once; the policy pass's report of what it disarmed."""
    serving = bool(os.environ.get(SERVE_ENV))
    base = site_base(site_url)
    report = PolicyReport()
    for path in sorted(site_dir.rglob("*.html")):
        original = path.read_text(encoding="utf-8")
        page = tag_page(fill_page(original, dates), page_url(site_dir, path), base)
        result = with_policy(page, known, serving=serving)
        rel = path.relative_to(site_dir).as_posix()
        if result.blocked:
            report.blocked[rel] = result.blocked
        if result.renamed:
            report.renamed[rel] = result.renamed
        if result.text != original:
            path.write_text(result.text, encoding="utf-8")
            report.changed += 1
    return report
