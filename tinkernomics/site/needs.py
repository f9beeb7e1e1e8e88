"""Entries the site's own code names by id (read by ``tinkernomics validate`` and the build).

The calculator's model names its formulas, hardware and default run; its presets name
algorithms, models and price lists; H100-equivalent hours need their conversion. Delete or
rename one of those files and the catalog is still valid entry by entry, but the build would fail
deep inside a macro. Listed here, ``validate`` reports it first, at the missing file, and the
build refuses the catalog with the same message (``SiteContext.load``).
"""

from __future__ import annotations

from tinkernomics.catalog.rules import Need
from tinkernomics.derived.calculator import ids, inputs
from tinkernomics.derived.derive import DEFAULT_CONVERSION
from tinkernomics.site.calculator.presets import preset_needs


def site_needs() -> list[Need]:
    """(kind, id, what names it) for every entry the site's code names by id."""
    needs: list[Need] = [("formula", fid, "the calculator's cost model")
                         for fid in ids.FORMULA_IDS]
    needs += [
        ("conversion", DEFAULT_CONVERSION, "the H100-equivalent hours shown beside GB200-hours"),
        ("hardware", ids.H800_PEAK_HARDWARE, "the calculator's cost model"),
        ("hardware", inputs.DEFAULT_HARDWARE, "the calculator's default run"),
        ("algorithm", inputs.DEFAULT_ALGORITHM, "the calculator's default run"),
    ]
    return list(dict.fromkeys(needs + preset_needs()))
