"""The calculator's assumptions, described for readers (pipeline step 5, provenance).

The values are graph quantities (``resources.utilisation``); this module says where each comes
from and how it is obtained, for the list of inputs under an estimate.
"""

from __future__ import annotations

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status
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


def assumption_figures(catalog: Catalog) -> list:  # type: ignore[type-arg]
    """Training and prefill utilisation, and the decode batch, as listed input figures."""
    from tinkernomics.derived.calculator.figures import InputFigure

    value = training_mfu(catalog)
    peak = catalog.hardware[ids.H800_PEAK_HARDWARE].bf16_dense_tflops.value
    percent = derive.format_number(value * ids.PERCENT)
    return [
        InputFigure(
            "assumption:mfu_train", "Training utilisation (MFU)", f"{percent}%",
            Status.derived, "deepseek_v3",
            derivation=f"6 × 37B active × 14.8T tokens ÷ (2.788M H800-hours × 3,600 s × "
                       f"{derive.format_number(peak, digits=4)} TFLOP/s) ≈ {percent}%"),
        InputFigure(
            "assumption:mfu_prefill", "Prefill and scoring utilisation (MFU)", f"{percent}%",
            Status.unverified, "deepseek_v3", PREFILL_INSTEAD,
            "the training utilisation, reused: prompt processing and log-prob scoring are "
            "large compute-bound matrix products like the training forward pass"),
        InputFigure(
            "assumption:decode_sequences", "Sequences decoded at once per GPU",
            derive.format_number(ids.DECODE_SEQUENCES_PER_GPU), Status.unverified, None,
            DECODE_INSTEAD,
            "assumed here: a modest continuous-batching decode batch; more sequences at once "
            "raise decode utilisation, long contexts (KV-cache reads) lower it"),
    ]
