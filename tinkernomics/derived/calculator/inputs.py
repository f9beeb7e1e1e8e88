"""Calculator inputs (pipeline step 5): a calculator link's query -> the graph's input values.

A link carries its settings in the query string (``?m=qwen3-8b&a=grpo&G=16``). Every key is
declared once, in ``INPUTS`` (kind, graph input, range, default, the keys a change clears, what
the form shows), in the order a link writes them; ``choose`` reads a query by them (unknown ids
and invalid numbers fall back to the catalog's defaults; valid numbers are clamped into their
range; a query that names no algorithm starts from the default run, ``DEFAULT_RUN``) and
``invalid_keys`` lists what the page marks. ``estimate.environment`` flattens the choice into
the named input values the graph reads. The page ships ``link_inputs`` and ``calculator.js``
reads every key, range and rule from it: a key declared here needs no change there.

Nothing here computes a cost: lookups and flags only. An input the catalog lacks stays missing
(``None``), and so does every quantity that reads it: no G = 1 behind the reader's back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Unit
from tinkernomics.derived.calculator import ids, offline, semantics
from tinkernomics.derived.calculator.inputspec import INT_PATTERN as INT_PATTERN
from tinkernomics.derived.calculator.inputspec import NUM_PATTERN as NUM_PATTERN
from tinkernomics.derived.calculator.inputspec import NUMBER_KINDS as NUMBER_KINDS
from tinkernomics.derived.calculator.inputspec import Input as Input
from tinkernomics.derived.calculator.inputspec import number
from tinkernomics.derived.calculator.inputspec import ranged as ranged
from tinkernomics.derived.calculator.inputspec import valid as valid
from tinkernomics.derived.calculator.pricerows import price_row as price_row
from tinkernomics.derived.calculator.pricerows import row_key as row_key

DEFAULT_MODEL = "qwen3-8b"
DEFAULT_ALGORITHM = "grpo"
DEFAULT_HARDWARE = "h100"
DEFAULT_TARGET_PERCENT = 90.0
"""Default target: the compute at which the ScaleRL fit has made 90% of its gain."""
DEFAULT_RUN: dict[str, str] = {
    "algorithm": DEFAULT_ALGORITHM, "model": DEFAULT_MODEL, "hardware": DEFAULT_HARDWARE,
    "run.steps": "100", "run.prompts": "64", "run.G": "16", "run.K": "1", "run.C0": "512",
    "run.out": "2048",
}
"""The default run, by declared name (``key``; its link is ``default_query()``): the calculator
issue's example (GRPO on Qwen3-8B, 100 steps, 64 prompts × G = 16, 512 + 2,048 tokens), the
first preset. A link that names no algorithm starts from it, and each setting the link gives
replaces the example's: the empty link is the example itself. Its G = 16 is a setting of the
example, not GRPO's typical G; a link that names an algorithm takes G and K from that
algorithm's entry unless it sets them. The price list is the newest, as for any link that names
none. ``calculator.js`` reads the same query from the page's defaults."""

COMPARISON_RUN: dict[str, str] = {k: v for k, v in DEFAULT_RUN.items() if k != "algorithm"}
"""The comparison run: one stated run shape at which every algorithm is priced and sized (its
page, beside its own typical run, and the algorithms table): Qwen3-8B with LoRA on H100s,
100 steps × 64 prompts × G = 16, K = 1, 512 + 2,048 tokens, the newest price list. Only the
algorithm changes, so two algorithms' numbers differ by what the algorithms do."""


def key(name: str) -> str:
    """The query key ``INPUTS`` declares for ``name``: the ``Choice`` field a choice or flag key
    sets (``model`` -> ``m``) or the graph input a number or list sets (``run.G`` -> ``G``).
    Code outside ``INPUTS`` names a key through this, never by its spelling, so renaming a key
    is one edit (``tests/test_query_keys.py``)."""
    for i in INPUTS:
        if name in (i.sets, i.name):
            return i.key
    raise KeyError(f"no query key is declared for {name!r}")


