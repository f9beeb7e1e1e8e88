"""A reader who pipes a command into ``head`` closes the pipe early: the command stops quietly
with the shell's status for it (141), never a Python traceback on the terminal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CATALOG = str(Path(__file__).resolve().parent.parent / "catalog")


def _with_reader_gone(*args: str) -> tuple[int, str]:
    proc = subprocess.Popen([sys.executable, "-m", "tinkernomics.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader leaves before the first line
    err = proc.stderr.read()
    return proc.wait(timeout=120), err


def test_closed_pipe_is_quiet() -> None:
    status, err = _with_reader_gone("estimate", CATALOG)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert status == 141


def test_open_pipe_is_unchanged() -> None:
    done = subprocess.run([sys.executable, "-m", "tinkernomics.cli", "estimate", CATALOG],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "self.gpu_hours" in done.stdout
