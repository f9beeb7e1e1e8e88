"""`make serve` survives bad saves: an invalid entry, a deleted algorithm whose page stub is kept,
an id the site uses itself each show the error page (the server neither exits nor hangs) and the
site comes back on the next good save; a port out of range fails in one line. `make test` runs
the invalid entry (three rebuilds); the deleted entry and the reserved id (four more rebuilds of
a second server) are the serve loop's edge cases, in `make test-sweep`.

The server test runs `mkdocs serve` in a temporary copy of the project on a port the system
picks, and always stops it. Waits are bounded and end on a condition (the page shows what it
should).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tinkernomics.site.contributing.devserver import ERROR_PAGE_CLASS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # synth
from synth import copy_project, keep_algorithms

REPO_ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")
FIRST_BUILD_S = 300.0
CHANGE_S = 120.0
"""A save must show its result within this (a rebuild of the real site takes seconds)."""
LOAD_S = 60.0
"""One request may take this long; longer is a hanging server."""
POLL_S = 0.1
"""Between two loads of a page that does not show the result yet (each of the tests' seven
rebuilds ends, on average, half a poll before the test sees it)."""


class Server:
    """A running `mkdocs serve`: its project copy, base URL, process and log."""

    def __init__(self, project: Path, port: int, log: Path) -> None:
        self.project, self.base, self.log = project, f"http://127.0.0.1:{port}/", log
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        env.pop("TINKERNOMICS_CATALOG", None)
        with log.open("w") as out:
            self.proc = subprocess.Popen(
                [str(MKDOCS), "serve", "--strict", "--dev-addr", f"127.0.0.1:{port}",
                 "--watch", "catalog"], cwd=project, env=env, stdout=out,
                stderr=subprocess.STDOUT)

    def get(self, path: str) -> str | None:
        """The page's text, or None while the server does not answer yet."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=LOAD_S) as response:
                return response.read().decode("utf-8")
        except TimeoutError as err:
            raise AssertionError(f"{path}: the server hung for {LOAD_S} s") from err
        except urllib.error.HTTPError as err:
            return f"HTTP {err.code}"
        except (urllib.error.URLError, ConnectionError):
            return None

    def wait(self, path: str, ok: Callable[[str], bool], timeout_s: float) -> str:
        """Load ``path`` until ``ok(text)``; fail if the server exits or the time is up."""
        start = time.monotonic()
        while True:
            assert self.proc.poll() is None, f"the server exited:\n{self.tail()}"
            text = self.get(path)
            if text is not None and ok(text):
                return text
            assert time.monotonic() - start < timeout_s, \
                f"{path}: not as expected in {timeout_s} s:\n{self.tail()}"
            time.sleep(POLL_S)

    def tail(self) -> str:
        return self.log.read_text(encoding="utf-8")[-4000:]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)


