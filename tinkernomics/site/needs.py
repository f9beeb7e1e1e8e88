"""Entries the site's own code names by id (read by ``tinkernomics validate`` and the build).

The calculator's model names its formulas, hardware and default run; its presets name
algorithms, models and price lists; H100-equivalent hours need their conversion; the default run
and the presets need a price row for their models in the list they price with. Delete or
rename one of those files and the catalog is still valid entry by entry, but the build would fail
deep inside a macro. Listed here, ``validate`` reports it first, at the missing file, and the
build refuses the catalog with the same message (``SiteContext.load``).
"""

from __future__ import annotations

from tinkernomics.catalog.pricelists import PRICE_ROW_NEED
from tinkernomics.catalog.rules import Need
from tinkernomics.derived.calculator import ids, inputs
from tinkernomics.derived.derive import DEFAULT_CONVERSION
from tinkernomics.site.calculator.presets import RUNS, preset_needs


def model_needs() -> list[Need]:
    """(kind, id, what names it) for the entries the cost model itself reads: its formulas,
    the H100-equivalent conversion, its GPUs and the default run's algorithm (``tinkernomics
    estimate`` and ``backtest`` need these, not the site's presets or price rows)."""
    return [
        *[("formula", fid, "the calculator's cost model") for fid in ids.FORMULA_IDS],
        ("conversion", DEFAULT_CONVERSION, "the H100-equivalent hours shown beside GB200-hours"),
        ("hardware", ids.H800_PEAK_HARDWARE, "the calculator's cost model"),
        ("hardware", inputs.DEFAULT_HARDWARE, "the calculator's default run"),
        ("algorithm", inputs.DEFAULT_ALGORITHM, "the calculator's default run"),
    ]


def site_needs() -> list[Need]:
    """(kind, id, what names it) for every entry the site's code names by id."""
    return list(dict.fromkeys(model_needs() + preset_needs() + price_row_needs()))


def price_row_needs() -> list[Need]:
    """The price rows the default run and the presets read: a preset without a pinned list
    prices with the newest, so the newest must carry its models (``catalog/pricelists.py``)."""
    runs = [("the calculator's default run", inputs.DEFAULT_RUN)]
    runs += [(f"the calculator's preset {label!r}", run) for label, run in RUNS]
    found: list[Need] = []
    for who, run in runs:
        pin = f"@{run['price_list']}" if "price_list" in run else ""
        for name in ("model", "teacher"):
            if name in run:
                variant = run.get("variant", "") if name == "model" else ""
                found.append((PRICE_ROW_NEED, f"{run[name]}{variant}{pin}", who))
    return found
