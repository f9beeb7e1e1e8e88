"""The calculator's assumptions, described for readers (pipeline step 5, provenance).

The values are graph quantities (``resources.utilisation``, the memory sizing's KV room
``const.decode_sequences``); this module says where each comes from, for the list of inputs
under an estimate.
"""

from __future__ import annotations

from tinkernomics.catalog.entries import Catalog

PREFILL_INSTEAD = ("No catalog source measures prefill utilisation; DeepSeek-V3's training "
                   "utilisation is the nearest measured figure.")
DECODE_INSTEAD = "No catalog source gives the KV cache an RL sampler reserves per GPU."


def training_mfu(catalog: Catalog) -> float:
    """The graph's ``assumption.mfu_train``, DeepSeek-V3's training utilisation (the same for
    every estimate; the prefill default)."""
    from tinkernomics.derived.calculator.estimate import estimate

    value = estimate(catalog, {}).values["assumption.mfu_train"]
    assert value is not None
    return value
