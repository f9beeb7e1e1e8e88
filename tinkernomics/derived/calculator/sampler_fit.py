"""Whether a sampler engine holds the policy's weights (pipeline step 5, beside ``timing``).

A sampler engine (vLLM, SGLang) keeps the whole policy, in bf16, in the memory of the GPUs it
spans (its tensor-parallel group, ``tp``), and its KV cache in what its memory share leaves
(``timing``'s ``kv_room``). The time model's ``tp`` is the reader's ``rtp`` or ``auto_tp``,
never more than the GPUs that sample: an engine cannot span GPUs the run does not have. An
online run whose engine has no room left after its weights (``kv_room`` 0: 140 GB of
Llama-3.1-70B on one 80 GB GPU) cannot decode, so the time model does not price it: its step,
hours and GPU-hours are missing (``gated``), the calculator says why, and ``tinkernomics
estimate`` refuses it with the fewest GPUs an engine needs (``engine_gpus``: the weights over
one GPU's memory share, before any cache). Without the reader's GPU count, an online run gets
at least those (``timing``'s ``gpus``).
"""

from __future__ import annotations

from tinkernomics.derived.calculator.graph import Quantity


def tp(p: str, c: str, mem: str) -> str:
    """The GPUs a sampler engine spans: the reader's ``rtp``, else ``auto_tp``, at most the
    GPUs that sample."""
    return f"coalesce(set.rollout_tp, min({p}.rollout_gpus, {auto_tp(p, c, mem)}))"


def auto_tp(p: str, c: str, mem: str) -> str:
    """The GPUs an engine spans when the reader does not say: the fewest whose memory the
    weights fill to at most ``WEIGHT_SHARE``; if that leaves no room in the memory share the
    engine may use (``mem_util`` at or below ``WEIGHT_SHARE``: a colocated engine at 0.3), the
    fewest whose share the weights fill to at most ``WEIGHT_SHARE``, so it still has a cache."""
    base = f"ceil({p}.weights / ({c}.weight_share * {mem}))"
    small = f"ceil({p}.weights / ({c}.weight_share * {p}.mem_util * {mem}))"
    return (f"max(1.0, {base} if {p}.mem_util * {base} * {mem} > {p}.weights else {small})")


def engine_gpus(p: str, mem: str) -> str:
    """The fewest GPUs whose memory share (``mem_util``) holds the policy's bf16 weights with
    room to spare (one byte: a share the weights fill exactly leaves no cache)."""
    return f"ceil(({p}.weights + 1.0) / ({p}.mem_util * {mem}))"


def short(p: str) -> str:
    """1 where an online run's sampler engine has no memory left after its weights, else 0."""
    return f"run.online * (1.0 if {p}.kv_room <= 0.0 else 0.0)"


def gated(p: str, seconds: str) -> str:
    """``seconds``, or missing where the engine cannot hold the weights (``short``)."""
    return f"({seconds}) if coalesce({p}.short, 0.0) <= 0.0 else 0.0 / 0.0"


FEWER_GPUS = ("(1.0 - coalesce(time.short, 0.0)) * "
              "(1.0 if time.gpus < mem.min_gpus else 0.0)")
"""1 where the reader's GPUs are fewer than the memory model's peak needs and the engine fits
(the run is priced as given): the page's note and ``estimate_cli.memory_lines`` read it."""


def quantities(p: str, mem: str) -> list[Quantity]:
    """The figures the page's and the command line's messages quote (read after the model);
    for the chosen GPU (``time``) also whether it is given fewer GPUs than the memory model's."""
    fewer = Quantity("time.fewer_gpus", FEWER_GPUS, format="count", shown=False,
                     label="Fewer GPUs than the memory model's peak needs")
    return ([fewer] if p == "time" else []) + [
        Quantity(f"{p}.weights_gb", f"{p}.weights", format="gb", shown=False,
                 label="Policy weights a sampler engine holds (bf16)"),
        Quantity(f"{p}.engine_room", f"{p}.mem_util * {p}.tp * {mem}", format="gb",
                 shown=False, label="Memory a sampler engine may use"),
        Quantity(f"{p}.min_engine_gpus", engine_gpus(p, mem),
                 format="count", shown=False,
                 label="Fewest GPUs a sampler engine needs to hold the weights"),
    ]
