"""No dead or test-only code in the package (issue 41).

Every top-level function, class and constant of ``tinkernomics/`` and ``macros/`` must be
reached from what the product runs: the package's own code, the benchmarks, or the text that
names Python (mkdocs.yml, pyproject.toml's entry points, the Makefile, CI). A name only tests
use is a test helper (it belongs in ``tests/helpers_*.py``), or the tests should go through the
entry point the product uses. No module serves names through a module-level ``__getattr__``.
How the scan resolves names, and what it treats as used by a framework's convention
(``FRAMEWORK_NAMES``): ``tests/helpers_deadcode.py``.
"""

from __future__ import annotations

import pytest
from helpers_deadcode import Module, getattr_shims, package_unreached, unreached

PENDING: dict[str, str] = {}
"""Test-only or unused names a change could not remove yet, each with why (none now);
test_pending_names_are_still_unused says when one may leave."""

ADAPTER_CLAIMS = {
    "macros.theme.PINS": "the exact releases the adapter was checked against (test_theme)",
    "macros.theme.PLOTLY_API": "the plotly.js functions the charts may call (test_theme)",
    "macros.theme.SEARCH_PRIORITY": "the search plugin's priority the hooks run after "
                                    "(test_searchcut)",
    "macros.theme.search_sections": "Material's search parser, what searchcut mirrors "
                                    "(test_searchcut)",
    "macros.theme.void_elements": "Material's parser's void elements (test_searchcut)",
    "macros.theme.search_parser": "Material's search parser, watched while a tiny site builds "
                                  "(test_theme)",
    "macros.theme.templates": "the installed Material's templates, read by the theme files' "
                              "and scripts' tests (test_themefiles, test_scripts_deferred)",
    "macros.theme.MARKUP": "Material's markup the site's files name (test_theme_boundary)",
    "macros.theme.build_in_process": "a tiny Material site built while the parser is watched "
                                     "(test_theme)",
    "macros.theme.render_pages": "a tiny Material site's pages with and without the shared "
                                 "nav (test_theme_nav)",
}
"""The theme adapter's claims about Material, MkDocs and Plotly: data only its checklist tests
read, kept in the one module a theme release may change (issue 41), not test helpers."""


@pytest.fixture(scope="module")
def found() -> list[str]:
    return package_unreached()


def test_every_top_level_name_is_used_by_the_product(found: list[str]) -> None:
    unused = [name for name in found if name not in PENDING and name not in ADAPTER_CLAIMS]
    assert not unused, (
        "referenced only from tests/ (or nowhere): " + ", ".join(unused) + ". Move a test "
        "helper into tests/helpers_*.py, test through the entry point the product uses, or "
        "delete it; a name a framework calls by convention goes in FRAMEWORK_NAMES "
        "(tests/helpers_deadcode.py) with its reason.")


def test_pending_names_are_still_unused(found: list[str]) -> None:
    assert sorted(set(PENDING) - set(found)) == [], "used or gone now: drop it from PENDING"
    assert sorted(set(ADAPTER_CLAIMS) - set(found)) == [], "used or gone: drop it from the claims"


def test_no_module_serves_names_through_getattr() -> None:
    assert getattr_shims() == []


PACKAGE = {
    "pkg": ("from pkg.core import reexported\n__all__ = ['reexported', 'only_listed']\n"
            "from pkg.core import only_listed\n", True),
    "pkg.core": ('"""Mentions test_only in prose."""\n'
                 "import importlib\n"
                 "def used():\n    return helper()\n"
                 "def helper():\n    return 1\n"
                 "def reexported():\n    pass\n"
                 "def only_listed():\n    pass\n"
                 "def test_only():\n    return test_only_helper()\n"
                 "def test_only_helper():\n    pass\n"
                 "class Registered(Base, of=int):\n    pass\n"
                 "FEATURES = ('pkg.feature',)\n"
                 "def load():\n    return [importlib.import_module(n) for n in FEATURES]\n", False),
    "pkg.feature": ("def macros():\n    pass\ndef unlisted():\n    pass\n"
                    "def on_startup():\n    pass\n", False),
    "pkg.app": ("from pkg import core\nimport pkg\n"
                "core.used()\npkg.reexported()\n"
                "for f in core.load():\n    f.macros()\n", False),
    "pkg.shim": ("def __getattr__(name):\n    return name\n", False),
}


def test_the_scan_tells_used_from_test_only_code() -> None:
    """The scan on a toy package: calls, module attributes, re-exports, a module loaded by
    name and called through (``f.macros()``), a framework's hook and a registering class are
    uses; a name only a docstring or ``__all__`` mentions, and what only that reaches, is not."""
    modules = [Module.parse(name, source, package)
               for name, (source, package) in PACKAGE.items()]
    assert unreached(modules) == ["pkg.core.only_listed", "pkg.core.test_only",
                                  "pkg.core.test_only_helper", "pkg.feature.unlisted"]
    assert getattr_shims(modules) == ["pkg.shim.__getattr__"]
