"""The calculator's reader-facing rules without a browser (issue 31): what an algorithm switch
keeps is declared with the inputs, and every catalog algorithm prices the run a switch leaves
(the default run with that algorithm) with finite numbers. Properties of the catalog, never its
values."""

from __future__ import annotations

import math

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import inputs
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site.calculator.presets import preset_queries


def test_what_a_switch_keeps_is_declared_keys() -> None:
    declared = {i.key: i for i in inputs.INPUTS}
    algorithm = declared["a"]
    assert {"G", "K"} <= set(algorithm.keeps)
    assert not set(algorithm.keeps) & set(algorithm.dependents)
    for i in inputs.INPUTS:
        assert set(i.keeps) <= set(declared), i.key
    # a kept key the new algorithm may not use says when it applies
    assert declared["tm"].when and declared["rc"].when


def test_every_algorithm_prices_the_default_run(catalog: Catalog) -> None:
    """The default run (G and K kept) with each algorithm: tokens, the self-hosted bill,
    GPU-hours and memory are finite numbers, and so is the Tinker bill where the model has a
    row in the list (no algorithm blanks the estimate to '–')."""
    default = preset_queries(catalog)[0]
    for algo in catalog.algorithms:
        e = estimate(catalog, {**default, "a": algo})
        for key in ("tokens.episodes", "tokens.train", "self.total", "self.gpu_hours",
                    "mem.peak", "mem.min_gpus"):
            assert e[key] is not None and math.isfinite(e[key]), (algo, key)
        if e["price.prefill"] is not None:
            assert math.isfinite(e["tinker.total"]), algo
