"""The site build's seam (pipeline step 6): one context, feature modules, output writers.

``macros/__init__.py`` (the mkdocs-macros adapter) creates one ``SiteContext`` per build, asks
every feature module in ``FEATURES`` for its macros, and after the build lets each write its
extra files (chart embeds, JSON API, ...) into the site folder. A feature module exposes:

- ``macros(ctx) -> dict[str, Callable[..., str]]``  macros it adds to pages, and optionally
- ``write_outputs(ctx, site_dir: Path) -> None``    files it writes after MkDocs has built.

Feature modules never import mkdocs; they receive plain values.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.entries import Catalog

FEATURES: tuple[str, ...] = (
    "tinkernomics.site.pages.macros",
    "tinkernomics.site.api.feature",
    "tinkernomics.site.contributing.feature",
    "tinkernomics.site.charts.feature",
    "tinkernomics.site.calculator.feature",
)
"""Feature modules, in registration order. Add yours here."""

CATALOG_ENV = "TINKERNOMICS_CATALOG"
"""Environment variable: build the site from another catalog folder (tests, scratch copies)."""

Macro = Callable[..., str]


@dataclass
class SiteContext:
    """Everything a feature needs: the validated catalog, the project root, the site URL."""

    root: Path
    catalog: Catalog
    site_url: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path, site_url: str = "") -> SiteContext:
        """Load and validate the catalog once; raise CatalogError listing every problem."""
        catalog_dir = Path(os.environ.get(CATALOG_ENV) or root / "catalog")
        catalog = load_valid_catalog(catalog_dir, docs_dir=root / "docs")
        return cls(root=root, catalog=catalog, site_url=site_url)

    @cached_property
    def factor(self) -> Any:
        from tinkernomics.derived.derive import conversion_factor

        return conversion_factor(self.catalog)


def feature_modules() -> list[ModuleType]:
    return [importlib.import_module(name) for name in FEATURES]


def all_macros(ctx: SiteContext) -> dict[str, Macro]:
    """Macros of every feature; a name defined twice is an error."""
    found: dict[str, Macro] = {}
    for module in feature_modules():
        for name, fn in module.macros(ctx).items():
            if name in found:
                raise ValueError(f"macro {name!r} defined twice (again in {module.__name__})")
            found[name] = fn
    return found


def write_all_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """Let every feature write its extra files into the built site."""
    for module in feature_modules():
        writer = getattr(module, "write_outputs", None)
        if writer is not None:
            writer(ctx, site_dir)
