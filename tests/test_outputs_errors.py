"""The outputs step (files written after the pages) fails in one line naming the path, what failed
and what to do when it cannot write into the site folder: never a traceback."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from helpers_contrib import run_cli_in_process

from tinkernomics.site import build
from tinkernomics.site.build import OutputError, write_all_outputs
from tinkernomics.site.charts.feature import CHART_IMAGES_ENV

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # synth
from synth import copy_project, keep_algorithms

MKDOCS = Path(sys.executable).with_name("mkdocs")


def failing_feature(err: OSError) -> types.ModuleType:
    module = types.ModuleType("tinkernomics.site.api.feature")

    def write_outputs(ctx: object, site_dir: Path) -> None:
        raise err

    module.write_outputs = write_outputs  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize(("code", "strerror", "todo"), [
    (errno.ENOSPC, "No space left on device", "free some disk space, then build again"),
    (errno.EROFS, "Read-only file system", "writable, or build into another folder"),
    (errno.EACCES, "Permission denied", "writable, or build into another folder"),
])
def test_a_full_or_read_only_site_folder_is_one_line(tmp_path: Path, monkeypatch,
                                                     code: int, strerror: str, todo: str) -> None:
    target = tmp_path / "site" / "api" / "v2" / "index.json"
    monkeypatch.setattr(build, "feature_modules",
                        lambda: [failing_feature(OSError(code, strerror, str(target)))])
    with pytest.raises(OutputError) as caught:
        write_all_outputs(None, tmp_path / "site")  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{target}: cannot write the site's api files ({strerror}): ")
    assert todo in message


def test_outputs_into_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    done = run_cli_in_process("outputs", "--site-dir", str(tmp_path / "none"),
                              cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 1
    assert done.stderr.strip() == f"{tmp_path / 'none'}: no built site here (build the pages " \
                                  "first)"


@pytest.mark.build
@pytest.mark.sweep  # a failure path of the build's tooling: .ci/run's group
def test_a_build_whose_outputs_cannot_be_written_fails_in_one_line(tmp_path: Path) -> None:
    """A real file system error: a static file where the calculator writes its folder. The
    build draws no chart image (nothing here looks at one) and keeps only the algorithms the
    site's own code names (the catalog's size is not the point)."""
    project = keep_algorithms(copy_project(tmp_path / "project"), ())
    (project / "docs" / "calculator").mkdir()
    (project / "docs" / "calculator" / "algorithms").write_text("in the way\n")
    env = {k: v for k, v in os.environ.items() if k != "TINKERNOMICS_CATALOG"}
    env.update({"NO_MKDOCS_2_WARNING": "1", CHART_IMAGES_ENV: "0"})
    site = tmp_path / "site"
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(site)],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    log = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Traceback" not in log, log[-3000:]
    [line] = [ln for ln in log.splitlines() if "cannot write the site's" in ln]
    assert f"{site / 'calculator' / 'algorithms'}: cannot write the site's calculator " \
           "files (" in line
    assert "remove or fix what is at that path" in line
