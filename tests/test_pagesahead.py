"""Algorithm pages rendered ahead by a forked child (tinkernomics/site/pagesahead.py): the build
takes what the child left and renders the rest itself, never waiting; the child's log records
are the build's; a page the child failed on is the build's to render; the child stops where the
two meet and is gone, with its folder, when the build moves on. Forks only where the outputs step
forks, on more than one core. The whole site built with and without forks is compared in
tests/test_outputjob.py."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tinkernomics.site import pagesahead
from tinkernomics.site.outputjob import JOB

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

IDS = ["alpha", "beta", "gamma", "delta"]


@pytest.fixture
def ahead(monkeypatch: pytest.MonkeyPatch) -> Iterator[pagesahead.PagesAhead]:
    """A fresh instance where the outputs step forks, on two cores; stopped after the test."""
    monkeypatch.setattr(JOB, "enabled", True)
    monkeypatch.setattr(pagesahead, "cores", lambda: 2)
    job = pagesahead.PagesAhead()
    yield job
    job.finish()


def _wait_for(folder: Path, index: int, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not (folder / f"{index}.json").exists():
        assert time.monotonic() < deadline, f"the child never wrote page {index}"
        time.sleep(0.01)


def _started(job: pagesahead.PagesAhead, render: Callable[[str], str]) -> Path:
    job.prepare(render)
    job.start(IDS)
    assert job.pid and job.folder is not None
    return job.folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_build_takes_the_pages_the_child_rendered(ahead: pagesahead.PagesAhead) -> None:
    folder = _started(ahead, lambda algo_id: f"# {algo_id.title()}\n\nrendered for {algo_id}\n")
    _wait_for(folder, 0)  # the child goes last to first: page 0 is its last
    assert [ahead.take(i) for i in IDS] == [f"# {i.title()}\n\nrendered for {i}\n" for i in IDS]
    assert ahead.take("not-a-stub-page") is None


def test_the_childs_records_are_logged_by_the_build(
        ahead: pagesahead.PagesAhead, caplog: pytest.LogCaptureFixture) -> None:
    def render(algo_id: str) -> str:
        logging.getLogger("mkdocs.plugins.tn").warning("page %s: a warning", algo_id)
        return algo_id

    folder = _started(ahead, render)
    _wait_for(folder, 0)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        assert ahead.take("gamma") == "gamma"
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("mkdocs.plugins.tn", logging.WARNING, "page gamma: a warning")]


def test_a_page_the_child_failed_on_is_the_builds_to_render(ahead: pagesahead.PagesAhead) -> None:
    def render(algo_id: str) -> str:
        if algo_id == "beta":
            raise ValueError("no such thing")
        return algo_id

    folder = _started(ahead, render)
    _wait_for(folder, 0)
    assert [ahead.take(i) for i in IDS] == ["alpha", None, "gamma", "delta"]


def test_an_interrupt_ends_the_child_at_once(ahead: pagesahead.PagesAhead) -> None:
    def render(algo_id: str) -> str:
        if algo_id == "delta":  # its first page: Ctrl-C reaches the child too
            raise KeyboardInterrupt
        return algo_id

    folder = _started(ahead, render)
    _, status = os.waitpid(ahead.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 1
    assert list(folder.iterdir()) == []


def test_an_interrupted_build_stops_the_child_and_removes_its_folder_at_exit(
        ahead: pagesahead.PagesAhead, monkeypatch: pytest.MonkeyPatch) -> None:
    at_exit: list[Callable[[], None]] = []
    monkeypatch.setattr(pagesahead.atexit, "register", at_exit.append)
    folder = _started(ahead, lambda algo_id: time.sleep(5) or algo_id)
    pid = ahead.pid
    assert at_exit == [ahead.finish]
    at_exit[0]()
    assert not _alive(pid) and not folder.exists()


def test_the_child_stops_where_the_build_meets_it(ahead: pagesahead.PagesAhead) -> None:
    def slow(algo_id: str) -> str:
        time.sleep(0.5)
        return algo_id

    folder = _started(ahead, slow)
    pid = ahead.pid
    _wait_for(folder, 2)  # delta and gamma done: the child is on beta for half a second
    assert ahead.take("alpha") is None and ahead.pid == pid  # beta not there yet: it goes on
    assert ahead.take("beta") is None  # the build renders beta; the child's next is done
    assert ahead.pid == 0 and not _alive(pid)


def test_the_build_never_waits_for_a_page(ahead: pagesahead.PagesAhead) -> None:
    folder = _started(ahead, lambda algo_id: time.sleep(5) or algo_id)
    began = time.monotonic()
    assert ahead.take("alpha") is None and ahead.take("beta") is None
    assert time.monotonic() - began < 1
    assert not (folder / "3.json").exists()


def test_finish_stops_the_child_and_removes_its_folder(ahead: pagesahead.PagesAhead) -> None:
    folder = _started(ahead, lambda algo_id: time.sleep(5) or algo_id)
    pid = ahead.pid
    ahead.finish()
    assert ahead.pid == 0 and not _alive(pid) and not folder.exists()
    assert ahead.take("alpha") is None


@pytest.mark.parametrize(("enabled", "cores"), [(False, 2), (True, 1)])
def test_no_child_where_the_outputs_do_not_fork_or_on_one_core(
        monkeypatch: pytest.MonkeyPatch, enabled: bool, cores: int) -> None:
    monkeypatch.setattr(JOB, "enabled", enabled)
    monkeypatch.setattr(pagesahead, "cores", lambda: cores)
    job = pagesahead.PagesAhead()
    job.prepare(lambda algo_id: algo_id)
    job.start(IDS)
    assert job.pid == 0 and job.folder is None and job.take("alpha") is None