def query(settings: Mapping[str, object]) -> dict[str, str]:
    """A link's query from settings by declared name (``{"model": "qwen3-8b"}`` ->
    ``{"m": "qwen3-8b"}``)."""
    return {key(name): str(value) for name, value in settings.items()}


def default_query() -> dict[str, str]:
    """The default run's link query (``DEFAULT_RUN``)."""
    return query(DEFAULT_RUN)


def comparison_query(catalog: Catalog, algo_id: str) -> dict[str, str]:
    """The comparison run for one algorithm, with the newest price list pinned."""
    return query({"algorithm": algo_id, **COMPARISON_RUN,
                  "price_list": latest_price_list(catalog)})


_MFU = {"per": 0.01, "fmt": "number"}
VRAM_AFTER = "set.mfu_decode"
"""A link writes the VRAM overrides (``vram_inputs``) after this input's key, then the rest."""
INPUTS: tuple[Input, ...] = (
    # In link order. Choices and flags first, as a link reads best.
    Input("a", "choice", keeps=("G", "K", "ref", "rw", "tm", "cm", "rm", "rc"), pin="algorithm",
          sets="algorithm"),
    Input("m", "choice", dependents=("D", "v"), pin="model", sets="model"),
    Input("tm", "choice", when="role.teacher", sets="teacher"),
    Input("cm", "choice", when="role.critic", sets="critic"),
    Input("rm", "choice", when="role.reward_model", sets="reward_model"),
    Input("p", "choice", dependents=("v",), pin="price_list", sets="price_list"),
    Input("v", "choice", sets="variant"),
    Input("ft", "choice", sets="lora", flag=("run.lora", True)),
    Input("lf", "choice", when="run.lora", sets="lora_flops", flag=("run.lf_site", "site")),
    number("r", "set.rank", "int", 1, 1e5, None, shows="lora.rank",
            when="run.lora * run.lf_site"),
    number("D", "set.d_model", "int", 1, 1e6, None, shows="lora.d_model",
            when="run.lora * run.lf_site"),
    number("steps", "run.steps", "int", 0, 1e7, 100.0),
    number("n", "run.prompts", "int", 0, 1e7, 64.0),
    number("G", "run.G", "int", 1, 1e5, None, typical="G"),
    number("K", "run.K", "int", 1, 1e3, None, typical="K"),
    number("in", "run.C0", "int", 0, 1e8, 512.0),
    number("out", "run.out", "int", 0, 1e8, 2048.0),
    number("maxout", "run.max_out", "int", 0, 1e8, None, shows="time.cap"),
    number("T", "run.T", "int", 1, 1e4, 1.0),
    number("d", "run.delta", "int", 0, 1e8, 0.0),
    Input("cache", "flag", sets="cache", flag=("run.cache", True)),
    Input("ref", "flag", sets="score_reference"),
    Input("rw", "flag", sets="score_reward_model"),
    Input("hw", "choice", dependents=("gp", "md"), pin="hardware", sets="hardware"),
    number("gp", "set.gpu_price", "num", 0, 1e4, None, shows="gpu_price"),
    number("gpus", "set.gpus", "int", 1, 1e6, None, shows="time.gpus"),
    number("rg", "set.rollout_gpus", "int", 1, 1e6, None),
    number("seqs", "set.max_seqs", "int", 1, 1e6, None, shows="time.seq_cap"),
    number("mu", "set.mem_util", "num", 0.05, 1, None, shows="time.mem_util"),
    number("atp", "set.attention_tp", "int", 1, 1e3, None, shows="time.tp"),
    number("rtp", "set.rollout_tp", "int", 1, 1e3, None, shows="time.tp"),
    *(number(key, f"run.{name}", "int", 0, 1, 0.0) for key, name in (
        ("eager", "eager"), ("async", "asynchronous"), ("wb", "whole_batch"),
        ("rlp", "rollout_logprobs"), ("sb", "static_batches"), ("oo", "offload_optimizer"),
        ("op", "offload_params"), ("og", "offload_grads"), ("el", "expert_loop"),
        ("pb", "padded_batches"), ("hc", "hf_cache"), ("ae", "eval_all_experts"),
        ("pt", "padded_train"))),
    number("mbt", "set.micro_batch_tokens", "int", 1, 1e9, None, shows="time.micro_batch_tokens"),
    number("pp", "set.pipeline_parallel", "int", 1, 1e3, None, shows="time.pipeline"),
    number("ttp", "set.train_tp", "int", 1, 1e3, None),
    number("cp", "set.context_parallel", "int", 1, 1e3, None),
    number("dup", "set.duplicated_params", "num", 0, 1e5, None),
    number("st", "set.staleness", "num", 0, 1e3, None, when="run.asynchronous"),
    number("su", "set.sync_updates", "int", 1, 1e4, None, when="run.asynchronous"),
    number("ost", "set.optimizer_steps", "int", 1, 1e4, None, shows="time.optimizer_steps"),
    number("env", "run.env_s", "num", 0, 1e5, 0.0),
    number("tps", "set.tps", "num", 0.001, 1e9, None),
    number("mt", "set.mfu_train", "num", 0.01, 100, None, shows="time.mfu_train", **_MFU),
    number("mp", "set.mfu_prefill", "num", 0.01, 100, None, shows="mfu.prefill", **_MFU),
    number("md", "set.mfu_decode", "num", 0.01, 100, None, shows="self.decode.mfu", **_MFU),
    number("ro", "set.run_overhead", "num", 0, 1000, None, shows="time.run_overhead", **_MFU),
    number("mb", "run.mb", "int", 1, 1e4, 1.0), number("ac", "run.ac", "int", 0, 2, 2.0),
    number("rc", "run.ref_copy", "int", 0, 1, 0.0, when="run.lora * role.reference"),
    number("la", "run.lora_attention", "int", 0, 1, 0.0, when="run.lora"),
    number("os", "set.oversample", "num", 1, 100, None, shows="rollout.oversample"),
    number("ck", "run.checkpoints", "int", 0, 1e6, 1.0),
    number("mo", "run.months", "num", 0, 1e3, 1.0),
    number("tf", "run.target_percent", "num", 1, 99, DEFAULT_TARGET_PERCENT),
    Input("w", "list", "pin", shows="ways.listed"),
    *(number(f"x_{name}", f"set.arch.{name}", "num", lo, hi, None)
      for name, (lo, hi) in {"params_b": (0.001, 1e5), "active_b": (0.001, 1e5),
                             "layers": (1, 1e4), "heads": (1, 1e5), "kv_heads": (1, 1e5),
                             "head_dim": (1, 1e5), "d_model": (1, 1e6), "vocab": (1, 1e8),
                             "mlp": (1, 1e7)}.items()),
)
ARCH_PREFIX = "x_"
"""Link keys of a model given by its architecture figures (``x_layers``...): each replaces the
chosen model's figure (``model.architecture``); with ``x_params_b`` the run is a model the
catalog lacks, so it has no Tinker price."""
ARCH_FIGURES = ("params_b", "active_b", "layers", "heads", "kv_heads", "head_dim", "d_model",
                "vocab", "mlp")
