"""The outputs step beside the pages (pipeline step 6; issue 47): a one-shot ``mkdocs build``
writes the files that need no page (chart embeds and images, the API, the calculator's and
compare's files) in a forked child while MkDocs renders the pages, on the machine's other core.

What a contributor waits for is the wall-clock of a rebuild. Those files come from the catalog
alone (``tinkernomics outputs`` writes them for any generator, after it), so nothing in them waits
for a page; at 1,000 algorithms they are some 2.4 CPU-seconds that ran after every page, alone.
The passes over finished pages (``PAGE_PASSES``: dates, policy, theme files, the bundle) still run
after the pages, in the build's own process, once the child is done: they read what it wrote.

The child is forked from the build at ``on_env``: after the clean (the in-place rebuild's
restored files are there to be written over, ``postbuild.inplace``) and after every page's
Markdown and macros, so what the pages computed and the outputs reuse (the API's files, the
charts, the compare columns, in ``SiteContext.extra``) is the child's already; MkDocs then
renders the pages' templates, indexes them for search and finishes them while the child writes.
The child starts the features' early work itself (``start_all_outputs``: the chart images'
worker threads exist only in the child, never across the fork; on a cold image cache they start
after the pages' Markdown, not before), writes, and
reports through a pipe: the log records the step made, re-logged by the build under their own
logger names and levels (so ``--strict`` sees a warning as before), and an ``OutputError``'s one
line or, for anything else, the child's traceback. The build fails with that message.

Only ``mkdocs build`` forks (``OutputJob.enable``): ``mkdocs serve`` runs threads (the reload
server, the watcher) that a fork would leave half-copied, so it writes the outputs after the pages
as before, in the same process; so does any build whose ``on_startup`` never ran, a platform
without ``fork``, and a build with ``TINKERNOMICS_OUTPUTS_FORK=0``.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from tinkernomics.site.build import (
    OutputError,
    SiteContext,
    start_all_outputs,
    write_all_outputs,
)

PAGE_PASSES = ("tinkernomics.site.postbuild.feature",)
"""Features whose outputs read the finished pages: written after the pages, never forked."""
FORK_ENV = "TINKERNOMICS_OUTPUTS_FORK"
"""``0`` writes every output after the pages, in the build's process."""


class LogRecords(logging.Handler):
    """The child's log records, kept to be sent to the build (INFO and above)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.name, record.levelno, record.getMessage()))


def log_only_to(handler: logging.Handler) -> None:
    """Every record of the child reaches ``handler`` alone: the build prints it, once."""
    for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            logger.handlers = []
    logging.getLogger().addHandler(handler)


def kill_child(pid: int) -> None:
    """Stop a forked child and reap it (gone already: nothing to do)."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _child(ctx: SiteContext, site_dir: Path, out: int) -> None:
    """Write the outputs that need no page, report, and end without returning to MkDocs."""
    status, error, handler = 0, "", LogRecords()
    try:
        log_only_to(handler)
        start_all_outputs(ctx)
        write_all_outputs(ctx, site_dir, skip=PAGE_PASSES)
    except OutputError as err:
        status, error = 1, str(err)
    except BaseException:
        status, error = 1, traceback.format_exc()
    try:
        _write_all(out, json.dumps({"records": handler.records, "error": error}).encode())
    finally:
        os._exit(status)


@dataclass
class OutputJob:
    """One process's outputs step: whether it forks, and the running child."""

    enabled: bool = False
    ctx: SiteContext | None = None
    pid: int = 0
    pipe: int = -1
    forked: bool = False

    def enable(self, command: str) -> None:
        """``on_startup``: only a one-shot ``mkdocs build`` forks (see the module docstring)."""
        self.enabled = (command == "build" and hasattr(os, "fork")
                        and os.environ.get(FORK_ENV, "1") != "0")

    def prepare(self, ctx: SiteContext) -> bool:
        """The build's context (``define_env``); True when the child will start the early
        work, False when the caller must (no fork)."""
        self.ctx, self.forked = ctx, False
        return self.enabled

    def start(self, site_dir: Path) -> None:
        """``on_env``: fork the child that writes the outputs needing no page."""
        if not self.enabled or self.ctx is None or self.forked:
            return
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _child(self.ctx, site_dir, write)
        os.close(write)
        self.pid, self.pipe, self.forked = pid, read, True

    def join(self) -> bool:
        """``on_post_build``: wait for the child, re-log its records, raise its failure as
        ``OutputError``; whether a child wrote the outputs needing no page."""
        if not self.forked:
            return False
        chunks = []
        while chunk := os.read(self.pipe, 1 << 16):
            chunks.append(chunk)
        os.close(self.pipe)
        _, status = os.waitpid(self.pid, 0)
        self.forked, self.ctx = False, None
        report = json.loads(b"".join(chunks) or b"{}")
        for name, level, message in report.get("records", []):
            logging.getLogger(name).log(level, "%s", message)
        if report.get("error"):
            raise OutputError(str(report["error"]).rstrip())
        if status != 0:
            raise OutputError(f"the outputs step ended without a report (status {status}): "
                              "build again; if it recurs, build with "
                              f"{FORK_ENV}=0 to see its traceback")
        return True

    def stop(self) -> None:
        """``on_build_error``: a failed build's child goes too."""
        if self.forked:
            kill_child(self.pid)
            os.close(self.pipe)
        self.forked, self.ctx = False, None


JOB = OutputJob()
"""This process's outputs step (MkDocs' hooks and the macros adapter share it)."""
