"""The suite's own markers: a test that builds is marked ``build`` (by its fixtures, or it fails
when it starts a build unmarked), so `make test-fast` (``-m "not build and not browser"``)
builds nothing and starts no browser."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import BUILD_FIXTURES, is_site_build


@pytest.mark.parametrize(("argv", "builds"), [
    (["/x/.venv/bin/mkdocs", "build", "--strict"], True),
    (["mkdocs", "serve"], True),
    (["zensical", "build", "--clean"], True),
    ([sys.executable, "-m", "macros.zensical_build"], True),
    ("mkdocs build -q", True),
    (["mkdocs", "--version"], False),
    (["make", "-n", "serve"], False),
    (["tinkernomics", "validate"], False),
])
def test_site_builds_are_recognised(argv: list[str] | str, builds: bool) -> None:
    assert is_site_build(argv) is builds


def test_an_unmarked_test_cannot_start_a_build() -> None:
    with pytest.raises(pytest.fail.Exception, match="not marked build"):
        subprocess.run(["mkdocs", "build", "--site-dir", "/nonexistent/never"], check=False)
    assert subprocess.run([sys.executable, "-c", "pass"], check=False).returncode == 0


def test_tests_using_a_build_or_browser_fixture_are_marked(
        request: pytest.FixtureRequest) -> None:
    """Every collected test that uses a building fixture carries ``build``; ``browser``
    likewise (checked over the whole session's items)."""
    unmarked = [item.nodeid for item in request.session.items
                if (set(getattr(item, "fixturenames", ())) & BUILD_FIXTURES
                    and not item.get_closest_marker("build"))
                or ("browser" in getattr(item, "fixturenames", ())
                    and not item.get_closest_marker("browser"))]
    assert unmarked == []


def test_the_session_site_is_built_once_and_waited_for(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two starts (two xdist workers) run one build; a wait returns its log, and a failed
    build fails the waiting test with the build's output."""
    from conftest_site import SHARED_ENV, SessionSite

    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    count = tmp_path / "count"
    build = [sys.executable, "-c",
             f"import pathlib; p = pathlib.Path({str(count)!r}); "
             "p.write_text(str(int(p.read_text()) + 1) if p.exists() else '1'); "
             "print('built')"]
    SessionSite(build).start()
    SessionSite(build).start()
    site = SessionSite(build).wait()
    assert site.log.strip() == "built" and count.read_text() == "1"

    monkeypatch.setenv(SHARED_ENV, str(tmp_path / "again"))
    failing = [sys.executable, "-c", "import sys; print('no such page'); sys.exit(1)"]
    with pytest.raises(AssertionError, match="no such page"):
        SessionSite(failing).wait()


def test_tests_that_need_no_site_run_first(request: pytest.FixtureRequest) -> None:
    """The session's build runs in the background while the tests that need none run."""
    items = request.session.items
    building = {item.path for item in items if item.get_closest_marker("build")}
    order = [item.path in building for item in items]
    assert order == sorted(order)


def test_on_a_cold_checkout_one_worker_collects_before_the_others(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The first worker to collect holds the others back until it is done (they then read
    what it compiled); once it is, the others collect side by side; a warm checkout, or a
    process that is no xdist worker, never waits."""
    import threading

    import conftest_site
    from conftest_site import SHARED_ENV, first_collector_alone

    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    monkeypatch.setattr(conftest_site, "cold_checkout", lambda: True)
    events: list[str] = []

    def second() -> None:
        with first_collector_alone(True):
            events.append("second collects")

    with first_collector_alone(True):
        other = threading.Thread(target=second)
        other.start()
        other.join(0.5)
        events.append("first done")
    other.join(10)
    assert events == ["first done", "second collects"]
    with first_collector_alone(True), first_collector_alone(True):  # both at once: no wait
        pass
    monkeypatch.setenv(SHARED_ENV, str(tmp_path / "warm"))
    (tmp_path / "warm").mkdir()
    monkeypatch.setattr(conftest_site, "cold_checkout", lambda: False)
    with first_collector_alone(True), first_collector_alone(True):
        pass
    monkeypatch.setattr(conftest_site, "cold_checkout", lambda: True)
    with first_collector_alone(False), first_collector_alone(False):
        pass


@pytest.mark.parametrize(("args", "builds"), [
    ([], True),
    (["-m", "sweep"], True),
    (["-m", "not build and not browser"], False),
    (["-k", "charts"], False),
    (["tests/test_charts.py"], False),
    (["--collect-only"], False),
    (["-p", "no:xdist"], False),
])
def test_the_whole_suite_starts_its_build_before_collecting(args: list[str],
                                                            builds: bool) -> None:
    """`make test` (the whole suite on xdist workers) starts the session's build at once;
    a run of some tests, a run that builds nothing or one without workers does not."""
    from conftest import whole_suite_with_builds

    xdist = [] if "no:xdist" in args else ["-n", "2"]
    config = pytest.Config.fromdictargs({}, [*xdist, *args])
    config.args_source = (pytest.Config.ArgsSource.ARGS if any(a.startswith("tests/")
                                                                 for a in args)
                          else pytest.Config.ArgsSource.TESTPATHS)
    assert whole_suite_with_builds(config) is builds
