"""Theme files that no page loads, out of the built site (pipeline step 6, after the pages).

Material copies its whole asset folder into every site; two parts of it are never fetched by a
reader's browser. The pages feature's ``write_outputs`` deletes them (``drop_unused_theme_files``):

- **Source maps** (``assets/**/*.map``, 1.3 MB: the bundle's own is 1 MB). They serve only
  someone debugging Material's TypeScript in the browser's developer tools, which fetch them only
  when open; Lighthouse's source-map audit carries no weight. The ``sourceMappingURL`` comment at
  the end of each bundle that names one goes too (so the developer tools do not report a missing
  file); nothing else in a bundle changes.
- **Search languages** (``assets/javascripts/lunr/``, 0.9 MB): lunr's stemmers for languages
  other than English, and the Japanese and Thai word splitters. Material's search worker imports
  them only for a language besides ``en`` in the search index's ``config.lang``, so they go only
  when that list is exactly ``["en"]`` (the site's ``theme.language``); any other language keeps
  the whole folder.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

ASSETS_DIR = "assets"
"""Where the theme's bundles and their maps are copied."""
LUNR_DIR = "assets/javascripts/lunr"
"""The search worker's language files."""
SEARCH_INDEX = "search/search_index.json"
"""Material's (MkDocs') search index; its ``config.lang`` lists the languages searched."""
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


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


_CONFIG_FIRST = '{"config":'
"""How MkDocs' search plugin starts its index: the config object before the pages' texts."""
_HEAD_CHARS = 65536


def index_languages(index: Path) -> Any:
    """``config.lang`` of the search index. Only the file's head is read when the config comes
    first, as MkDocs writes it: the pages' texts after it are megabytes at 1,000 algorithms
    (issue 47); any other layout is read whole."""
    with index.open(encoding="utf-8") as file:
        head = file.read(_HEAD_CHARS)
    if head.startswith(_CONFIG_FIRST):
        try:
            config, _ = json.JSONDecoder().raw_decode(head, len(_CONFIG_FIRST))
        except json.JSONDecodeError:
            pass  # a config longer than the head: read the whole file
        else:
            return config.get("lang") if isinstance(config, dict) else None
    data = json.loads(index.read_text(encoding="utf-8"))
    return data.get("config", {}).get("lang") if isinstance(data, dict) else None


def drop_unused_search_languages(site_dir: Path) -> int:
    """Delete the search worker's language files when the site searches English only; return
    the bytes removed."""
    index, lunr = site_dir / SEARCH_INDEX, site_dir / LUNR_DIR
    if not index.is_file() or not lunr.is_dir():
        return 0
    if index_languages(index) != ["en"]:
        return 0
    removed = _folder_size(lunr)
    shutil.rmtree(lunr)
    return removed


def drop_unused_theme_files(site_dir: Path) -> int:
    """Both of the above; return the bytes removed from the site."""
    return drop_source_maps(site_dir) + drop_unused_search_languages(site_dir)
