"""A contributor adds an algorithm, in a temporary copy of the repository, with the CLI (run
in-process; tests/test_scaffold.py and `make new` in tests/test_contributor_docs.py run the
installed console script): scaffold it, see validation fail naming the scaffold's required
fields, fill them, see it pass, build the site (under a sub-path, as on GitHub Pages) and find the
page, the comparison-table row and the curve in the comparison chart; then serve the site under
that sub-path and check that every page, asset and link resolves inside it."""

from __future__ import annotations

import functools
import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.request import urlopen

import pytest
import yaml
from helpers_browser import SHUTDOWN_POLL_S
from helpers_contrib import (
    BIN,
    conditional_placeholders,
    null_leaves,
    required_placeholders,
    run_cli_in_process,
)

from tinkernomics.catalog.models import Algorithm
from tinkernomics.site.charts.feature import EMBED_DIR
from tinkernomics.site.charts.spec import COMPARISON_ID, algorithm_chart_id
from tinkernomics.site.contributing.fieldsdoc import field_docs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import keep_algorithms  # noqa: E402

NOT_COPIED = {".git", ".venv", "site", "tests", "benchmarks", ".pytest_cache", ".ruff_cache",
              ".hypothesis", "__pycache__", "tinkernomics.egg-info", "build", "dist"}
"""The copy holds what a contributor's checkout holds for building the site (the package itself
runs from the installed copy)."""
NEW_ID = "toy_rl"
NEW_NAME = "ToyRL"
SUB_PATH = "/tn/sub/"
MAX_URLS = 3000
"""Safety cap on the crawl; the whole site is far smaller."""


@dataclass
class Contributor:
    repo: Path
    entry: Path
    scaffold: str
    failed: subprocess.CompletedProcess[str]
    passed: subprocess.CompletedProcess[str]


def _copy_repo(dest: Path) -> Path:
    for item in ROOT.iterdir():
        if item.name in NOT_COPIED:
            continue
        if item.is_dir():
            shutil.copytree(item, dest / item.name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(item, dest / item.name)
    return dest


def _fill(scaffold: str, reference: str) -> str:
    """What the contributor types: every empty field, plus a ScaleRL fit (a chart curve)."""
    data = yaml.safe_load(scaffold)
    figure = {"status": "reported", "source": reference, "locator": 'Table 1, "row A"'}
    data.update(
        name=NEW_NAME, full_name="Toy Reinforcement Learning", attribution="Tester et al.",
        year=2025, models_in_memory=["policy", "reference"], needs_critic=False,
        needs_reward_model=False, memory_profile="low",
        typical_k={"values": [1], "status": "reported", "source": reference,
                   "locator": '§3: "one epoch"'},
        async_support=True, notes="A toy algorithm added by the contributor-flow test.",
        references=[reference],
        scalerl={"model": "Toy-8B", "dataset": "MATH",
                 "A": {"value": 57.0, "unit": "percent", **figure},
                 "B": {"value": 1.6, "unit": "dimensionless", **figure},
                 "C_mid": {"value": 2500.0, "unit": "gb200_hours", **figure}},
    )
    modeline = scaffold.splitlines()[0]
    return modeline + "\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


@pytest.fixture(scope="module")
def contributor(tmp_path_factory: pytest.TempPathFactory) -> Contributor:
    # the algorithms the site's own code names are enough around the new one: fewer pages to
    # build and to fetch, the same flow
    repo = keep_algorithms(_copy_repo(tmp_path_factory.mktemp("checkout")), ())
    made = run_cli_in_process("new", "algorithm", NEW_ID, cwd=repo)
    assert made.returncode == 0, made.stderr
    entry = repo / "catalog" / "algorithms" / f"{NEW_ID}.yaml"
    scaffold = entry.read_text(encoding="utf-8")
    failed = run_cli_in_process("validate", cwd=repo)
    reference = sorted((repo / "catalog" / "references").glob("*.yaml"))[0].stem
    entry.write_text(_fill(scaffold, reference), encoding="utf-8")
    passed = run_cli_in_process("validate", cwd=repo)
    return Contributor(repo, entry, scaffold, failed, passed)


def test_scaffold_writes_the_entry_and_its_page(contributor: Contributor) -> None:
    assert contributor.scaffold.startswith("# yaml-language-server: $schema=")
    assert (contributor.repo / "docs" / "algorithms" / f"{NEW_ID}.md").is_file()


def test_validation_fails_naming_each_required_field_of_the_scaffold(
        contributor: Contributor) -> None:
    result = contributor.failed
    assert result.returncode == 1
    where = f"catalog/algorithms/{NEW_ID}.yaml:"
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith(where)]
    assert len(lines) == len(result.stdout.splitlines()), "only the new entry has problems"
    named = {ln.split(": ", 2)[1] for ln in lines}
    assert named == null_leaves(yaml.safe_load(contributor.scaffold)) - \
        conditional_placeholders(Algorithm)  # a locator is wanted once the status is reported
    assert named == required_placeholders(Algorithm)
    for line in lines:
        assert "required field is empty (hint: " in line, line


