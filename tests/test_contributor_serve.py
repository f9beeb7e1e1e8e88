"""The live server forgives: an invalid catalog shows an error page (no hang, no traceback) and
the site comes back on the next valid save; a taken port fails in one line.

The browser test runs `mkdocs serve` in a temporary copy of the repository on a port in
8200-8299 and always stops it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinkernomics.catalog.problems import Problem
from tinkernomics.site.contributing.devserver import (
    ERROR_PAGE_CLASS,
    error_page_markdown,
    port_in_use,
    port_message,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")
SITE_FILES = ("mkdocs.yml", "docs", "catalog", "site_overrides", "macros", "CHANGELOG_API.md",
              "CONTRIBUTING.md", "README.md")
"""What `mkdocs serve` reads from the repository (the package itself is installed)."""
PORTS = range(8200, 8300)
FIRST_BUILD_S = 240.0
ERROR_PAGE_S = 30.0
"""An invalid save must show the error page within this (the error rebuild takes ~4 s)."""
BACK_S = 180.0


def free_port(start: int = 8200) -> int:
    return next(p for p in PORTS if p >= start and not port_in_use("127.0.0.1", p))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Path, str, Path]]:
    """`mkdocs serve` on a copy of the repository: (copy, base URL, log file); always stopped."""
    repo = tmp_path / "repo"
    for name in SITE_FILES:
        src = REPO_ROOT / name
        if src.is_dir():
            shutil.copytree(src, repo / name)
        else:
            repo.mkdir(exist_ok=True)
            shutil.copy(src, repo / name)
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("TINKERNOMICS_CATALOG", None)
    with log.open("w") as out:
        proc = subprocess.Popen([str(MKDOCS), "serve", "--strict",
                                 "--dev-addr", f"127.0.0.1:{port}", "--watch", "catalog"],
                                cwd=repo, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield repo, f"http://127.0.0.1:{port}/", log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def wait_for(page, url: str, predicate, timeout_s: float) -> float:  # type: ignore[no-untyped-def]
    """Load ``url`` until ``predicate(page)``; return the seconds it took. A load that hangs
    fails the test (each load may take 10 s at most)."""
    start = time.monotonic()
    while True:
        try:
            page.goto(url, timeout=10_000)
            if predicate(page):
                return time.monotonic() - start
        except Exception as err:  # connection refused while the server starts
            if "Timeout" in type(err).__name__:
                raise AssertionError(f"loading {url} hung for 10 s") from err
        assert time.monotonic() - start < timeout_s, f"{url}: not as expected in {timeout_s} s"
        time.sleep(0.5)


@pytest.mark.browser
@pytest.mark.build
def test_invalid_save_shows_an_error_page_then_the_site_comes_back(
        server: tuple[Path, str, Path], browser) -> None:  # type: ignore[no-untyped-def]
    repo, base, log = server
    url = base + "algorithms/grpo/"
    page = browser.new_page()
    is_error = lambda p: p.locator(f".{ERROR_PAGE_CLASS}").count() > 0  # noqa: E731
    shows_grpo = lambda p: "Group Relative" in p.content() and not is_error(p)  # noqa: E731
    wait_for(page, url, shows_grpo, FIRST_BUILD_S)

    path = repo / "catalog" / "algorithms" / "grpo.yaml"
    good = path.read_text(encoding="utf-8")
    path.write_text(good.replace("\nyear: 2024\n", '\nyear: "2024"\n'), encoding="utf-8")
    took = wait_for(page, url, is_error, ERROR_PAGE_S)
    listing = page.locator(f".{ERROR_PAGE_CLASS}").inner_text()
    assert "catalog/algorithms/grpo.yaml:" in listing and ": year: " in listing, listing
    assert "remove the quotes" in listing
    assert took < ERROR_PAGE_S
    # Every page shows it, not only the one that was open.
    wait_for(page, base, is_error, ERROR_PAGE_S)

    path.write_text(good, encoding="utf-8")
    wait_for(page, url, shows_grpo, BACK_S)
    page.close()
    text = log.read_text(encoding="utf-8")
    assert "Traceback" not in text, text[-3000:]
    # Each error rebuild prints the problem once (an editor's save may trigger two rebuilds).
    rebuilds = text.count("problem(s) in the catalog: every page shows them")
    assert rebuilds >= 1 and text.count("grpo.yaml:") == rebuilds, text[-3000:]


def test_taken_port_fails_in_one_line() -> None:
    import socket

    port = free_port(8250)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen(1)
        start = time.monotonic()
        # As typed in a terminal: not a sub-make of `make test` (which would say make[1]).
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
        done = subprocess.run(["make", "--no-print-directory", "-o", "setup", "serve",
                               f"PORT={port}"],
                              cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                              check=False, env=env)
        took = time.monotonic() - start
    ours = [line for line in (done.stdout + done.stderr).splitlines()
            if line.strip() and not line.startswith("make: ***")]
    assert done.returncode != 0
    assert len(ours) == 1, ours
    assert ours[0].startswith(f"port {port} on 127.0.0.1 is already in use")
    assert "make serve PORT=" in ours[0]
    assert took < 30, "the port is checked before anything is built"


def test_port_message_suggests_a_free_port() -> None:
    import socket

    port = free_port(8260)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", port))
        message = port_message("127.0.0.1", port)
    assert message is not None
    suggested = int(message.rsplit("PORT=", 1)[1].rstrip("`"))
    assert suggested > port and not port_in_use("127.0.0.1", suggested)
    assert port_message("127.0.0.1", port) is None  # released


def test_error_page_lists_problems_verbatim_and_is_not_jinja() -> None:
    problems = [Problem("catalog/a.yaml", 3, 1, "notes", "raw HTML <b> and {{ x }}", "hint")]
    text = error_page_markdown(problems)
    assert text.startswith("{% raw %}") and text.rstrip().endswith("{% endraw %}")
    assert "raw HTML &lt;b&gt; and {{ x }}" in text
    assert "catalog/a.yaml:3:1: notes:" in text and "1 problem(s)" in text


def test_serve_binds_another_host_on_request() -> None:
    """`make serve HOST=0.0.0.0` (a container, a VM): the port check and MkDocs use that host."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    dry = subprocess.run(["make", "--no-print-directory", "-n", "-o", "setup", "serve",
                          "PORT=8123", "HOST=0.0.0.0"], cwd=REPO_ROOT, capture_output=True,
                         text=True, timeout=60, check=True, env=env).stdout
    assert "tinkernomics.site.contributing.devserver 8123 0.0.0.0" in dry
    assert "--dev-addr 0.0.0.0:8123" in dry
    default = subprocess.run(["make", "--no-print-directory", "-n", "-o", "setup", "serve"],
                             cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                             check=True, env=env).stdout
    assert "--dev-addr 127.0.0.1:8000" in default
