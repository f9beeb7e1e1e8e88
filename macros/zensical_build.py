"""Zensical side of the adapter: the pages with Zensical, then the outputs, in one process.

``zensical build`` followed by ``tinkernomics outputs`` gives the same site but loads the catalog
twice (once per process); run here, the outputs reuse the context the pages' macros loaded
(``tinkernomics.site.build.shared_site``). ``make build-zensical`` runs
``python -m macros.zensical_build``.

``--clean`` (needed: Zensical's page cache does not know that a page's macros read catalog/)
deletes Zensical's cache folder, ``.cache/`` under the project root, whole. The chart image cache
is not in it (``.image-cache/``, tinkernomics.site.charts.feature.IMAGE_CACHE_DIR), so a Zensical
build keeps the images MkDocs' builds drew and the other way round.
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
    site = read_config(config)
    write_site_outputs(site)
    print(f"wrote embeds, API and vendor files into {site.site_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
