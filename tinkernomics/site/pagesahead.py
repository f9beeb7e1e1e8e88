"""Algorithm pages ahead (pipeline step 6): a one-shot ``mkdocs build`` renders the algorithm
pages' macros from both ends at once, the build's process from the first page and a forked child
from the last, on the machine's other core.

MkDocs fills its pages in file order: the top folder's pages (the API, Data quality, the
algorithms table: the heaviest macros) before ``algorithms/``, whose thousand stubs each call
``algorithm_page`` (``macros/__init__.py``). Those calls depend on the catalog alone, so the
child, forked at ``on_nav`` (every hook before the pages has run), starts on them while the build
is still on the top folder's pages. It renders the stubs last to first and leaves each result in
a file of its own (a private temporary folder, written then renamed, so a file that exists is
whole): the build, reaching a stub, takes the child's file if it is there and renders the page
itself if not, so it never waits. Where the two meet the child's work ends: once the build finds
the child's file for the page after the one it rendered itself, the child is working on pages
already done and is stopped; whatever is left at ``on_env`` (before the outputs step forks,
``site.outputjob``) is stopped there.

A page from the child is the same text the build would render (the same context, forked after
every hook that could change it): the whole site built with and without forks is compared by
``tests/test_outputjob.py``. The child's log records for a page are logged by the build when it
takes the page (so ``--strict`` sees a warning as before); a page the child failed on is rendered
by the build, which then fails with its own traceback.

Forks only where ``site.outputjob`` forks (a one-shot ``mkdocs build``, ``os.fork``, not
``TINKERNOMICS_OUTPUTS_FORK=0``) and on a machine with more than one core.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tinkernomics.site.outputjob import JOB, LogRecords, kill_child, log_only_to

Render = Callable[[str], str]
"""An algorithm id -> its page's Markdown (the bound ``algorithm_page`` macro)."""


def cores() -> int:
    """The cores this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def _child(render: Render, ids: Sequence[str], folder: Path) -> None:
    """Render ``ids`` last to first, one file each, and end without returning to MkDocs (an
    interrupt ends it at once)."""
    status = 1
    try:
        handler = LogRecords()
        log_only_to(handler)
        for index in reversed(range(len(ids))):
            handler.records.clear()
            try:
                report = {"markdown": render(ids[index]), "records": handler.records}
            except Exception:  # the build renders this page itself, and fails with its error
                report = {"error": traceback.format_exc()}
            part = folder / f"{index}.part"
            part.write_text(json.dumps(report), encoding="utf-8")
            part.replace(folder / f"{index}.json")
        status = 0
    finally:
        os._exit(status)


@dataclass
class PagesAhead:
    """One build's child rendering algorithm pages from the last, and what it left."""

    render: Render | None = None
    pid: int = 0
    folder: Path | None = None
    order: dict[str, int] = field(default_factory=dict)
    cleanup_registered: bool = False

    def prepare(self, render: Render | None) -> None:
        """``define_env``: the macro the child will call (only where the outputs step forks;
        None: no child)."""
        self.finish()
        self.render = render if JOB.enabled and cores() > 1 else None

    def start(self, ids: Sequence[str]) -> None:
        """``on_nav``: fork the child over the algorithm pages ``ids``, in the build's order."""
        if self.render is None or self.pid or len(ids) < 2:
            return
        if not self.cleanup_registered:  # an interrupted build leaves no child or folder
            atexit.register(self.finish)
            self.cleanup_registered = True
        self.folder = Path(tempfile.mkdtemp(prefix="tinkernomics-pages-"))
        self.order = {algo_id: index for index, algo_id in enumerate(ids)}
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(self.render, ids, self.folder)
        self.pid = pid

    def take(self, algo_id: str) -> str | None:
        """The page the child rendered for ``algo_id``, its log records logged; None when the
        build must render it (not yet rendered, failed, or no child)."""
        index = self.order.get(algo_id)
        if self.folder is None or index is None:
            return None
        path = self.folder / f"{index}.json"
        if not path.exists():
            if (self.folder / f"{index + 1}.json").exists():
                self._stop_child()  # it is on pages the build has rendered
            return None
        report = json.loads(path.read_text(encoding="utf-8"))
        if "markdown" not in report:
            return None
        for name, level, message in report["records"]:
            logging.getLogger(name).log(level, "%s", message)
        return str(report["markdown"])

    def _stop_child(self) -> None:
        if self.pid:
            kill_child(self.pid)
            self.pid = 0

    def finish(self) -> None:
        """``on_env`` (and a failed build): the child stopped, its files gone."""
        self._stop_child()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        self.folder, self.order = None, {}


AHEAD = PagesAhead()
"""This process's algorithm pages ahead (the macros adapter and MkDocs' hooks share it)."""
