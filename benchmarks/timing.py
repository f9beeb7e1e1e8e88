"""Shared by the build benchmarks: the environment a measured build runs in, and child CPU time.

CPU seconds of the build processes (user + system, from ``getrusage(RUSAGE_CHILDREN)``) are what
a loaded, shared machine distorts least; wall time is reported beside them.
"""

from __future__ import annotations

import os
import resource

CATALOG_ENV = "TINKERNOMICS_CATALOG"


def build_env(**extra: str) -> dict[str, str]:
    """This process's environment for a build: no catalog override, no MkDocs 2 banner."""
    env = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    env.update(NO_MKDOCS_2_WARNING="1", **extra)
    return env


def child_cpu() -> float:
    """CPU seconds used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
