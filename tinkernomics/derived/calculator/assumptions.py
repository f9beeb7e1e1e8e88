"""The calculator's assumptions, described for readers (pipeline step 5, provenance).

The values are graph quantities (``resources.utilisation``); this module says where each comes
from and how it is obtained, for the list of inputs under an estimate.
"""

from __future__ import annotations

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import ids
from tinkernomics.derived.calculator.constants import inline

PREFILL_INSTEAD = ("No catalog source measures prefill or forward-only utilisation; "
                   "DeepSeek-V3's training utilisation is the nearest measured figure.")
DECODE_INSTEAD = (
    "No catalog source gives a decode batch or a decode utilisation for RL rollouts. "
    "Fireworks' dedicated-deployment defaults imply far lower utilisation for long "
    "multi-turn episodes on large MoE models."
)


def training_mfu(catalog: Catalog) -> float:
    """The graph's ``assumption.mfu_train`` (the same for every estimate)."""
    from tinkernomics.derived.calculator.estimate import estimate

    value = estimate(catalog, {}).values["assumption.mfu_train"]
    assert value is not None
    return value


def _per_param(catalog: Catalog) -> float:
    from tinkernomics.derived.calculator import tree

    value = tree.evaluate(tree.to_tree(inline(catalog, ids.FLOPS_ROLLOUT, P_active="1.0")), {})
    assert value is not None
    return value


def decode_note(catalog: Catalog, hw: m.Hardware) -> str:
    """The decode roofline in words, with this GPU's numbers."""
    seq = derive.format_number(ids.DECODE_SEQUENCES_PER_GPU)
    bandwidth = hw.bandwidth_tb_s.value if hw.bandwidth_tb_s is not None else 0.0
    return (
        f"decode roofline on {hw.name}: {seq} sequences × "
        f"{derive.format_number(_per_param(catalog))} FLOP × P_active ÷ (2 bytes × "
        f"min(P_total, {seq} × P_active)) × {derive.format_number(bandwidth)} TB/s ÷ "
        f"{derive.format_number(hw.bf16_dense_tflops.value, digits=4)} TFLOP/s"
    )
