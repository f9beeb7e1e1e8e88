"""Shared pytest fixtures (keep small and generic; feature helpers live in tests/helpers_*.py).

How the suite runs (``make test``: pytest-xdist, one file per worker at a time): tests are marked
by the fixtures they use (``build``, ``browser``; an unmarked test that starts a build fails);
the files that need no site run first, then those that do, longest first by the seconds the
last runs took (pytest's cache, ``FILE_SECONDS``, seeded by ``file_seconds.json``; the
Makefile passes ``--no-loadscope-reorder``, else xdist hands files out by test count).
``conftest_site.py``
starts the real site's one build in the background as soon as collection shows a test needs it.
``helpers_*.py`` hold what several files share; ``fixtures/`` the fixture catalogs (``valid/``,
never today's prices; invalid ones are copies with one mistake each, ``helpers_catalog``).
Browser tests reuse one tab per module (``test_calc_browser.SharedTab``,
``helpers_chart_site.ReusedTab``: a new tab is the suite's largest cost), load the site from one
server per worker (``site_server``; test servers stop at once, ``helpers_browser.start_server``:
never wait on a fixed delay where a condition can be waited for), give Material's search
worker an empty index unless they search (``helpers_browser.NO_SEARCH_INDEX``) and run Debian's
``chromium-headless-shell``. ``-m scale`` (``make test-scale``) and ``-m sweep``
(``make test-sweep``) are the heavy groups outside ``make test``'s 3 minutes: a check over every
page or every chart keeps one of each kind in ``make test`` and puts the rest in ``sweep``
(``test_security_csp``, ``test_embeds_frames_browser``), and checks of the tooling rather than
of the catalog go there too (Zensical parity, the serve loop's edge cases); .ci/run runs all
three."""

from __future__ import annotations

import json
import subprocess
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
    from helpers_calc import real_catalog

    return real_catalog()


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


from conftest_site import (  # noqa: E402
    built_site,  # noqa: F401 - the real site, built once per test run
    first_collector_alone,
    make_shared_folder,
    remove_shared_folder,
    site_server,  # noqa: F401 - that site on a loopback port, one server per worker
    start_session_site,
    start_session_site_now,
)

BUILD_FIXTURES = {"built_site", "zensical_site"}
"""Fixtures that build a site: a test using one (directly or through another fixture) is
marked ``build``, and one using ``browser`` is marked ``browser``, so `make test-fast`
(``-m "not build and not browser"``) never builds or starts Chromium."""


def auto_mark(item: pytest.Item) -> None:
    """Add the ``build``/``browser`` markers a test's fixtures call for."""
    names = set(getattr(item, "fixturenames", ()))
    if names & BUILD_FIXTURES and not item.get_closest_marker("build"):
        item.add_marker(pytest.mark.build)
    if "browser" in names and not item.get_closest_marker("browser"):
        item.add_marker(pytest.mark.browser)


def pytest_configure(config: pytest.Config) -> None:
    """The controlling process makes the folder this run's processes share (xdist workers
    inherit it), and starts the session's site build at once when the run is the whole suite
    under xdist (``whole_suite_with_builds``)."""
    if not hasattr(config, "workerinput"):
        make_shared_folder()
        if whole_suite_with_builds(config):
            start_session_site_now()


def whole_suite_with_builds(config: pytest.Config) -> bool:
    """A run of the whole suite (its ``testpaths``, no ``-k``, not collecting only) whose
    markers keep the tests that build, on xdist workers (``make test``, ``make test-sweep``).
    Its build then starts in the controlling process while the workers collect (on a fresh
    checkout one of them collects alone, ``first_collector_alone``, leaving a core to the
    build) rather than once the first worker has collected."""
    option = config.option
    return (bool(getattr(option, "numprocesses", None))
            and config.args_source == pytest.Config.ArgsSource.TESTPATHS
            and not option.keyword and not option.collectonly
            and "not build" not in (option.markexpr or ""))


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        remove_shared_folder()


def needs_a_site(item: pytest.Item) -> bool:
    """Whether a test builds a site or reads the session's (it is marked ``build``)."""
    return item.get_closest_marker("build") is not None


