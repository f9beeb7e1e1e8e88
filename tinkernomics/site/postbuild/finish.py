"""The one pass over every finished HTML file (pipeline step 6, the last feature's outputs).

Each HTML file the build wrote (MkDocs' pages, the features' embed pages and fragments) is
passed through every page-level transform in order, and written once, only if it changed:

1. the build date into ``main.html``'s placeholder (``freshness.feature.fill_page``);
2. link-preview tags and the theme's indentation out (``previews.tag_page``);
3. the Content-Security-Policy, last, so that it covers everything the page ends up holding
   (``csp.with_policy``).

Each transform reads only the page it is given, so one pass gives the same bytes as one walk
of the site per transform did. Under MkDocs the pages MkDocs renders never wait for the pass:
the hooks (``macros/mkdocs_hooks.py``, ``on_post_page``, last of every plugin) hand each page's
HTML to ``finish_rendered`` before MkDocs writes it, with the build's ``PagePass``, and the
pass then skips the files so finished (``FINISHED``: a page is written once, not written, read
back and written again). A feature that writes pages does the same (``site_pass``: the charts'
embed pages, issue 47). What is left -- fragments, MkDocs' 404 page, and every page under
Zensical, which runs no hooks -- is read and finished here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tinkernomics.site.build import SiteContext
from tinkernomics.site.freshness.feature import BuildDates, fill_page, of_build
from tinkernomics.site.postbuild import csp
from tinkernomics.site.postbuild.knownscripts import KnownScripts, known_scripts
from tinkernomics.site.postbuild.previews import page_url, site_base, tag_page

FINISHED: dict[str, csp.PageResult] = {}
"""Files the hooks finished before MkDocs wrote them (absolute path -> what the policy found,
without the text), for this build's pass to skip; the hooks empty it when a build starts."""


@dataclass(frozen=True)
class PagePass:
    """The transforms of one build, for one page at a time."""

    base: str
    """The site URL ending in ``/`` (or empty)."""
    dates: BuildDates
    known: KnownScripts
    serving: bool = False

    @classmethod
    def of(cls, site_url: str, dates: BuildDates, known: KnownScripts) -> PagePass:
        return cls(site_base(site_url), dates, known, bool(os.environ.get(csp.SERVE_ENV)))

    def tagged(self, original: str, rel_url: str) -> str:
        """``original`` dated and given its link-preview tags (``rel_url``: its site path)."""
        return tag_page(fill_page(original, self.dates), rel_url, self.base)

    def run(self, original: str, rel_url: str) -> csp.PageResult:
        """``original`` dated, tagged and given its policy (``rel_url``: its site path)."""
        return csp.with_policy(self.tagged(original, rel_url), self.known, serving=self.serving)


def site_pass(ctx: SiteContext) -> PagePass:
    """The pass of this build of ``ctx``'s site, for a feature's pages (``finish_rendered``
    before it writes them): the post-build pass's dates and scripts."""
    return PagePass.of(ctx.site_url, of_build(ctx.root).dates, known_scripts(ctx.root, ctx.theme))


def finish_rendered(output: str, dest_uri: str, site_dir: str, page_pass: PagePass) -> str:
    """A page MkDocs is about to write to ``site_dir``/``dest_uri``, finished; the pass will
    skip the file (``FINISHED``)."""
    rel_url = dest_uri[: -len("index.html")] if dest_uri.endswith("index.html") else dest_uri
    result = page_pass.run(output, rel_url)
    FINISHED[os.path.normpath(os.path.join(site_dir, dest_uri))] = csp.PageResult(
        "", result.blocked, result.renamed)
    return result.text


def finish_pages(site_dir: Path, site_url: str, dates: BuildDates,
                 known: KnownScripts) -> csp.PolicyReport:
    """Date, previews and policy for every HTML file under ``site_dir`` the hooks have not
    finished, each read and written once; the policy pass's report of what it disarmed, the
    hooks' pages included."""
    page_pass = PagePass.of(site_url, dates, known)

    def transform(original: str, path: Path) -> str:
        return page_pass.tagged(original, page_url(site_dir, path))

    done = {path: FINISHED.pop(path) for path in list(FINISHED)
            if Path(path).is_relative_to(site_dir)}
    return csp.add_policies(site_dir, known, before=transform, finished=done)
