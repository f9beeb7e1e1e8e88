"""The range the calculator states beside a self-hosted figure (pipeline step 5, back-test).

The back-test (``backtest.py``) sets every published run's estimate beside what it used; the
calculator's range is the middle ``INNER`` of those ratios, the ``LOW`` to ``HIGH`` percentile
(linear interpolation between the sorted ratios at rank q × (n − 1), numpy's default), not
their extremes: one run whose own source is inconsistent (or mis-entered) would otherwise set
the range for every estimate. ``backtest.summary`` takes both; the rule is general (no run is
named), the page and the CLI state it (``RULE``), and the Back-test page still shows the lowest
and highest ratio.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

LOW, HIGH = 0.1, 0.9
"""The percentiles of the ratios the range runs between."""
INNER = HIGH - LOW
RULE = ("the middle 80% of the published runs (10th to 90th percentile of their "
        "estimate ÷ actual)")
"""The rule, in words, for the page and the CLI."""


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``: linear between the sorted values at rank
    q × (n − 1)."""
    if not values or not 0.0 <= q <= 1.0:
        raise ValueError(f"percentile of {len(values)} values at {q}")
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    below = math.floor(rank)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (rank - below)


def inner(values: Sequence[float]) -> tuple[float, float]:
    """The range of ``values`` the calculator states: their ``LOW`` to ``HIGH`` percentile."""
    return percentile(values, LOW), percentile(values, HIGH)
