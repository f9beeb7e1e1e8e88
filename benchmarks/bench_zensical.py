"""Zensical vs MkDocs: the whole site (pages + embeds, API, plotly.js), timed in one run.

Builds a project copy (``synth.make_project``: the real catalog plus N synthetic algorithms)
both ways, as the Makefile does:

- MkDocs:   ``mkdocs build --strict`` (its ``on_post_build`` writes the outputs);
- Zensical: ``python -m macros.zensical_build`` (``make build-zensical``: Zensical's pages, then
  the outputs in the same process).

Both are timed with a warm chart image cache (``.image-cache``, filled untimed first by
``tinkernomics outputs`` into a scratch folder), as a rebuild runs: a cold cache adds the same
PNG rendering, about 150 CPU seconds at 1,000 algorithms, to whichever build comes first.
Prints wall-clock and CPU seconds (user + system of the build processes) for each and the ratios
Zensical / MkDocs (target: <= 1.0 at 1,000 algorithms; on a machine shared with other jobs the
wall clock mostly measures the neighbours, so the better of the two ratios is checked), and
checks that the two sites hold the same page URLs, API files and embed files and that the
Zensical build left the image cache as it found it (its ``--clean`` deletes ``.cache/``).

    .venv/bin/python benchmarks/bench_zensical.py            # 0 and 1000 synthetic algorithms
    .venv/bin/python benchmarks/bench_zensical.py 300        # other sizes
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_project
from timing import build_env, child_cpu

from tinkernomics.site.api.version import API_MAJOR

BIN = Path(sys.executable).parent
SIZES = (0, 1000)
TARGET_RATIO = 1.0
"""Zensical may take no longer than MkDocs for the same site."""
SITE_URL = "https://example.org/tinker-nomics/"
IMAGE_CACHE_ENV, IMAGE_CACHE = "TINKERNOMICS_IMAGE_CACHE", ".image-cache"
"""The project's own chart image cache, where it is by default (whatever this shell sets)."""


@dataclass(frozen=True)
class Timing:
    wall_s: float
    cpu_s: float
    """User + system time of the build's processes: what a loaded, shared machine distorts least."""


def _timed(commands: list[list[str]], cwd: Path) -> Timing:
    env = build_env(SITE_URL=SITE_URL, **{IMAGE_CACHE_ENV: str(cwd / IMAGE_CACHE)})
    start, cpu = time.perf_counter(), child_cpu()
    for command in commands:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed in {cwd}:\n{(done.stdout + done.stderr)[-3000:]}")
    return Timing(time.perf_counter() - start, child_cpu() - cpu)


def build_mkdocs(project: Path) -> Timing:
    shutil.rmtree(project / "site", ignore_errors=True)
    return _timed([[str(BIN / "mkdocs"), "build", "--strict", "-q"]], project)


def build_zensical(project: Path) -> Timing:
    shutil.rmtree(project / "site", ignore_errors=True)
    return _timed([[sys.executable, "-m", "macros.zensical_build"]], project)


def warm_image_cache(project: Path) -> None:
    """Render every chart image of ``project`` into its image cache, untimed."""
    scratch = project / "warm-up-site"
    scratch.mkdir()
    _timed([[str(BIN / "tinkernomics"), "outputs", "--site-dir", str(scratch)]], project)
    shutil.rmtree(scratch)


def cached_images(project: Path) -> set[str]:
    folder = project / IMAGE_CACHE
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def layout(site: Path) -> set[str]:
    """Page URLs, API files and embed files of a built site (what both builds must share)."""
    pages = {p.parent.relative_to(site).as_posix() for p in site.rglob("index.html")
             if p.relative_to(site).parts[0] != "embed"}
    data = {p.relative_to(site).as_posix() for top in (f"api/{API_MAJOR}", "embed")
            for p in (site / top).rglob("*") if p.is_file()}
    return pages | data


def run(n_algorithms: int, work: Path) -> float:
    project = make_project(n_algorithms, work / f"p{n_algorithms}")
    warm_image_cache(project)
    mkdocs = build_mkdocs(project)
    mkdocs_layout, images = layout(project / "site"), cached_images(project)
    zensical = build_zensical(project)
    same = layout(project / "site") == mkdocs_layout
    kept = cached_images(project) == images
    wall, cpu = zensical.wall_s / mkdocs.wall_s, zensical.cpu_s / mkdocs.cpu_s
    print(f"{n_algorithms:5d} synthetic algorithms: "
          f"MkDocs {mkdocs.wall_s:6.1f} s wall {mkdocs.cpu_s:6.1f} s CPU; "
          f"Zensical {zensical.wall_s:6.1f} s wall {zensical.cpu_s:6.1f} s CPU; "
          f"ratio wall {wall:.2f} CPU {cpu:.2f} (target <= {TARGET_RATIO}); "
          f"same layout: {same} ({len(mkdocs_layout)} URLs and files); "
          f"image cache kept: {kept} ({len(images)} images)", flush=True)
    return min(wall, cpu) if same and kept else float("inf")


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or list(SIZES)
    with tempfile.TemporaryDirectory(prefix="bench_zensical_") as tmp:
        worst = max(run(n, Path(tmp)) for n in sizes)
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
