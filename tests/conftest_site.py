"""Session fixture: the real site, built ONCE per test run (`mkdocs build --strict`).

Imported by tests/conftest.py. Built under a sub-path site URL, like the Pages deployment, with
the real catalog and docs, into a temporary folder (never into site/ or docs/).

The build starts in the background as soon as collection shows a test that needs it
(``start_session_site``), so it runs on one core while the tests that need no site run on the
others; ``built_site`` waits for it to finish. Under pytest-xdist every worker shares the one
build: the folder is made by the controlling process (``SHARED_ENV``, inherited by the workers
it starts), and a file lock lets exactly one process start the build. The build writes its exit
status to a file when it ends, so any process can wait for it, not only the one that started it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from tinkernomics.site.build import CATALOG_ENV

REPO_ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")
SUB_PATH_URL = "https://example.org/tinker-nomics/"
SHARED_ENV = "TINKERNOMICS_TEST_SHARED"
"""A folder every process of one test run shares (made by the controlling process)."""
BUILD_TIMEOUT_S = 900.0

# Runs the build, then writes its exit status to `rc` (via a rename, so a reader never sees a
# half-written file). Started detached from the test process, so it ends on its own.
_RUNNER = """
import os, subprocess, sys
log, rc = sys.argv[1], sys.argv[2]
with open(log, "w") as out:
    code = subprocess.run(sys.argv[3:], stdout=out, stderr=subprocess.STDOUT).returncode
with open(rc + ".tmp", "w") as f:
    f.write(str(code))
os.replace(rc + ".tmp", rc)
"""


@dataclass(frozen=True)
class BuiltSite:
    root: Path
    log: str


def build_env(catalog: Path | None, site_url: str) -> dict[str, str]:
    """The environment of a test build: the site URL, and the catalog to build (default: the
    repository's own)."""
    env = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    env.update({"SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"})
    if catalog is not None:
        env[CATALOG_ENV] = str(catalog)
    return env


def run_mkdocs_build(site_dir: Path, *, catalog: Path | None = None,
                     site_url: str = SUB_PATH_URL) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of this repository into ``site_dir`` (optionally another catalog)."""
    return subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=REPO_ROOT, env=build_env(catalog, site_url),
                          capture_output=True, text=True, timeout=600, check=False)


# --------------------------------------------------------------------------- the shared folder


def make_shared_folder() -> None:
    """In the controlling process: a fresh folder for this run (workers inherit its path)."""
    if SHARED_ENV not in os.environ:
        os.environ[SHARED_ENV] = tempfile.mkdtemp(prefix="tinkernomics-tests-")


def remove_shared_folder() -> None:
    """In the controlling process, at the end: stop a build still running, remove the folder."""
    folder = os.environ.pop(SHARED_ENV, None)
    if folder is None:
        return
    pid_file = Path(folder) / "session-site" / "pid"
    if pid_file.exists() and not (pid_file.parent / "rc").exists():
        with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
            os.killpg(int(pid_file.read_text()), signal.SIGTERM)
    shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- a cold checkout

TESTS_CACHE = Path(__file__).resolve().parent / "__pycache__"


def cold_checkout() -> bool:
    """Whether this run is the first on a checkout (no test module compiled yet) and Python
    writes its compiled modules (``PYTHONDONTWRITEBYTECODE`` unset, as the Makefile has it)."""
    return not sys.dont_write_bytecode and not any(TESTS_CACHE.glob("test_*.pyc"))


@contextlib.contextmanager
def first_collector_alone(is_worker: bool) -> Iterator[None]:
    """Under pytest-xdist on a cold checkout, the first worker to collect does it alone and the
    others collect once it is done. Collecting imports every test module and what they import;
    the first time, each is compiled (and the tests' asserts rewritten) and written to
    ``__pycache__``: with every worker collecting at once, each compiled all of it (a cold
    collection costs about three times a warm one, about 6 s of CPU more a worker). The other
    workers then read what the first wrote. A warm checkout collects side by side as before."""
    if not is_worker or SHARED_ENV not in os.environ or not cold_checkout():
        yield
        return
    folder = Path(os.environ[SHARED_ENV])
    lock, done = FileLock(str(folder / "collect.lock")), folder / "collected"
    with lock:
        first = not done.exists()
        if first:
            try:
                yield
            finally:
                done.touch()
            return
    yield


# --------------------------------------------------------------------------- the session's site


class SessionSite:
    """The real site's build for this run, in ``<shared>/session-site``."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.folder = Path(os.environ[SHARED_ENV]) / "session-site"
        self.site, self.log, self.rc = self.folder / "site", self.folder / "build.log", \
            self.folder / "rc"
        self.command = command or [str(MKDOCS), "build", "--strict", "--site-dir", str(self.site)]

    def start(self) -> None:
        """Start the build unless a process of this run already has (idempotent)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.folder / "lock")):
            if (self.folder / "pid").exists():
                return
            proc = subprocess.Popen(
                [sys.executable, "-c", _RUNNER, str(self.log), str(self.rc), *self.command],
                cwd=REPO_ROOT, env=build_env(None, SUB_PATH_URL), start_new_session=True,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            (self.folder / "pid").write_text(str(proc.pid))

    def wait(self) -> BuiltSite:
        """The built site once its build has ended; fails the test if the build failed."""
        self.start()
        deadline = time.monotonic() + BUILD_TIMEOUT_S
        while not self.rc.exists():  # the build's own signal that it ended
            if time.monotonic() > deadline:
                pytest.fail(f"the site build did not end in {BUILD_TIMEOUT_S:.0f} s")
            time.sleep(0.2)
        log = self.log.read_text(encoding="utf-8")
        assert self.rc.read_text() == "0", f"mkdocs build failed:\n{log[-6000:]}"
        return BuiltSite(self.site, log)


def start_session_site(items: list[pytest.Item]) -> None:
    """Start the session's build in the background if a collected test will need it."""
    if SHARED_ENV in os.environ and any("built_site" in getattr(item, "fixturenames", ())
                                        for item in items):
        SessionSite().start()


def start_session_site_now() -> None:
    """Start the session's build before collection (the caller knows the run needs it)."""
    if SHARED_ENV in os.environ:
        SessionSite().start()


@pytest.fixture(scope="session")
def built_site() -> BuiltSite:
    """The site built from the real catalog (shared by every test and every xdist worker)."""
    return SessionSite().wait()


@pytest.fixture(scope="session")
def site_server(built_site: BuiltSite) -> Iterator[str]:
    """The session's site served on a loopback port at the root path (its base URL), one server
    per worker for every browser module that loads its pages over HTTP (the browser's HTTP cache
    works there; a routed context has none). Pages are read, never written: a test that needs
    a page changed answers it with a route of its own. A test whose pages must sit under the
    site URL's sub-path uses ``helpers_a11y.served_site``."""
    from helpers_browser import served_folder

    with served_folder(built_site.root) as base:
        yield base
