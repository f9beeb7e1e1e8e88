"""The live server's messages: a taken port fails in one line and suggests a free one; the error
page lists problems verbatim. (A real `mkdocs serve` through bad saves: test_serve_recovery.py.)
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from tinkernomics.catalog.problems import Problem
from tinkernomics.site.contributing.devserver import (
    error_page_markdown,
    port_in_use,
    port_message,
)
from tinkernomics.site.pages.rawhtml import END as RAW_END
from tinkernomics.site.pages.rawhtml import START as RAW_START

REPO_ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).with_name("mkdocs")


def free_port() -> int:
    """A port nobody listens on (the system's pick, so parallel test workers never share one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_taken_port_fails_in_one_line() -> None:
    port = free_port()
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
    port = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", port))
        message = port_message("127.0.0.1", port)
    assert message is not None
    suggested = int(message.rsplit("PORT=", 1)[1].rstrip("`"))
    assert suggested > port and not port_in_use("127.0.0.1", suggested)
    assert port_message("127.0.0.1", port) is None  # released


def test_error_page_lists_problems_verbatim_and_is_not_jinja() -> None:
    """Escaped HTML put in after templating (the macros adapter's on_post_page_macros), passed
    through Markdown unparsed; no `{% raw %}` a key could close."""
    problems = [Problem("catalog/a.yaml", 3, 1, "notes", "raw HTML <b> and {{ x }}", "hint")]
    text = error_page_markdown(problems)
    assert text.startswith(RAW_START) and text.rstrip().endswith(RAW_END)
    assert "{% raw %}" not in text and "{% endraw %}" not in text
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
