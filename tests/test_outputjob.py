"""The outputs step forked beside the pages (tinkernomics/site/outputjob.py): only a one-shot
`mkdocs build` forks; the child's files, log records and failures reach the build as if the step
had run in it; a failed build's child goes with it. The whole site built both ways is compared
in the last test here (the second build writes its outputs in-process)."""

from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path

import pytest
from conftest_site import BuiltSite
from helpers_site import second_build

from tinkernomics.site import outputjob
from tinkernomics.site.build import OutputError, SiteContext

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _job(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, writer) -> outputjob.OutputJob:
    """A job whose child runs ``writer(site_dir)`` as its outputs step, started."""
    monkeypatch.delenv(outputjob.FORK_ENV, raising=False)
    started: list[bool] = []
    monkeypatch.setattr(outputjob, "start_all_outputs", lambda ctx: started.append(True))
    monkeypatch.setattr(outputjob, "write_all_outputs",
                        lambda ctx, site_dir, skip=(): writer(site_dir, skip))
    job = outputjob.OutputJob()
    job.enable("build")
    assert job.prepare(SiteContext(root=tmp_path, catalog=None))  # type: ignore[arg-type]
    job.start(tmp_path)
    assert not started, "the early work runs in the child, never in the build"
    return job


@pytest.mark.parametrize(("command", "env", "forks"), [
    ("build", None, True), ("serve", None, False), ("gh-deploy", None, False),
    ("build", "0", False), ("build", "1", True)])
def test_only_a_one_shot_build_forks(command: str, env: str | None, forks: bool,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if env is None:
        monkeypatch.delenv(outputjob.FORK_ENV, raising=False)
    else:
        monkeypatch.setenv(outputjob.FORK_ENV, env)
    job = outputjob.OutputJob()
    job.enable(command)
    assert job.enabled is forks
    assert job.prepare(SiteContext(root=Path("."), catalog=None)) is forks  # type: ignore[arg-type]


def test_without_a_fork_nothing_starts_and_the_caller_writes_everything(tmp_path: Path) -> None:
    job = outputjob.OutputJob()
    job.enable("serve")
    job.prepare(SiteContext(root=tmp_path, catalog=None))  # type: ignore[arg-type]
    job.start(tmp_path)
    assert job.join() is False


def test_the_child_writes_the_outputs_but_the_page_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def writer(site_dir: Path, skip: tuple[str, ...]) -> None:
        (site_dir / "api.json").write_text(",".join(skip), encoding="utf-8")

    job = _job(monkeypatch, tmp_path, writer)
    assert job.join() is True
    assert (tmp_path / "api.json").read_text(encoding="utf-8") == ",".join(outputjob.PAGE_PASSES)
    assert job.join() is False, "joined once"


def test_the_childs_log_records_are_logged_by_the_build_under_their_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def writer(site_dir: Path, skip: tuple[str, ...]) -> None:
        logging.getLogger("mkdocs.plugins.x").warning("cache %s is read-only", "<dir>")
        logging.getLogger("tinkernomics.y").info("wrote %d files", 3)
        logging.getLogger("tinkernomics.y").debug("not sent")

    caplog.set_level(logging.INFO, logger="tinkernomics.y")  # as the build sets it, before
    job = _job(monkeypatch, tmp_path, writer)
    job.join()
    got = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert ("mkdocs.plugins.x", logging.WARNING, "cache <dir> is read-only") in got
    assert ("tinkernomics.y", logging.INFO, "wrote 3 files") in got
    assert not any(message == "not sent" for _, _, message in got)


def test_an_output_error_in_the_child_is_the_builds_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def writer(site_dir: Path, skip: tuple[str, ...]) -> None:
        raise OutputError(f"{site_dir}/embed: cannot write the site's charts files (File exists)")

    job = _job(monkeypatch, tmp_path, writer)
    with pytest.raises(OutputError) as err:
        job.join()
    assert str(err.value) == f"{tmp_path}/embed: cannot write the site's charts files (File exists)"


def test_any_other_failure_in_the_child_fails_the_build_with_its_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def writer(site_dir: Path, skip: tuple[str, ...]) -> None:
        raise ValueError("a chart without points")

    job = _job(monkeypatch, tmp_path, writer)
    with pytest.raises(OutputError, match="ValueError: a chart without points"):
        job.join()


def test_a_child_that_dies_without_a_report_fails_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def writer(site_dir: Path, skip: tuple[str, ...]) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    job = _job(monkeypatch, tmp_path, writer)
    with pytest.raises(OutputError, match=f"without a report.*{outputjob.FORK_ENV}=0"):
        job.join()


def test_a_failed_builds_child_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def writer(site_dir: Path, skip: tuple[str, ...]) -> None:
        time.sleep(60)

    job = _job(monkeypatch, tmp_path, writer)
    pid, began = job.pid, time.monotonic()
    job.stop()
    assert time.monotonic() - began < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    assert job.join() is False


@pytest.mark.sweep  # a second whole build (shared with tests/test_site_build.py)
def test_outputs_forked_beside_the_pages_write_the_same_site(built_site: BuiltSite) -> None:
    """Every file of the session's build (outputs forked beside the pages, algorithm pages
    rendered ahead by a child, ``site.pagesahead``) against the second build's (no fork: every
    page and output in-process; ``second_build``): same paths, same bytes."""
    again = second_build().root

    def files(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes()
                for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")}

    first, second = files(built_site.root), files(again)
    assert sorted(first) == sorted(second)
    assert [rel for rel in first if first[rel] != second[rel]] == []