def test_filled_entry_validates(contributor: Contributor) -> None:
    assert contributor.passed.returncode == 0, contributor.passed.stdout
    assert contributor.passed.stdout.startswith("catalog OK")


# --------------------------------------------------------------------------- the built site


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Built:
    site: Path
    base: str
    """The site's URL, with the sub-path (served there by ``served``)."""


@pytest.fixture(scope="module")
def built(contributor: Contributor) -> Built:
    assert contributor.passed.returncode == 0
    port = _free_port()
    base = f"http://127.0.0.1:{port}{SUB_PATH}"
    env = {**os.environ, "SITE_URL": base}
    for name in ("GITHUB_ACTIONS", "TINKERNOMICS_CATALOG"):
        env.pop(name, None)
    done = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=contributor.repo,
                          env=env, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return Built(contributor.repo / "site", base)


class _Links(HTMLParser):
    """Every URL an HTML page references (href, src, srcset, iframe, form action)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if not value:
                continue
            if name in ("href", "src", "action", "data-src"):
                self.urls.append(value)
            elif name == "srcset":
                self.urls += [part.split()[0] for part in value.split(",") if part.strip()]


def _page(built: Built, path: str) -> str:
    return (built.site / path).read_text(encoding="utf-8")


def _chart_spec(built: Built, path: str, chart_id: str) -> dict[str, Any]:
    """The Plotly spec of a chart on the page at ``path``: the file its figure names in
    ``data-tn-spec`` (relative to the page), which the chart loader fetches."""
    figure = re.search(rf'<figure[^>]*data-tn-chart="{re.escape(chart_id)}"[^>]*>',
                       _page(built, path))
    assert figure, f"no chart {chart_id} on the page"
    url = re.search(r'data-tn-spec="([^"]+)"', figure[0])
    assert url, "the figure names no spec file"
    spec_file = (built.site / path).parent / html.unescape(url[1])
    return json.loads(spec_file.read_text(encoding="utf-8"))


@pytest.mark.build
def test_new_algorithm_has_its_page(built: Built) -> None:
    page = _page(built, f"algorithms/{NEW_ID}/index.html")
    assert f">{NEW_NAME}<" in page
    assert "Toy Reinforcement Learning" in page
    assert "Tester et al." in page


@pytest.mark.build
def test_new_algorithm_has_a_row_in_the_comparison_table(built: Built) -> None:
    page = _page(built, "algorithms/index.html")
    rows = re.findall(r"<tr\b.*?</tr>", page, re.DOTALL)
    mine = [r for r in rows if re.search(rf'href="(\./)?{NEW_ID}/"', r)]
    assert mine, "no comparison-table row links the new algorithm's page"
    assert NEW_NAME in html.unescape(re.sub(r"<[^>]+>", " ", mine[0]))


@pytest.mark.build
def test_new_algorithm_has_its_curve_in_the_comparison_chart(built: Built) -> None:
    spec = _chart_spec(built, "algorithms/index.html", COMPARISON_ID)
    curves = [t for t in spec["data"] if t.get("legendgroup") == NEW_ID and t.get("mode") == "lines"
              and NEW_NAME in t.get("name", "")]
    assert curves, [t.get("name") for t in spec["data"]]


@pytest.mark.build
def test_contributing_pages_show_the_guide_and_every_field(built: Built) -> None:
    guide = html.unescape(_page(built, "contributing/index.html"))
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    title = contributing.splitlines()[0].removeprefix("# ")
    assert re.search(rf"<h1[^>]*>{re.escape(title)}", guide)
    assert "# yaml-language-server: $schema=../schema/algorithm.schema.json" in guide
    fields = html.unescape(_page(built, "contributing/fields/index.html"))
    for doc in field_docs(Algorithm):
        assert re.search(rf"<tr>\s*<td><code>{doc.name}</code></td>", fields), doc.name


# --------------------------------------------------------------------------- under a sub-path


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site served at ``built.base``: only the sub-path exists on the server."""
    www = tmp_path_factory.mktemp("www")
    (www / SUB_PATH.strip("/")).parent.mkdir(parents=True, exist_ok=True)
    (www / SUB_PATH.strip("/")).symlink_to(built.site, target_is_directory=True)
    port = urlsplit(built.base).port
    handler = functools.partial(_Quiet, directory=str(www))
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={"poll_interval": SHUTDOWN_POLL_S}, daemon=True)
    thread.start()
    try:
        yield built.base
    finally:
        server.shutdown()
        server.server_close()


