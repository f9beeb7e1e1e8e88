"""Zensical side of the adapter: the pages with Zensical, then the outputs, in one process.

``zensical build`` followed by ``tinkernomics outputs`` gives the same site but loads the catalog
twice (once per process); run here, the outputs reuse the context the pages' macros loaded
(``tinkernomics.site.build.shared_site``). ``make build-zensical`` runs
``python -m macros.zensical_build``.

``--clean`` (needed: Zensical's page cache does not know that a page's macros read catalog/)
deletes Zensical's cache folder, ``.cache/`` under the project root, whole, and the chart image
cache lives inside it by default (``.cache/images``). Unkept, every Zensical build rendered every
PNG again (at 1,000 synthetic algorithms about 1,000 images, some 150 CPU seconds, four times
the rest of the build) and left MkDocs' next build a cold cache. So the image cache is moved
aside (a rename) while Zensical builds and put back before the outputs are written.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import zensical

from tinkernomics.site.charts.feature import image_cache_folder
from tinkernomics.site.outputs import CONFIG_FILE, read_config, write_site_outputs

ZENSICAL_CACHE = ".cache"
"""Zensical's cache folder under the project root (fixed in 0.0.73): ``--clean`` deletes it."""


def _put_back(aside: Path, folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():  # written to meanwhile: keep both
        shutil.copytree(aside, folder, dirs_exist_ok=True)
        shutil.rmtree(aside)
    else:
        aside.rename(folder)


@contextmanager
def kept_from_clean(folder: Path, root: Path) -> Iterator[None]:
    """``folder`` survives a ``zensical build --clean`` of the project at ``root``: when it lies
    inside Zensical's cache folder it waits beside that folder during the build (a rename)
    and is put back afterwards, or by the next build if this one was killed."""
    cache = (root / ZENSICAL_CACHE).resolve()
    folder = folder.resolve()
    aside = cache.parent / f"{ZENSICAL_CACHE}-kept-{folder.name}"
    if aside.is_dir():  # left by a build that was killed
        _put_back(aside, folder)
    if not folder.is_dir() or not folder.is_relative_to(cache):
        yield
        return
    folder.rename(aside)
    try:
        yield
    finally:
        _put_back(aside, folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m macros.zensical_build",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("-f", "--config-file", default=CONFIG_FILE, help="default: mkdocs.yml")
    config = Path(parser.parse_args(argv).config_file).resolve()
    with kept_from_clean(image_cache_folder(config.parent), config.parent):
        zensical.build(str(config), {"clean": True, "strict": True})
    site = read_config(config)
    write_site_outputs(site)
    print(f"wrote embeds, API and vendor files into {site.site_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
