"""The theme's source maps out of the built site (pipeline step 6, after the pages).

Material copies its bundles' source maps (``assets/**/*.map``, 1.3 MB: the bundle's own is
1 MB) into every site. They serve only someone debugging Material's TypeScript in the browser's
developer tools, which fetch them only when open; no reader's page loads them, and Lighthouse's
source-map audit carries no weight. The pages feature's ``write_outputs`` deletes them, and the
``sourceMappingURL`` comment at the end of each bundle that names one (so the developer tools
do not report a missing file). Nothing else in a bundle changes.
"""

from __future__ import annotations

import re
from pathlib import Path

ASSETS_DIR = "assets"
"""Where the theme's bundles and their maps are copied."""
_BUNDLE_SUFFIXES = (".js", ".css")
_TAIL_BYTES = 1024
"""How much of a bundle's end is searched for its comment."""
_COMMENT = re.compile(
    rb"\n?(?://# sourceMappingURL=(?P<js>\S+)|/\*# sourceMappingURL=(?P<css>\S+?) ?\*/)\s*\Z")
"""A source-map comment at the end of a bundle (JavaScript or CSS form)."""


def _drop_comment(bundle: Path, maps: set[Path]) -> None:
    """Cut ``bundle``'s trailing source-map comment if it names one of ``maps`` (only the
    file's tail is read: plotly.js alone is 4.8 MB)."""
    with bundle.open("r+b") as file:
        size = file.seek(0, 2)
        file.seek(max(0, size - _TAIL_BYTES))
        tail = file.read()
        found = _COMMENT.search(tail)
        if found is None:
            return
        name = (found.group("js") or found.group("css")).decode("utf-8", "replace")
        if (bundle.parent / name).resolve() not in maps:
            return
        file.truncate(size - len(tail) + found.start())
        file.seek(0, 2)
        file.write(b"\n")


def drop_source_maps(site_dir: Path) -> int:
    """Delete ``assets/**/*.map`` under ``site_dir`` and the comments naming them; return the
    bytes removed from the site."""
    assets = site_dir / ASSETS_DIR
    if not assets.is_dir():
        return 0
    maps = {path.resolve() for path in assets.rglob("*.map") if path.is_file()}
    bundles = [p for p in assets.rglob("*")
               if p.suffix in _BUNDLE_SUFFIXES and p.is_file() and not p.is_symlink()]
    before = sum(p.stat().st_size for p in bundles)
    for bundle in bundles:
        _drop_comment(bundle, maps)
    removed = before - sum(p.stat().st_size for p in bundles)
    for path in maps:
        removed += path.stat().st_size
        path.unlink()
    return removed
