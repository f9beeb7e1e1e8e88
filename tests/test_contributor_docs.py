"""The newcomer's docs: README leads to CONTRIBUTING.md and the scaffold, commands are shown as
users run them, `make help` lists every target, and setup uses no deprecated metadata."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TARGET = re.compile(r"^([a-zA-Z][a-zA-Z_-]*):", re.MULTILINE)
SHELL_BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def make(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def test_readme_links_contributing_and_shows_the_scaffold() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "](CONTRIBUTING.md)" in readme
    assert "make new KIND=algorithm ID=" in readme
    assert "make find Q=" in readme


def test_shell_examples_run_commands_as_users_do() -> None:
    """A bare `tinkernomics ...` line fails for a newcomer: the command lives in .venv/bin."""
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (REPO_ROOT / name).read_text(encoding="utf-8")
        for block in SHELL_BLOCK.findall(text):
            for line in block.splitlines():
                command = line.strip()
                assert not command.startswith("tinkernomics "), (name, command)
        assert not re.search(r"(?<![/\w])`tinkernomics (new|validate|find|schema)", text), name


def test_make_help_lists_every_target() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(TARGET.findall(makefile))
    done = make("help")
    assert done.returncode == 0, done.stderr
    listed = set(re.findall(r"^  make (\S+)", done.stdout, re.MULTILINE))
    assert targets and targets == listed, (targets - listed, listed - targets)


def test_make_new_scaffolds_an_algorithm(tmp_path: Path) -> None:
    for name in ("catalog", "docs"):
        shutil.copytree(REPO_ROOT / "tests" / "fixtures" / "valid" if name == "catalog"
                        else REPO_ROOT / name, tmp_path / name)
    # -o setup: use this checkout's .venv as it is (never reinstall it from tmp_path)
    done = make("-o", "setup", "-f", str(REPO_ROOT / "Makefile"), "new", "KIND=algorithm",
                "ID=zz_new_algo", f"VENV={REPO_ROOT / '.venv'}", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "catalog" / "algorithms" / "zz_new_algo.yaml").is_file()
    assert (tmp_path / "docs" / "algorithms" / "zz_new_algo.md").is_file()
    usage = make("-o", "setup", "-f", str(REPO_ROOT / "Makefile"), "new",
                 f"VENV={REPO_ROOT / '.venv'}", cwd=tmp_path)
    assert usage.returncode != 0 and "usage: make new KIND=algorithm ID=rloo" in usage.stderr


def test_project_metadata_uses_an_spdx_license_string() -> None:
    """setuptools deprecates `project.license` as a TOML table (warned on every install)."""
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert isinstance(data["project"]["license"], str)
    floor = next(r for r in data["build-system"]["requires"] if r.startswith("setuptools"))
    assert int(re.search(r">=(\d+)", floor).group(1)) >= 77  # type: ignore[union-attr]
