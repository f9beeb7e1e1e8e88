"""Zensical side of the adapter: the pages with Zensical, then the outputs, in one process.

``zensical build`` followed by ``tinkernomics outputs`` gives the same site but loads the catalog
twice (once per process); run here, the outputs reuse the context the pages' macros loaded
(``tinkernomics.site.build.shared_site``). ``make build-zensical`` runs
``python -m macros.zensical_build``.

``--clean`` (needed: Zensical's page cache does not know that a page's macros read catalog/)
deletes Zensical's cache folder, ``.cache/`` under the project root, whole. The chart image cache
is not in it (``.image-cache/``, tinkernomics.site.charts.feature.IMAGE_CACHE_DIR), so a Zensical
build keeps the images MkDocs' builds drew and the other way round.

Material for MkDocs reaches end of life in May 2027 and names Zensical as its successor; the
site builds with both from the same ``mkdocs.yml``, ``docs/``, ``site_overrides/`` and macros
module (``tests/test_zensical.py`` compares the two builds: same URLs, links, API, embed and
vendor files; ``benchmarks/bench_zensical.py`` times both). Zensical is the optional extra
``zensical``, pinned to the release tested (0.0.73: later ones need a ``zensical-ui`` the
package index here lacks). Where they differ:

- Zensical calls ``define_env`` once per page and never ``on_post_build``: hence
  ``shared_site`` and the outputs step run here after the pages.
- Zensical resolves every relative link in raw HTML against the page's Markdown file
  (zensical#258/#571): the adapter passes macro output through ``site.relink.for_source_file``.
- Zensical caches pages by their Markdown, so builds use ``--clean`` and ``zensical serve``
  does not show catalog edits (use ``make serve``).
- Its theme output differs (``modern`` style, ``search.json``, no ``sitemap.xml.gz``;
  ``theme: variant: classic`` keeps Material's look); page text and URLs are the same.
- ``--strict`` fails on macro errors but not on MkDocs' link and nav validation: keep
  ``make build`` in CI until it does.
- Zensical refuses a search section over 131,072 token positions: lists that grow with the
  catalog carry ``data-search-exclude`` or are split into one section per entry.

Switching the published site: install the newest release in the extra, run
``make build-zensical`` and ``pytest -m zensical``, raise the pin; in the Pages workflow replace
``make build`` by ``make build-zensical`` (keep ``make build`` as a CI job); optionally move
``mkdocs.yml`` to ``zensical.toml``; then drop ``on_post_build``, the ``mkdocs*`` dependencies
and the MkDocs build in ``tests/conftest_site.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import zensical

from tinkernomics.site.outputs import CONFIG_FILE, read_config, write_site_outputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m macros.zensical_build",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("-f", "--config-file", default=CONFIG_FILE, help="default: mkdocs.yml")
    config = Path(parser.parse_args(argv).config_file).resolve()
    zensical.build(str(config), {"clean": True, "strict": True})
    site = read_config(config, theme_adapter=Path(__file__).with_name("theme.py"))
    write_site_outputs(site)
    print(f"wrote embeds, API and vendor files into {site.site_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