def _fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urlopen(url, timeout=30) as response:
            return response.status, response.headers.get_content_type(), response.read()
    except HTTPError as err:
        return err.code, "", b""


@pytest.mark.build
def test_every_page_asset_and_link_resolves_under_the_sub_path(served: str) -> None:
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(served))
    # Embed pages are reached through the copyable snippet, not a link: start from them too.
    embeds = [f"{served}{EMBED_DIR}/{chart}/" for chart in (COMPARISON_ID,
                                                            algorithm_chart_id(NEW_ID))]
    queue, seen, broken, outside = [served, *embeds], {served, *embeds}, [], []
    while queue:
        url = queue.pop()
        status, kind, body = _fetch(url)
        if status != 200:
            broken.append(f"{url} -> {status}")
            continue
        if kind != "text/html":
            continue
        parser = _Links()
        parser.feed(body.decode("utf-8"))
        for raw in parser.urls:
            target = urldefrag(urljoin(url, html.unescape(raw)))[0].split("?")[0]
            if not target.startswith(origin):
                continue  # another host (a source's URL); the site loads nothing from one
            if not target.startswith(served):
                outside.append(f"{url} links {raw}")
            elif target not in seen and len(seen) < MAX_URLS:
                seen.add(target)
                queue.append(target)
    assert not outside, outside[:10]
    assert not broken, broken[:10]
    assert served + f"algorithms/{NEW_ID}/" in seen
    assert any(u.endswith(".css") for u in seen) and any(u.endswith(".js") for u in seen)
    assert len(seen) > 20


@pytest.mark.build
@pytest.mark.browser
def test_charts_load_their_scripts_under_the_sub_path(served: str, browser: Any) -> None:
    """plotly.js is loaded by script at run time: only a browser shows it resolves."""
    failures: list[str] = []
    page = browser.new_page()
    try:
        page.on("response", lambda r: failures.append(f"{r.status} {r.url}")
                if r.status >= 400 else None)
        page.on("requestfailed", lambda r: failures.append(f"failed {r.url}"))
        page.on("pageerror", lambda e: failures.append(f"error {e}"))
        for path, chart in (("algorithms/", COMPARISON_ID),
                            (f"algorithms/{NEW_ID}/", algorithm_chart_id(NEW_ID))):
            page.goto(served + path)
            box = page.locator(f'[data-tn-chart="{chart}"]')
            box.scroll_into_view_if_needed()
            box.locator(".tn-chart__frame").hover()  # a reader's intent loads plotly.js
            box.locator(".tn-chart__plot .main-svg").first.wait_for(timeout=30_000)
            assert page.url.startswith(served)
    finally:
        page.close()
    assert not failures, failures