FILE_SECONDS = "tinkernomics/file-seconds"
"""pytest's cache key: each test file's seconds in the runs that ran it (the controlling
process records them), the order in which the next run hands out the files that need a site."""
SEED_SECONDS = TESTS_DIR / "file_seconds.json"
"""The same for a fresh clone, which has no cache (the files that need a site and take 3 s or
so: their CPU seconds in `make test` plus what they wait on, rounded; an order, never a limit;
the files that need no site keep their order, so they are not listed): without it the files
that need a site go out in name order, and the long ``test_s*`` files come last. Any file's
cached time overrides it."""


def file_seconds(config: pytest.Config) -> dict[str, float]:
    """Each test file's last known seconds: the committed seed, then this checkout's cache."""
    seed: dict[str, float] = json.loads(SEED_SECONDS.read_text(encoding="utf-8"))
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    return {**seed, **(cache.get(FILE_SECONDS, {}) if cache is not None else {})}


def file_key(nodeid: str) -> str:
    """The test file a node id names (``tests/test_x.py``)."""
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Any:
    """Auto-mark builds and browser tests before ``-m`` deselects (pytest's own hook runs
    inside this wrapper); 1,000-entry checks run only when asked for (`make test-scale`).
    Then, on what is left (a file whose only build is in another group needs no site):
    ``order_items``."""
    for item in items:
        auto_mark(item)
    if "scale" not in (config.option.markexpr or ""):
        skip = pytest.mark.skip(reason="1,000-entry check: run with `make test-scale`")
        for item in items:
            if item.get_closest_marker("scale"):
                item.add_marker(skip)
    result = yield
    order_items(config, items)
    return result


def order_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need no site run first (file by file, in their order), so the session's site
    builds in the background meanwhile. Then the files that need one, longest first by the
    last runs' times (``FILE_SECONDS``; files without a time last, in their order): two
    workers then finish together rather than one waiting while the other runs a long file it
    was handed last."""
    building = {item.path for item in items if needs_a_site(item)}
    seconds = file_seconds(config)
    items.sort(key=lambda item: (item.path in building,  # stable: keeps each file's order
                                 -seconds.get(file_key(item.nodeid), 0.0) if item.path in building
                                 else 0.0))


_ran: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """(In the controlling process too, which xdist sends every worker's reports.)"""
    key = file_key(report.nodeid)
    _ran[key] = _ran.get(key, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controlling process keeps each file's seconds for the next run's order."""
    config = session.config
    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    if hasattr(config, "workerinput") or cache is None or not _ran:
        return
    cache.set(FILE_SECONDS, {**cache.get(FILE_SECONDS, {}),
                             **{k: round(v, 2) for k, v in _ran.items()}})


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Any:
    """On a fresh checkout one xdist worker collects (compiles) first, alone
    (``conftest_site.first_collector_alone``)."""
    with first_collector_alone(hasattr(session.config, "workerinput")):
        return (yield)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the session's site build once the tests to run are known (after ``-m``)."""
    start_session_site(session.items)


def is_site_build(args: Any) -> bool:
    """Whether a subprocess command line builds or serves a site (MkDocs or Zensical)."""
    argv = [str(a) for a in args] if isinstance(args, list | tuple) else str(args).split()
    if not argv:
        return False
    if Path(argv[0]).name in ("mkdocs", "zensical") and {"build", "serve"} & set(argv[1:2]):
        return True
    return "macros.zensical_build" in argv


@pytest.fixture(autouse=True)
def _builds_only_when_marked(request: pytest.FixtureRequest,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked ``build`` that starts a site build fails, naming the marker to add
    (`make test-fast` must build nothing)."""
    if request.node.get_closest_marker("build"):
        return
    real_popen = subprocess.Popen

    class GuardedPopen(real_popen):  # type: ignore[misc,valid-type]
        def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
            if is_site_build(args):
                pytest.fail(f"{request.node.nodeid} builds a site ({args!r}) but is not marked "
                            "build: add @pytest.mark.build (or use the built_site fixture)")
            super().__init__(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", GuardedPopen)
