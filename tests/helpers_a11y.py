"""Helpers for the accessibility and HTML checks: a bare Material site with our theme settings
(the baseline every check compares against), the page types, and axe-core from npm.

Used by tests/test_a11y*.py, tests/test_site_html.py, tests/test_embeds_browser.py,
tests/test_site_browser.py, tests/test_reader_ux_scroll.py and benchmarks/bench_a11y.py.
"""

from __future__ import annotations

import mimetypes
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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
    from helpers_site import mkdocs_config

    ours = mkdocs_config()
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


SCHEMES = {"light": "default", "dark": "slate"}
"""Browser colour scheme -> the Material palette it selects (mkdocs.yml's media queries)."""


def open_site(browser: Any, root: Path, base_url: str, *, scheme: str = "light",
              size: tuple[int, int] = (1280, 900), axe: bool = False) -> tuple[Any, list[str]]:
    """A page in a fresh context that answers ``base_url`` from the built folder ``root``,
    with the system colour scheme ``scheme``; returns it and a list that collects requests
    to any other host (refused). With ``axe``, every document of the context gets axe-core
    before its own scripts (an init script: sent to the browser once, and outside the pages'
    Content-Security-Policy, which refuses an injected inline script)."""
    foreign: list[str] = []
    base = urlsplit(base_url)

    def handle(route: Any, request: Any) -> None:
        url = urlsplit(request.url)
        if url.netloc != base.netloc or not url.path.startswith(base.path):
            foreign.append(request.url)
            route.abort()
            return
        path = root / url.path[len(base.path):]
        path = path / "index.html" if path.is_dir() else path
        if not path.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        route.fulfill(status=200, path=path, content_type=kind)

    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  color_scheme=scheme)
    context.route("**/*", handle)
    if axe:
        context.add_init_script(path=str(_axe_js()))
    return context.new_page(), foreign


@contextmanager
def served_site(root: Path, site_url: str) -> Iterator[str]:
    """The built folder ``root`` served on a loopback port under the path of ``site_url`` (the
    sub-path the site is built for, which its links name), so the browser's HTTP cache works
    (a routed context has none); yields the base URL. The served folder holds only the site,
    behind that path: any other path on the port is a 404."""
    from helpers_browser import served_folder

    sub_path = urlsplit(site_url).path.strip("/")
    with tempfile.TemporaryDirectory(prefix="tn-served-") as tmp:
        if sub_path:
            (Path(tmp) / sub_path).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / sub_path).symlink_to(root, target_is_directory=True)
        with served_folder(tmp if sub_path else root) as base:
            yield base + (sub_path + "/" if sub_path else "")


def open_served(browser: Any, base_url: str, *, scheme: str = "light",
                size: tuple[int, int] = (1280, 900), axe: bool = False,
                init_script: str | None = None) -> tuple[Any, list[str]]:
    """A page in a fresh context for the site :func:`served_site` serves at ``base_url``, with
    the system colour scheme ``scheme``; returns it and a list that collects every request
    outside ``base_url`` (another host, or another path on this one). ``axe`` as for
    :func:`open_site`; ``init_script``: more script for every document, before its own."""
    foreign: list[str] = []
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  color_scheme=scheme)
    context.on("request", lambda request: None if request.url.startswith(base_url)
               else foreign.append(request.url))
    if axe:
        context.add_init_script(path=str(_axe_js()))
    if init_script:
        context.add_init_script(init_script)
    return context.new_page(), foreign


def reset_storage(page: Any) -> None:
    """Empty the loaded site's localStorage and sessionStorage (a reused tab's next page then
    starts as in a fresh context: no stored palette, no remembered state)."""
    page.evaluate("() => { if (location.protocol.startsWith('http')) {"
                  " localStorage.clear(); sessionStorage.clear(); } }")


AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
BLOCKING_IMPACTS = ("serious", "critical")


def _axe_js() -> Path:
    if not AXE_JS.is_file():
        raise AssertionError("axe-core is not installed: run `make axe` (`make test` does)")
    return AXE_JS


def start_axe(page: Any, *, rules: list[str] | None = None) -> None:
    """Start axe-core on the loaded page without waiting for it (:func:`axe_results` waits), so
    several pages can be checked at once, each in its own renderer. ``rules``: only these axe
    rule ids, else all WCAG 2.x A/AA rules and best practices. axe-core comes from
    ``open_site(..., axe=True)``, else it is added as a script tag (pages without a CSP)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(_axe_js()))
    only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": AXE_TAGS}
    page.evaluate("(only) => { window.tnAxe = new Promise((go) => setTimeout(go)).then(() =>"
                  " axe.run(document, {runOnly: only, resultTypes: ['violations']})); }", only)


def axe_results(page: Any) -> list[dict[str, Any]]:
    """The violations of the axe-core run :func:`start_axe` started on ``page``."""
    return page.evaluate("() => window.tnAxe.then((result) => result.violations)")


def axe_violations(page: Any, *, rules: list[str] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on the loaded page (see :func:`start_axe` for ``rules``)."""
    start_axe(page, rules=rules)
    return axe_results(page)
