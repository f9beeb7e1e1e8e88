"""Helpers for the accessibility and HTML checks: a bare Material site with our theme settings
(the baseline every check compares against), the page types, and axe-core from npm.

Used by tests/test_a11y*.py, tests/test_site_html.py and benchmarks/bench_a11y.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = REPO_ROOT / "tests"
AXE_JS = TESTS_DIR / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core from npm (tests/package.json); `make test` installs it (`make axe`)."""

PAGE_TYPES = {
    "home": "",
    "algorithms index": "algorithms/",
    "algorithm page": "algorithms/grpo/",
    "formulas": "formulas/",
    "tinker": "tinker/",
    "calculator": "calculator/",
    "data quality": "data-quality/",
    "api": "api/",
    "embed page": "embed/scalerl-comparison/",
}
"""One page of every kind the site renders, by site-relative path."""


def nav_files(nav: object) -> list[str]:
    """Every markdown file named in a MkDocs nav (nested sections included)."""
    if isinstance(nav, str):
        return [nav] if nav.endswith(".md") else []
    if isinstance(nav, list):
        return [f for item in nav for f in nav_files(item)]
    if isinstance(nav, dict):
        return [f for value in nav.values() for f in nav_files(value)]
    return []


def bare_material_site(tmp: Path, *, overrides: Path | None = None) -> Path:
    """Bare Material pages with our theme settings and our nav's shape (every page a title and
    one section, so it has a table of contents), plus one page outside the nav
    (``outside/``). With ``overrides``, that folder is the theme's custom_dir."""
    from mkdocs.utils.yaml import yaml_load

    ours = yaml_load((REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    theme = {k: v for k, v in ours["theme"].items() if k != "custom_dir"}
    if overrides is not None:
        theme["custom_dir"] = str(overrides)
    for name in [*nav_files(ours["nav"]), "outside.md"]:
        page = tmp / "docs" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# {page.stem}\n\nA bare page.\n\n## Section\n\nText.\n",
                        encoding="utf-8")
    config = {"site_name": "bare", "site_url": "https://example.org/bare/", "theme": theme,
              "plugins": ["search"], "nav": ours["nav"]}
    (tmp / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    subprocess.run([str(mkdocs), "build", "--site-dir", str(tmp / "site")], cwd=tmp, check=True,
                   capture_output=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""})
    return tmp / "site"
