"""The same site from Zensical (Material's successor) as from MkDocs.

A project copy is built ONCE per session as `make build-zensical` does (`python -m
macros.zensical_build`: Zensical's pages, then the outputs in the same process) and compared
with the session's MkDocs build (tests/conftest_site.py): the same page URLs, every link the
features write leading to the same place, the same API, embed and vendor files byte for byte;
`tinkernomics outputs` (the step for any generator) rewrites the same files. The reader's checks
then run on both builds in headless Chromium: a chart draws once the reader points at it and
survives instant navigation, the palette toggle re-themes it, the calculator computes. The
adapter's unit tests (catalog cache, link rewriting, config reader) are in
tests/test_zensical_adapter.py.

The Zensical build is a check of the tooling, not of a contributor's data (a catalog change that
MkDocs builds is not expected to break Zensical alone): every test that needs it is marked
``sweep`` and runs in `make test-sweep` (.ci/run), which keeps `make test` under 3 minutes; `make
test` runs the MkDocs half of the reader's checks and Zensical's cache test on a tiny project.
"""

from __future__ import annotations

import functools
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest_site import REPO_ROOT, SUB_PATH_URL, BuiltSite
from helpers_browser import SHUTDOWN_POLL_S
from helpers_calc import real_catalog
from helpers_contrib import run_cli_in_process
from helpers_leaks import catalog_text, leaks
from helpers_site import load_theme, parse

from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site import build as sitebuild
from tinkernomics.site.api.files import data_last_changed
from tinkernomics.site.api.version import API_MAJOR
from tinkernomics.site.calculator.formatting import fmt_usd
from tinkernomics.site.charts.feature import (
    EMBED_DIR,
    IMAGE_CACHE_ENV,
    image_cache,
    image_cache_folder,
)
from tinkernomics.site.charts.spec import COMPARISON_ID

COPIED = ("docs", "site_overrides", "macros", "catalog", "mkdocs.yml", "CONTRIBUTING.md",
          "README.md", "CHANGELOG_API.md")
"""What a build reads: a clean clone holds no more (no site/, no .cache/)."""
PORTS = range(8500, 8600)
"""This test's servers bind in this range only."""
OUTPUT_TOPS = (f"api/{API_MAJOR}", "embed")
VENDOR = "assets/vendor/plotly.min.js"
CHART = "[data-tn-chart]"
TIMEOUT_MS = 30_000


# --------------------------------------------------------------------------- the Zensical build


