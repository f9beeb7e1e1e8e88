"""A process that built a site exits without a last garbage collection over everything the
build held (``site.build.skip_exit_collection``; issue 47: about a second of CPU at 1,000
algorithms)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import atexit, gc, sys
from pathlib import Path
from tinkernomics.site import build as sitebuild

def load(root, site_url="", theme=sitebuild.NO_THEME):
    return sitebuild.SiteContext(root=root, catalog=None, site_url=site_url, theme=theme)

sitebuild.SiteContext.load = staticmethod(load)
sitebuild.all_macros = lambda ctx: {}
# registered first, so it runs last: after the build's own exit hook
atexit.register(lambda: print("frozen", gc.get_freeze_count() > 0, flush=True))
sitebuild.shared_site(Path(sys.argv[1]))
sitebuild.shared_site(Path(sys.argv[1]))
"""


def test_a_build_process_skips_the_last_collection(tmp_path: Path) -> None:
    (tmp_path / "catalog").mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.split() == ["frozen", "True"]
