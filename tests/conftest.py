"""Shared pytest fixtures (keep small and generic; feature helpers live in tests/helpers_*.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS_DIR = Path(__file__).parent
REPO_ROOT = TESTS_DIR.parent

if str(TESTS_DIR) not in sys.path:  # lets tests `import helpers_catalog` under any import mode
    sys.path.insert(0, str(TESTS_DIR))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (holds catalog/, docs/, mkdocs.yml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def valid_catalog_dir() -> Path:
    """The committed valid fixture catalog (read-only: copy it before changing anything)."""
    return TESTS_DIR / "fixtures" / "valid"


@pytest.fixture(scope="session")
def catalog() -> Any:
    """The real catalog (catalog/, checked with docs/ as the build does), loaded ONCE per session
    and shared by every test: treat it as read-only (copy it, as helpers_calc.with_toys does,
    before adding entries). Test real-catalog PROPERTIES with it, never today's numbers."""
    from tinkernomics.catalog.loader import load_valid_catalog

    return load_valid_catalog(REPO_ROOT / "catalog", docs_dir=REPO_ROOT / "docs")


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    """A fresh copy of the valid fixture catalog at ``tmp_path/catalog``."""
    from helpers_catalog import copy_valid

    return copy_valid(tmp_path)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium shared by every browser test (Playwright allows one per thread)."""
    from helpers_browser import launch_chromium

    yield from launch_chromium()


from conftest_site import built_site  # noqa: E402,F401 - the real site, built once per session


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """1,000-entry checks run only when asked for (`make test-scale`, i.e. `pytest -m scale`)."""
    if "scale" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="1,000-entry check: run with `make test-scale`")
    for item in items:
        if item.get_closest_marker("scale"):
            item.add_marker(skip)