def copy_project(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in COPIED:
        src = REPO_ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    return dest


def build_env() -> dict[str, str]:
    """The MkDocs fixture's site URL. The copy is not a git checkout, so the API's last-changed
    date is pinned to the real catalog's newest commit, as the MkDocs build of the checkout
    reads it."""
    env = {k: v for k, v in os.environ.items() if k != sitebuild.CATALOG_ENV}
    epoch = int(data_last_changed(REPO_ROOT / "catalog").timestamp())
    env.update(SITE_URL=SUB_PATH_URL, SOURCE_DATE_EPOCH=str(epoch))
    return env


def run_zensical_build(project: Path) -> subprocess.CompletedProcess[str]:
    """What `make build-zensical` runs, in ``project``."""
    return subprocess.run([sys.executable, "-m", "macros.zensical_build"], cwd=project,
                          env=build_env(), capture_output=True, text=True, timeout=600,
                          check=False)


IMAGE_CACHE = Path(".image-cache")
"""The project's chart image cache (tinkernomics.site.charts.feature.IMAGE_CACHE_DIR)."""
SEED_IMAGE = "seeded-before-the-build.png"
"""Put in the image cache before the session's Zensical build: it must be there after it."""
WITHHELD_IMAGE = f"{EMBED_DIR}/{COMPARISON_ID}/card.png"
"""The one image of the MkDocs build the Zensical build's cache is not given: it draws it."""


def seed_image_cache(project: Path, built_site: BuiltSite) -> set[str]:
    """The project's image cache as a CI run restores it: the seed, and every image the session's
    MkDocs build cached except the one at ``WITHHELD_IMAGE`` (returns the names of the cache
    files holding its bytes). Images are cached by their SVG text, so the Zensical build takes
    one from here only where it would draw the same picture; the withheld one it draws and
    stores itself."""
    cache = project / IMAGE_CACHE
    cache.mkdir(parents=True)
    (cache / SEED_IMAGE).write_bytes(b"kept")
    withheld = (built_site.root / WITHHELD_IMAGE).read_bytes()
    names = set()
    for image in image_cache_folder(REPO_ROOT).glob("*.png"):
        if image.read_bytes() == withheld:
            names.add(image.name)
        else:
            shutil.copyfile(image, cache / image.name)
    assert names, f"{WITHHELD_IMAGE} is not in the MkDocs build's image cache"
    return names


@dataclass(frozen=True)
class ZensicalSite(BuiltSite):
    withheld: frozenset[str] = frozenset()
    """Names the image at ``WITHHELD_IMAGE`` may have in the cache (it was left out of it)."""


@pytest.fixture(scope="session")
def zensical_site(tmp_path_factory: pytest.TempPathFactory,
                  built_site: BuiltSite) -> ZensicalSite:
    project = copy_project(tmp_path_factory.mktemp("zensical") / "project")
    withheld = seed_image_cache(project, built_site)
    done = run_zensical_build(project)
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"zensical build failed:\n{log[-6000:]}"
    return ZensicalSite(project / "site", log, frozenset(withheld))


def page_urls(site: Path) -> set[str]:
    return {p.parent.relative_to(site).as_posix() for p in site.rglob("index.html")
            if p.relative_to(site).parts[0] not in ("embed", "api") or p.parent.name == "api"}


_LINK = re.compile(r'\s(?:href|src)="([^"]*)"')
_ARTICLE = re.compile(r"<article.*?</article>", re.DOTALL)


def content_links(site: Path, url: str) -> list[str]:
    """Every link in the page's article, resolved to a site path (so ``./`` on ``api/`` and
    ``../api/`` compare equal): what the features wrote, not what the theme adds."""
    text = (site / url / "index.html").read_text(encoding="utf-8")
    article = _ARTICLE.search(text)
    found = []
    for link in _LINK.findall(article.group(0) if article else ""):
        if re.match(r"^([a-z]+:|#|/|\?)", link):
            found.append(link)
            continue
        path, sep, rest = link.partition("#")
        resolved = posixpath.normpath(posixpath.join("/" + url, path))
        found.append(resolved + ("/" if path.endswith("/") or path in ("", ".") else "")
                     + sep + rest)
    return found


def output_files(site: Path) -> dict[str, bytes]:
    """Every file the outputs step writes (API, embeds, vendor plotly.js), with its bytes."""
    found = {p.relative_to(site).as_posix(): p.read_bytes()
             for top in OUTPUT_TOPS for p in sorted((site / top).rglob("*")) if p.is_file()}
    found[VENDOR] = (site / VENDOR).read_bytes()
    return found


# --------------------------------------------------------------------------- same site


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_zensical_and_mkdocs_build_the_same_page_urls(built_site: BuiltSite,
                                                     zensical_site: BuiltSite) -> None:
    mkdocs_pages, zensical_pages = page_urls(built_site.root), page_urls(zensical_site.root)
    assert {".", "algorithms", "algorithms/grpo", "calculator", "api"} <= mkdocs_pages
    assert zensical_pages == mkdocs_pages


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_every_link_the_features_write_leads_to_the_same_place(built_site: BuiltSite,
                                                                zensical_site: BuiltSite) -> None:
    """Zensical resolves raw-HTML links against the source file; the adapter compensates."""
    differ = {}
    for url in sorted(page_urls(built_site.root)):
        mkdocs_links = content_links(built_site.root, url)
        if mkdocs_links != content_links(zensical_site.root, url):
            differ[url] = sorted(set(mkdocs_links) ^ set(content_links(zensical_site.root, url)))
    assert len(content_links(built_site.root, "algorithms/grpo")) > 10
    assert differ == {}, f"links that lead elsewhere under Zensical: {differ}"


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_zensical_and_mkdocs_write_the_same_api_embed_and_vendor_files(
        built_site: BuiltSite, zensical_site: BuiltSite) -> None:
    mkdocs_files, zensical_files = output_files(built_site.root), output_files(zensical_site.root)
    assert f"api/{API_MAJOR}/index.json" in mkdocs_files
    assert any(name.startswith("embed/") and name.endswith("/index.html") for name in mkdocs_files)
    assert sorted(zensical_files) == sorted(mkdocs_files)
    differ = [name for name, data in mkdocs_files.items() if zensical_files[name] != data]
    assert differ == [], f"files that differ between the builds: {differ[:10]}"


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_tinkernomics_outputs_writes_the_same_files_after_any_generator(
        zensical_site: BuiltSite, tmp_path: Path) -> None:
    """The generic step (`zensical build` + `tinkernomics outputs`, or any other generator)."""
    site = tmp_path / "site"
    shutil.copytree(zensical_site.root, site)
    for top in (*OUTPUT_TOPS, "assets/vendor"):
        shutil.rmtree(site / top)
    project = zensical_site.root.parent
    done = run_cli_in_process("outputs", "--config", str(project / "mkdocs.yml"),
                              "--site-dir", str(site), cwd=project, env=build_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert output_files(site) == output_files(zensical_site.root)


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_zensical_pages_use_the_overrides_and_site_scripts(zensical_site: BuiltSite) -> None:
    page = (zensical_site.root / "algorithms" / "index.html").read_text(encoding="utf-8")
    for asset in ("assets/stylesheets/site.css", "assets/javascripts/site.js"):
        assert f'"../{asset}"' in page, asset
        assert (zensical_site.root / asset).is_file(), asset
    assert page.count('class="tn-chart') >= 1
    shown = parse(page).text(visible_only=True)
    assert not leaks(shown, catalog_text(REPO_ROOT / "catalog"), ("{{", "{%"))
    assert "_Macro Rendering Error_" not in page


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_zensical_indexes_the_same_algorithm_sections_as_mkdocs(zensical_site: BuiltSite,
                                                                built_site: BuiltSite) -> None:
    """Sections whose heading carries data-search-exclude (the typical-run panel, unverified
    values, references) are left out of both search indexes."""

    def algorithm_sections(docs: list[dict[str, Any]]) -> set[str]:
        return {d["location"] for d in docs if d["location"].startswith("algorithms/")
                and d["location"] != "algorithms/" and not d["location"].startswith("algorithms/#")}

    zensical = json.loads((zensical_site.root / "search.json").read_text(encoding="utf-8"))
    mkdocs = json.loads((built_site.root / load_theme().PROFILE["search_index"]).read_text(
        "utf-8"))
    found = algorithm_sections(zensical["items"])
    assert found == algorithm_sections(mkdocs["docs"])
    assert found and not {loc for loc in found if loc.endswith(
        ("#typical-run-cost", "#data-quality", "#references"))}


# --------------------------------------------------------------------------- image cache


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.sweep
def test_a_zensical_build_keeps_the_image_cache(zensical_site: ZensicalSite) -> None:
    """`--clean` deletes Zensical's .cache/; the image cache is elsewhere, or every build would
    render every PNG again (at 1,000 algorithms most of the build's CPU time)."""
    project = zensical_site.root.parent
    cached = {p.name for p in (project / IMAGE_CACHE).iterdir()}
    assert SEED_IMAGE in cached
    assert len(cached) > 2 and zensical_site.withheld & cached, \
        "the outputs step fills the cache"
    assert not list(project.glob(".cache-kept-*"))


def _tiny_project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Tiny\n", encoding="utf-8")
    config = root / "mkdocs.yml"
    config.write_text("site_name: tiny\n", encoding="utf-8")
    return config


@pytest.mark.zensical
@pytest.mark.sweep  # needs the zensical extra, which `make test-sweep` installs
def test_zensical_clean_deletes_its_cache_folder_but_not_the_image_cache(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import zensical
    monkeypatch.delenv(IMAGE_CACHE_ENV, raising=False)
    config = _tiny_project(tmp_path)
    ctx = sitebuild.SiteContext(root=tmp_path, catalog=None)  # type: ignore[arg-type]
    images, other = image_cache(ctx).folder, tmp_path / ".cache" / "other"
    assert images == tmp_path / IMAGE_CACHE
    for folder in (images, other):
        folder.mkdir(parents=True)
        (folder / "a.png").write_bytes(b"png")
    zensical.build(str(config), {"clean": True, "strict": False})
    assert not other.exists(), "Zensical's --clean no longer deletes .cache/"
    assert (images / "a.png").read_bytes() == b"png"


# --------------------------------------------------------------------------- in the browser


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _serve(directory: Path) -> ThreadingHTTPServer:
    for port in PORTS:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port),
                                         functools.partial(_Quiet, directory=str(directory)))
        except OSError:
            continue
        threading.Thread(target=server.serve_forever,
                         kwargs={"poll_interval": SHUTDOWN_POLL_S}, daemon=True).start()
        return server
    raise RuntimeError(f"no free port in {PORTS}")


@pytest.fixture(scope="module",
                params=["mkdocs", pytest.param("zensical", marks=pytest.mark.sweep)])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           ) -> Iterator[str]:
    """Each build served under the sub-path it was built for; the sitemap names this server
    (Material's instant navigation only intercepts links the sitemap lists)."""
    site = request.getfixturevalue("built_site" if request.param == "mkdocs"
                                   else "zensical_site").root
    root = tmp_path_factory.mktemp(f"served-{request.param}")
    copy = root / "tinker-nomics"
    shutil.copytree(site, copy)
    server = _serve(root)
    base = f"http://127.0.0.1:{server.server_address[1]}/tinker-nomics/"
    for sitemap in copy.glob("sitemap.xml"):
        sitemap.write_text(sitemap.read_text(encoding="utf-8").replace(SUB_PATH_URL, base),
                           encoding="utf-8")
    yield base
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def tab(browser: Any, served: str) -> Iterator[tuple[Any, list[str]]]:
    """One page per build, shared by its tests (each opens its own URL), and the errors it
    reported."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    # The site's public URL (oEmbed discovery links, which Material's instant navigation
    # follows to a sitemap) is answered by the local copy, as the published host would.
    context.route(SUB_PATH_URL + "**", lambda route: route.fulfill(
        response=route.fetch(url=route.request.url.replace(SUB_PATH_URL, served))))
    page = context.new_page()
    found: list[str] = []
    page.on("pageerror", lambda err: found.append(f"pageerror: {err}"))
    page.on("console", lambda m: m.type == "error" and found.append(m.text))
    yield page, found
    context.close()


@pytest.fixture
def errors(tab: tuple[Any, list[str]]) -> list[str]:
    """The errors the page reports during this test."""
    tab[1].clear()
    return tab[1]


@pytest.fixture
def page(tab: tuple[Any, list[str]], errors: list[str]) -> Any:
    """The build's page as a new reader finds it: nothing stored by an earlier test (the
    palette chosen, the calculator's inputs)."""
    if tab[0].url.startswith("http"):
        tab[0].evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    return tab[0]


