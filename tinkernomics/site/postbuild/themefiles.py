"""Theme files that no page loads, out of the built site (pipeline step 6, after the pages).

Material copies its whole asset folder into every site; two parts of it are never fetched by a
reader's browser. The postbuild feature's ``write_outputs`` deletes them
(``drop_unused_theme_files``), where the theme adapter says they are (``ThemeProfile``'s
``source_maps_under``, ``search_languages`` and ``search_index``, rule 3 of ``macros/theme.py``;
without a profile nothing is dropped):

- **Source maps** (``*.map`` under the assets folder, 1.3 MB: the bundle's own is 1 MB). They serve
  only someone debugging Material's TypeScript in the browser's developer tools, which fetch them
  only when open; Lighthouse's source-map audit carries no weight. The ``sourceMappingURL`` comment
  at the end of each bundle that names one goes too (so the developer tools do not report a missing
  file); nothing else in a bundle changes.
- **Search languages** (0.9 MB): lunr's stemmers for languages other than English, and the
  Japanese and Thai word splitters. Material's search worker imports
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

from tinkernomics.site.build import ThemeProfile
from tinkernomics.site.postbuild import inplace

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


def drop_source_maps(site_dir: Path, under: str) -> int:
    """Delete every ``*.map`` in the folder ``under`` of ``site_dir`` and the comments naming
    them; return the bytes removed from the site."""
    assets = site_dir / under
    if not under or not assets.is_dir():
        return 0
    maps = {path.resolve() for path in assets.rglob("*.map") if path.is_file()}
    bundles = [p for p in assets.rglob("*") if p.suffix in _BUNDLE_SUFFIXES and p.is_file()
               and not p.is_symlink() and not inplace.left_over(p)]
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


_HEAD_CHARS = 65536


def index_languages(index: Path, config_first: str = "") -> Any:
    """``config.lang`` of the search index. Only the file's head is read when it starts with
    ``config_first`` (the config object, before the pages' texts, as MkDocs writes it: they are
    megabytes at 1,000 algorithms, issue 47); any other layout is read whole."""
    with index.open(encoding="utf-8") as file:
        head = file.read(_HEAD_CHARS)
    if config_first and head.startswith(config_first):
        try:
            config, _ = json.JSONDecoder().raw_decode(head, len(config_first))
        except json.JSONDecodeError:
            pass  # a config longer than the head: read the whole file
        else:
            return config.get("lang") if isinstance(config, dict) else None
    data = json.loads(index.read_text(encoding="utf-8"))
    return data.get("config", {}).get("lang") if isinstance(data, dict) else None


def drop_unused_search_languages(site_dir: Path, theme: ThemeProfile) -> int:
    """Delete the search worker's language files when the site searches English only; return
    the bytes removed."""
    if not theme.search_index or not theme.search_languages:
        return 0
    index, languages = site_dir / theme.search_index, site_dir / theme.search_languages
    if not index.is_file() or not languages.is_dir():
        return 0
    if index_languages(index, theme.search_index_start) != ["en"]:
        return 0
    removed = _folder_size(languages)
    shutil.rmtree(languages)
    return removed


def drop_unused_theme_files(site_dir: Path, theme: ThemeProfile) -> int:
    """Both of the above; return the bytes removed from the site."""
    return (drop_source_maps(site_dir, theme.source_maps_under)
            + drop_unused_search_languages(site_dir, theme))
