"""The site's page addresses (pipeline step 6): where each page is, as site-relative paths.

A leaf of the site layer: the pages, the API (an algorithm's ``page``), the kinds' declarations
(``site.kinds``) and the reserved names all read the same paths here.
"""

from __future__ import annotations

import re

HOME = ""
ALGORITHMS = "algorithms/"
FORMULAS = "formulas/"
HARDWARE = "hardware/"
TINKER = "tinker/"
REFERENCES = "references/"
FURTHER_READING = "further-reading/"
DATA_QUALITY = "data-quality/"
WAYS = "ways/"
BACKTEST = "backtest/"
"""Site-relative page paths (``use_directory_urls: true``); docs/<path>.md renders to each
(``WAYS``, the Ways to run page, is ``tinkernomics.site.ways``'s docs/ways.md; ``BACKTEST``, the
Back-test page, the calculator feature's docs/backtest.md)."""


def algorithm_path(algo_id: str) -> str:
    return f"{ALGORITHMS}{algo_id}/"


def backtest_anchor(run_id: str) -> str:
    """The element id of a published run's section on the Back-test page."""
    return f"backtest-{run_id}"


def slug(text: str) -> str:
    """``text`` as an element id or path part: lower case, runs of other characters as ``-``."""
    return re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-")
