"""Test helpers for the JSON API: render it for a catalog, walk documents, resolve pointers.

Most API tests render the files in memory with ``api_files.render_api`` (no MkDocs build): for
the small fixture catalog and for the real one. Rendering is cached per catalog and timestamp.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.api.files import render_api

REPO_ROOT = Path(__file__).parent.parent
CATALOGS = {
    "fixture": REPO_ROOT / "tests" / "fixtures" / "valid",
    "real": REPO_ROOT / "catalog",
}
FIXED_TIME = dt.datetime(2026, 7, 17, 12, 30, tzinfo=dt.UTC)


@cache
def catalog(name: str) -> Catalog:
    if name == "real":  # the session's (helpers_calc.real_catalog, loaded once)
        from helpers_calc import real_catalog
        return real_catalog()
    return load_valid_catalog(CATALOGS[name])


@cache
def files(name: str) -> dict[str, bytes]:
    """Every API file for catalog ``name`` (rendered once per test session)."""
    return render_api(catalog(name), last_changed=FIXED_TIME, site_url="https://example.org/tn/")


def documents(name: str) -> dict[str, Any]:
    """Every JSON data document by path (not schema.json)."""
    return {p: json.loads(b) for p, b in files(name).items()
            if p.endswith(".json") and p != "schema.json"}


def whole_entries(name: str, collection: str) -> list[dict[str, Any]]:
    """Every whole entry of ``collection`` (its ``<collection>/<id>.json`` results), in the
    order the lean collection lists them."""
    docs = documents(name)
    return [docs[lean["api_path"]]["result"] for lean in docs[f"{collection}.json"]["result"]]


def resolve(docs: dict[str, Any], ref: str) -> Any:
    """Value at ``<file>#<JSON pointer>`` among ``docs``."""
    path, _, pointer = ref.partition("#")
    value = docs[path]
    for part in pointer.strip("/").split("/"):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def walk_json(value: Any, loc: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every nested value with its location."""
    yield loc, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk_json(v, (*loc, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk_json(v, (*loc, i))


FIGURE_KEYS = {"value", "unit", "status", "source", "derivation"}


def is_figure(value: Any) -> bool:
    """A public Figure (a derivation's input has no `derivation` key)."""
    return isinstance(value, dict) and value.keys() >= FIGURE_KEYS


def example_python(base: str, catalog: Catalog) -> str:
    """The API page's Python example (``example.py.j2``, as the page renders it), as code."""
    from tinkernomics.site.api import feature

    return feature._template_env().get_template("example.py.j2").render(
        base=base, **feature.example_values(catalog))
