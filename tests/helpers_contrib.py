"""Helpers for the contributor tests: the scaffold's placeholders, running the CLI (in-process,
or the installed console script as a contributor would)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tinkernomics.site.contributing.fieldsdoc import field_docs

BIN = Path(sys.executable).parent
"""The virtualenv's bin folder: the installed `tinkernomics` and `mkdocs` live here."""


def run_cli(*args: str, cwd: Path,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `tinkernomics` in ``cwd``, as a contributor would."""
    return subprocess.run([str(BIN / "tinkernomics"), *args], cwd=cwd, capture_output=True,
                          text=True, check=False, timeout=300, env=env)


@contextlib.contextmanager
def _environ(env: dict[str, str] | None) -> Iterator[None]:
    """``os.environ`` is exactly ``env`` inside the block (unchanged when ``env`` is None)."""
    if env is None:
        yield
        return
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(before)


def run_cli_in_process(*args: str, cwd: Path,
                       env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``tinkernomics *args`` through ``tinkernomics.cli.main`` in this process, in ``cwd``
    (``env``, if given, is the whole environment, as for :func:`run_cli`): the same result as
    :func:`run_cli` without starting Python and importing the package again (~0.5 s a run)."""
    from tinkernomics import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), _environ(env), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as stop:  # argparse's usage errors
            code = stop.code if isinstance(stop.code, int) else 1
    return subprocess.CompletedProcess(["tinkernomics", *args], code, out.getvalue(),
                                       err.getvalue())


def required_placeholders(model: type[BaseModel], prefix: str = "",
                          units: tuple[str, ...] = ()) -> set[str]:
    """Field paths the scaffold must leave empty, from the model: required leaves, except the
    prefilled id and a figure unit its slot fixes."""
    found: set[str] = set()
    for doc in field_docs(model):
        if not doc.required or doc.name == "id" or (doc.name == "unit" and len(units) == 1):
            continue
        path = f"{prefix}{doc.name}"
        if doc.model is not None:
            inner = f"{path}[0]." if doc.many else f"{path}."
            found |= required_placeholders(doc.model, inner, doc.units)
        else:
            found.add(path)
    return found


def conditional_placeholders(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Field paths the scaffold writes live but empty because a rule requires them in some cases
    (a figure's ``locator`` once its status is ``reported``), inside required blocks only."""
    found: set[str] = set()
    for doc in field_docs(model):
        path = f"{prefix}{doc.name}"
        if doc.required_when:
            found.add(path)
        elif doc.required and doc.model is not None:
            found |= conditional_placeholders(doc.model, f"{path}[0]." if doc.many else f"{path}.")
    return found


def null_leaves(data: Any, prefix: str = "") -> set[str]:
    """Field paths whose value is empty in parsed YAML (what the scaffold left to fill in)."""
    if isinstance(data, dict):
        return {p for k, v in data.items()
                for p in null_leaves(v, f"{prefix}.{k}" if prefix else str(k))}
    if isinstance(data, list):
        return {p for i, v in enumerate(data) for p in null_leaves(v, f"{prefix}[{i}]")}
    return {prefix} if data is None else set()