def free_port() -> int:
    """A port nobody listens on (the system's pick, so parallel test workers never share one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


SERVED_ALGORITHMS = ("grpo", "vineppo")
"""The algorithms the test breaks and fixes (with those the site's own code names): every
rebuild renders the site, so the copy leaves the rest of the catalog's algorithms out."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    project = keep_algorithms(copy_project(tmp_path / "project"), SERVED_ALGORITHMS)
    running = Server(project, free_port(), tmp_path / "serve.log")
    try:
        yield running
    finally:
        running.stop()


def is_error(text: str) -> bool:
    return ERROR_PAGE_CLASS in text


def shows(words: str) -> Callable[[str], bool]:
    return lambda text: words in text and not is_error(text)


def break_and_fix(server: Server, path: str, good: str, expect: str,
                  breaking: Callable[[], None], fixing: Callable[[], None]) -> None:
    """Break the catalog, see the error page name ``expect``, fix it, see the site again."""
    breaking()
    text = server.wait(path, is_error, CHANGE_S)
    assert expect in text, text[-3000:]
    fixing()
    server.wait(path, shows(good), CHANGE_S)


def first_page(server: Server) -> str:
    """The first build's GRPO page (the server is up)."""
    return server.wait("algorithms/grpo/", shows("Group Relative"), FIRST_BUILD_S)


def quiet_log(server: Server, errors: int) -> str:
    """The server's log once ``errors`` error rebuilds are in it: the server still runs, and
    no rebuild raised."""
    log = server.log.read_text(encoding="utf-8")
    assert server.proc.poll() is None
    assert "Traceback" not in log, log[-3000:]
    assert log.count("problem(s) in the catalog: every page shows them") >= errors, log[-3000:]
    return log


@pytest.mark.build
def test_a_bad_save_shows_the_error_page_and_the_site_comes_back(server: Server) -> None:
    algorithms = server.project / "catalog" / "algorithms"
    page = first_page(server)
    # The live-reload script MkDocs writes into each response differs per request: under serve
    # the page's Content-Security-Policy allows inline scripts (a built site allows hashes only).
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy and "'unsafe-inline'" in policy.group(1).split("script-src")[1].split(";")[0]
    assert "livereload(" in page

    grpo = algorithms / "grpo.yaml"
    good = grpo.read_text(encoding="utf-8")

    def quoted_year() -> None:
        grpo.write_text(good.replace("\nyear: 2024\n", '\nyear: "2024"\n'))
        # Every page shows the error, not only the one that was open, with the field and a hint.
        home = server.wait("", is_error, CHANGE_S)
        assert "catalog/algorithms/grpo.yaml:" in home and ": year: " in home, home[-3000:]
        assert "remove the quotes" in home

    break_and_fix(server, "algorithms/grpo/", "Group Relative", "catalog/algorithms/grpo.yaml:",
                  quoted_year, lambda: grpo.write_text(good))

    log = quiet_log(server, 1)
    # Each error rebuild prints its problems once (an editor's save may trigger two rebuilds):
    # the quoted year's line at most once per rebuild, and at least once.
    rebuilds = log.count("problem(s) in the catalog: every page shows them")
    assert 1 <= log.count("grpo.yaml:") <= rebuilds, log[-3000:]


@pytest.mark.build
@pytest.mark.sweep
def test_a_deleted_entry_and_a_reserved_id_show_the_error_page_and_the_site_comes_back(
        server: Server) -> None:
    """The serve loop's edge cases (`make test-sweep`): an algorithm deleted while its page stub
    is kept, an id the site uses itself; each reported like the bad save above."""
    algorithms = server.project / "catalog" / "algorithms"
    first_page(server)
    vineppo = algorithms / "vineppo.yaml"
    kept = vineppo.read_text(encoding="utf-8")
    break_and_fix(server, "algorithms/vineppo/", "VinePPO", "docs/algorithms/vineppo.md:1:1:",
                  vineppo.unlink, lambda: vineppo.write_text(kept))

    good = (algorithms / "grpo.yaml").read_text(encoding="utf-8")
    index = algorithms / "index.yaml"
    reserved = good.replace("\nid: grpo\n", "\nid: index\n").replace("\nname: GRPO\n",
                                                                    "\nname: Another\n")
    break_and_fix(server, "algorithms/grpo/", "Group Relative", "is reserved: the site uses",
                  lambda: index.write_text(reserved), index.unlink)
    quiet_log(server, 2)


@pytest.mark.parametrize("port", ["70000", "0", "-1", "80a"])
def test_a_port_out_of_range_fails_in_one_line(port: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    done = subprocess.run(["make", "--no-print-directory", "-o", "setup", "serve",
                           f"PORT={port}"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=60, check=False, env=env)
    ours = [line for line in (done.stdout + done.stderr).splitlines()
            if line.strip() and not line.startswith("make: ***")]
    assert done.returncode != 0
    assert ours == [f"PORT={port} is not a port to serve on: pick a number from 1 to 65535, "
                    "e.g. `make serve PORT=8001`"]
