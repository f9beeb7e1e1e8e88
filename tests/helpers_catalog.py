"""Test helpers for the catalog validator: copy the valid fixture, mutate it, run `validate`.

Invalid-catalog tests start from ``tests/fixtures/valid`` copied into ``tmp_path/catalog``, apply
ONE mutation (replace text in a file, or write a file), run the CLI in-process with
``cwd=tmp_path`` and compare the printed ``path:line:col: field`` prefixes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tinkernomics import cli

FIXTURES = Path(__file__).parent / "fixtures"
VALID_CATALOG = FIXTURES / "valid"
"""A small complete catalog with every kind of entry; it must validate."""

PROBLEM_LINE = re.compile(
    r"^(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<field>[^:]+): (?P<message>.*?)"
    r"(?: \(hint: (?P<hint>.*)\))?$"
)


def copy_valid(tmp_path: Path, name: str = "catalog") -> Path:
    """Copy the valid fixture catalog to ``tmp_path/name``; return the copy's root."""
    root = tmp_path / name
    shutil.copytree(VALID_CATALOG, root)
    return root


def replace_in(root: Path, rel: str, old: str, new: str) -> None:
    """Replace the single occurrence of ``old`` in ``root/rel`` (fails if not exactly one)."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    count = text.count(old)
    assert count == 1, f"{old!r} occurs {count} times in {rel}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def write_file(root: Path, rel: str, content: str | bytes) -> None:
    """Write ``content`` to ``root/rel``, creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


@dataclass(frozen=True)
class Reported:
    """One problem line as printed by `tinkernomics validate`."""

    where: str
    """``path:line:col: field`` exactly as printed."""
    message: str
    hint: str | None


@dataclass(frozen=True)
class Run:
    """Exit code and output of one in-process `tinkernomics validate` run."""

    code: int
    out: str
    err: str

    @property
    def problems(self) -> list[Reported]:
        found = []
        for line in self.out.splitlines():
            match = PROBLEM_LINE.match(line)
            if match:
                where = "{path}:{line}:{col}: {field}".format(**match.groupdict())
                found.append(Reported(where, match["message"], match["hint"]))
        return found

    @property
    def wheres(self) -> list[str]:
        return [p.where for p in self.problems]


@contextlib.contextmanager
def _github_env(enabled: bool) -> Iterator[None]:
    before = os.environ.get("GITHUB_ACTIONS")
    if enabled:
        os.environ["GITHUB_ACTIONS"] = "true"
    else:  # Tests also run inside Actions: never inherit the annotation switch.
        os.environ.pop("GITHUB_ACTIONS", None)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("GITHUB_ACTIONS", None)
        else:
            os.environ["GITHUB_ACTIONS"] = before


def run_validate(cwd: Path, *args: str, github: bool = False) -> Run:
    """Run ``tinkernomics validate *args`` in-process from ``cwd``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), _github_env(github), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        code = cli.main(["validate", *args])
    return Run(code, out.getvalue(), err.getvalue())


def tree_digest(root: Path) -> str:
    """SHA-256 over every file's relative path, bytes and mode under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            digest.update(oct(path.stat().st_mode).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


REAL_CATALOG = FIXTURES.parent.parent / "catalog"


def estimate_reads_the_session_catalog(monkeypatch: Any, catalog: Any) -> None:
    """`tinkernomics estimate` run in-process takes the repository's catalog from ``catalog``
    (the session's, loaded once) instead of loading it again on each call (a fifth of a CPU
    second each): for tests of the command's arguments and output, not of the loading, which
    one call per test file still does for real. Any other folder is loaded as before."""
    from tinkernomics.catalog import loader
    from tinkernomics.site.calculator import estimate_cli

    def load(root: Path, **options: Any) -> Any:
        # the session catalog is the real one, already loaded whole and valid: whatever entries
        # a caller needs (``needs=``, which only adds problems for missing ones) are in it
        if set(options) <= {"needs"} and Path(root).resolve() == REAL_CATALOG:
            return catalog, []
        return loader.load_catalog(root, **options)

    for module in (cli, estimate_cli):
        monkeypatch.setattr(module, "load_catalog", load)