WAYS = "pin"
"""The comparison's list input of ways (``derived/calculator/waysgraph.py`` fills its options)."""
VRAM_GB: dict[str, Any] = {"kind": "num", "lo": 0.0, "hi": 1e6, "per": 1e9, "fmt": "number"}
"""Overrides, in GB, of the VRAM formulas' byte-valued variables (query key = variable name)."""
NUMBERS: tuple[Input, ...] = tuple(i for i in INPUTS if i.kind in NUMBER_KINDS)
SPEC: dict[str, dict[str, Any]] = {
    i.key: {"name": i.name, "kind": i.kind, "lo": i.lo, "hi": i.hi, "default": i.default}
    for i in NUMBERS}
"""The numbers by query key (input name, kind, range, default), derived from ``INPUTS``."""

TUNING = ("lora", "full")
"""The fine-tuning choices (``key("lora")``): LoRA, the default, and full fine-tuning (any
value but the second is LoRA)."""
FULL = TUNING[1]
LORA_FLOPS = ("sourced", "site")
"""The "LoRA FLOP accounting" choices (query key ``lf``); the first is the default."""
ROLES = tuple(role.value for role in m.ModelRole)


def _choice(query: Mapping[str, str], key: str, allowed: Iterable[str], default: str) -> str:
    value = query.get(key)
    return value if value is not None and value in allowed else default


