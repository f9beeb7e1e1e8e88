"""The probe's validate-only and live-server cases (``probe_hostile.py``).

Each ``probe_payloads.YAML_CASES`` case edits one file of a copy of the base project's catalog
(a key's line replaced, or text appended) and runs ``tinkernomics validate`` with a time and a
memory budget. The keys that carry template syntax are then put into one copy served by
``mkdocs serve`` (the README's ``make serve``), whose error page shows validate's messages:
their numbers must never appear evaluated (``probe_payloads.evaluated``).
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from probe_catalog import BIN, _env, located, validate
from probe_payloads import SERVE_KEYS, YAML_CASES, evaluated

EXECUTED, REJECTED, ACCEPTED, NEUTRALISED, UNJUDGED = (
    "executed", "rejected", "accepted", "neutralised", "unjudged")
VALIDATE_BUDGET_S = 30.0
"""Past this, validate is stopped: a bomb that runs this long has done its harm."""
SLOW_S = 10.0
"""A validate this slow on a small catalog is a denial of service even if it ends."""
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|^::", re.M)
"""What validate must never print raw: a terminal escape, NUL, a CI workflow command."""
SERVE_BUDGET_S = 180.0
TEMPLATE_ERROR = re.compile(r"Macro Syntax Error|TemplateSyntaxError|UndefinedError")
"""The log of a server that parsed catalog text as a template and failed on it."""


def apply(catalog: Path, rel: str, key: str, text: str) -> None:
    """Put ``text`` in ``catalog/rel``: in place of top-level ``key`` (its line and the indented
    lines under it), or at the end."""
    path = catalog / rel
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next((i for i, line in enumerate(lines) if key and line.startswith(f"{key}:")), None)
    if at is None:
        lines += [text, ""]
    else:
        end = at + 1
        while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end]):
            end += 1
        lines[at:end] = [text]
    path.write_text("\n".join(lines), encoding="utf-8", newline="")


def judge(code: int | None, out: str, seconds: float, rel: str) -> tuple[str, str]:
    if code is None:
        return EXECUTED, f"validate stopped at the budget ({VALIDATE_BUDGET_S:.0f} s / memory)"
    if RAW_CONTROL.search(out):
        return EXECUTED, "validate printed a raw control character or workflow command"
    if seconds > SLOW_S:
        return EXECUTED, f"validate took {seconds:.1f} s"
    if code == 0:
        return ACCEPTED, "validate: catalog OK"
    lines = sorted(line for f, line in located(out) if f == rel)
    where = f"catalog/{rel}:{lines[0]}" if lines else "elsewhere: " + out.strip()[:120]
    return REJECTED, where


def yaml_cases(base: Path, work: Path) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for name, (rel, key, text) in YAML_CASES.items():
        project = work / f"yaml-{name}"
        shutil.copytree(base, project)
        if not (project / "catalog" / rel).exists():
            out[name] = (UNJUDGED, f"no {rel} in the catalog")
            continue
        apply(project / "catalog", rel, key, text)
        code, output, seconds = validate(project, timeout=VALIDATE_BUDGET_S)
        out[name] = judge(code, output, seconds, rel)
        shutil.rmtree(project)
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.read().decode("utf-8", "replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def served_page(project: Path, log: Path) -> str | None:
    """The home page as ``mkdocs serve`` answers it for ``project`` (None: it never did)."""
    port = _free_port()
    with log.open("w") as sink:
        proc = subprocess.Popen([str(BIN / "mkdocs"), "serve", "--dev-addr", f"127.0.0.1:{port}"],
                                cwd=project, env=_env(None), stdout=sink,
                                stderr=subprocess.STDOUT)
    try:
        start = time.monotonic()
        while time.monotonic() - start < SERVE_BUDGET_S and proc.poll() is None:
            text = _get(f"http://127.0.0.1:{port}/")
            if text:
                return text
            time.sleep(1)
        return None
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def serve_cases(base: Path, work: Path) -> dict[str, tuple[str, str]]:
    project = work / "serve"
    shutil.copytree(base, project)
    for name in SERVE_KEYS:
        rel, key, text = YAML_CASES[name]
        apply(project / "catalog", rel, key, text)
    page = served_page(project, work / "serve.log")
    log = (work / "serve.log").read_text(encoding="utf-8", errors="replace")
    out: dict[str, tuple[str, str]] = {}
    for name in SERVE_KEYS:
        number = int(re.findall(r"\{\{ (\d+) \*", YAML_CASES[name][2])[0])
        if page is not None and evaluated(number) in page:
            out[name] = (EXECUTED, "the served page shows the template evaluated")
        elif page is None and TEMPLATE_ERROR.search(log) and str(number) in log:
            out[name] = (EXECUTED, "catalog text was parsed as a template: the server stopped")
        elif page is None:
            out[name] = (UNJUDGED, "mkdocs serve never answered (see serve.log)")
        elif str(number) in page:
            out[name] = (NEUTRALISED, "the served page shows the key as text")
        else:
            out[name] = (UNJUDGED, "the served page does not show the key")
    shutil.rmtree(project)
    return out