def _point_at_chart(page: Any) -> None:
    page.locator(CHART).first.scroll_into_view_if_needed()
    page.locator(f"{CHART} .tn-chart__frame").first.hover()
    page.wait_for_selector(f"{CHART}.tn-chart--ready .scatterlayer .trace", timeout=TIMEOUT_MS)


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.browser
def test_chart_draws_rethemes_and_survives_instant_navigation(page: Any, served: str,
                                                             errors: list[str]) -> None:
    page.goto(served + "algorithms/", wait_until="load")
    _point_at_chart(page)
    page.evaluate("window.__sameDocument = true")
    paper = f"document.querySelector('{CHART} .tn-chart__plot').layout.paper_bgcolor"
    light = page.evaluate(paper)
    page.locator("label.md-header__button[for='__palette_1']").first.click()
    page.wait_for_function(f"() => {paper} !== {light!r}", timeout=TIMEOUT_MS)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
    page.locator("nav.md-nav--primary a.md-nav__link[href$='formulas/']").first.click()
    page.wait_for_url("**/formulas/")
    page.go_back()
    page.wait_for_url("**/algorithms/")
    # instant navigation swaps the content after the URL changes: scroll to whichever chart
    # element is current until it has drawn (plotly.js is loaded: being in view is enough)
    page.wait_for_function(f"""() => (() => {{
        const chart = document.querySelector('{CHART}');
        if (!chart) return false;
        chart.scrollIntoView();
        return chart.matches('.tn-chart--ready') && !!chart.querySelector('.scatterlayer .trace');
    }})()""", timeout=TIMEOUT_MS)
    assert page.evaluate("window.__sameDocument") is True, "instant navigation reloaded"
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
    assert errors == []


@pytest.mark.build
@pytest.mark.zensical
@pytest.mark.browser
def test_calculator_computes_what_python_computes(page: Any, served: str,
                                                  errors: list[str]) -> None:
    page.goto(served + "calculator/", wait_until="load")
    page.wait_for_selector("[data-tn-calc][data-tn-ready]", timeout=TIMEOUT_MS)
    total = '.tn-calc__cards [data-key="tinker.total"]'
    before = page.text_content(total)
    page.fill('input[name="steps"]', "250")
    page.wait_for_function("() => window.tnCalculator.last().env['run.steps'] === 250",
                           timeout=TIMEOUT_MS)
    page.wait_for_function(f"() => document.querySelector('{total}').textContent !== {before!r}",
                           timeout=TIMEOUT_MS)
    expected = estimate(real_catalog(), {"steps": "250"})["tinker.total"]
    assert page.text_content(total) == fmt_usd(expected)
    assert "steps=250" in page.url
    assert errors == []