def _flag(query: Mapping[str, str], key: str) -> bool | None:
    value = query.get(key)
    return {"1": True, "0": False}.get(value) if value is not None else None


def middle(values: list[int]) -> float:
    """The default of a typical-values list: its middle entry (upper middle when even)."""
    return float(values[len(values) // 2])


def typical(algo: m.Algorithm) -> dict[str, float | None]:
    """The algorithm's typical G and K; None where the catalog gives none."""
    return {"G": middle(algo.typical_g.values) if algo.typical_g is not None else None,
            "K": middle(algo.typical_k.values)}


def latest_price_list(catalog: Catalog) -> str:
    return max(catalog.price_lists.values(), key=lambda p: (p.effective, p.id)).id


def default_model(catalog: Catalog) -> str:
    return DEFAULT_MODEL if DEFAULT_MODEL in catalog.models else min(catalog.models)


def vram_variables(catalog: Catalog) -> list[str]:
    """Byte-valued variables of the VRAM formulas: adjustable in GB by their own query key."""
    names: dict[str, None] = {}
    for formula_id in (ids.VRAM_LORA, ids.VRAM_FULL):
        for var in catalog.formulas[formula_id].variables:
            if var.unit == Unit.bytes:
                names.setdefault(var.name, None)
    return list(names)


def vram_inputs(catalog: Catalog) -> list[Input]:
    """The VRAM overrides, in GB: one number per byte-valued VRAM variable (``VRAM_GB``)."""
    return [Input(n, name=f"set.vram.{n}", shows=f"const.vram.{n}", **VRAM_GB)
            for n in vram_variables(catalog)]


def slot(text: str) -> str:
    """An id as one segment of a graph name (``coreweave-2026-02`` -> ``coreweave_2026_02``)."""
    return re.sub(r"[^a-z0-9_]", "_", text.lower())


def way_options(catalog: Catalog) -> tuple[tuple[str, str], ...]:
    """Every way to run (``catalog/ways/``), by id, with its input suffix (``w_<slot>``)."""
    found = tuple((wid, "w_" + slot(wid)) for wid in sorted(catalog.of("way")))
    if len({suffix for _, suffix in found}) != len(found):
        raise ValueError("two way ids differ only in '.', '-' or '_': "
                         + ", ".join(wid for wid, _ in found))
    return found


def link_inputs(catalog: Catalog) -> tuple[Input, ...]:
    """Every query key of a link, in the order a link writes them (``INPUTS`` with the VRAM
    overrides after ``VRAM_AFTER``, and the catalog's ways as the options of ``WAYS``): the
    same for every estimate of a catalog, so made once per catalog and ``INPUTS``
    (``Catalog.memo``)."""
    held = catalog.memo.get(_LINK_INPUTS)
    if held is None or held[0] is not INPUTS:
        cut = next(i for i, x in enumerate(INPUTS) if x.name == VRAM_AFTER) + 1
        found = [*INPUTS[:cut], *vram_inputs(catalog), *INPUTS[cut:]]
        held = catalog.memo[_LINK_INPUTS] = (INPUTS, tuple(
            replace(i, options=way_options(catalog)) if i.name == WAYS else i for i in found))
    return held[1]


_LINK_INPUTS = "calculator.link_inputs"


def listed(query: Mapping[str, str], spec: Input) -> tuple[str, ...]:
    """The valid ids a ``list`` key gives, once each, in the link's order."""
    allowed = {wid for wid, _ in spec.options}
    return tuple(dict.fromkeys(i for i in query.get(spec.key, "").split(",") if i in allowed))


def invalid_keys(catalog: Catalog, query: Mapping[str, str]) -> list[str]:
    """Number keys the page marks invalid: set to an invalid value, or a typical-valued input
    the link leaves unset for an algorithm that has no typical value."""
    choice = choose(catalog, query)
    fixed = offline.overrides(catalog.algorithms[choice.algorithm])  # issue 44: data shape
    return [i.key for i in link_inputs(catalog) if i.kind in NUMBER_KINDS and (
        (i.key in query and not valid(query[i.key], i.kind))
        or (i.typical and choice.numbers[i.name] is None and i.name not in fixed))]


@dataclass(frozen=True)
class Choice:
    """A link's settings: ids of the chosen entries, flags and numbers (None: not set)."""

    model: str
    algorithm: str
    price_list: str
    hardware: str
    teacher: str
    variant: str
    lora: bool
    lora_flops: str
    score_reference: bool | None
    score_reward_model: bool | None
    """1: a learned reward model scores every completion; 0: the reward is a rule or verifier
    (no reward model); None: the algorithm's default (``semantics.default_roles``)."""
    cache: bool
    numbers: dict[str, float | None]
    """Input name -> value, for every number key (``NUMBERS`` and the VRAM overrides)."""
    ways: tuple[str, ...] = ()
    """The ways to run the link pins (``WAYS``); empty: the newest list of each offer."""
    # the value network's and reward model's ids; empty: as large as the policy (said so)
    critic: str = ""
    reward_model: str = ""


def _teacher(catalog: Catalog, algo_id: str, model: str) -> str:
    """The default teacher: the one the algorithm's source uses, else the model itself."""
    teacher = semantics.teacher(catalog.algorithms[algo_id])
    return teacher if teacher in catalog.models else model


def choose(catalog: Catalog, query: Mapping[str, str]) -> Choice:
    """Read a link's query by the rules above (``inputs`` and ``Page`` in calculator.js); a
    query that names no algorithm starts from ``DEFAULT_RUN``."""
    k = {i.sets: i.key for i in INPUTS if i.sets}
    if k["algorithm"] not in query:
        query = {**default_query(), **query}
    model = _choice(query, k["model"], catalog.models, default_model(catalog))
    algo_id = _choice(query, k["algorithm"], catalog.algorithms, DEFAULT_ALGORITHM)
    algo_typical = typical(catalog.algorithms[algo_id])
    numbers: dict[str, float | None] = {}
    pinned: tuple[str, ...] = ()
    for i in link_inputs(catalog):
        if i.name == WAYS:
            pinned = listed(query, i)
        if i.kind in NUMBER_KINDS:
            value = ranged(query.get(i.key), i)
            default = algo_typical[i.typical] if i.typical else i.default
            numbers[i.name] = default if value is None else value
    return Choice(
        model=model, algorithm=algo_id,
        price_list=_choice(query, k["price_list"], catalog.price_lists,
                           latest_price_list(catalog)),
        hardware=_choice(query, k["hardware"], catalog.hardware, DEFAULT_HARDWARE),
        teacher=_choice(query, k["teacher"], catalog.models, _teacher(catalog, algo_id, model)),
        variant=query.get(k["variant"], ""), lora=query.get(k["lora"]) != FULL,
        lora_flops=_choice(query, k["lora_flops"], LORA_FLOPS, LORA_FLOPS[0]),
        score_reference=_flag(query, k["score_reference"]),
        score_reward_model=_flag(query, k["score_reward_model"]),
        cache=_flag(query, k["cache"]) is True,
        numbers=numbers, ways=pinned,
        critic=_choice(query, k["critic"], catalog.models, ""),
        reward_model=_choice(query, k["reward_model"], catalog.models, ""),
    )
