"""Material's source maps left out of the site (pipeline step 6, after the pages; site size).

Material ships a source map beside each of its minified bundles (1.3 MB, most of the theme's
assets): they only serve someone debugging Material itself in the browser's developer tools.
The outputs step deletes them and the ``sourceMappingURL`` comments that name them, so the
tools do not ask for a missing file.
"""

from __future__ import annotations

import re
from pathlib import Path

ASSETS = "assets"
_MAP_COMMENT = re.compile(
    r"\n?(?://# sourceMappingURL=\S+\.map|/\*# sourceMappingURL=\S+\.map\s*\*/)\s*$")


def drop_source_maps(site_dir: Path) -> int:
    """Delete every ``*.map`` under the site's assets and the comments pointing at them; return
    the bytes saved."""
    root = site_dir / ASSETS
    saved = 0
    for path in sorted(root.rglob("*.map")):
        saved += path.stat().st_size
        path.unlink()
    for path in sorted([*root.rglob("*.js"), *root.rglob("*.css")]):
        text = path.read_text(encoding="utf-8")
        cut = _MAP_COMMENT.sub("", text)
        if cut != text:
            path.write_text(cut + "\n", encoding="utf-8")
            saved += len(text) - len(cut) - 1
    return saved
