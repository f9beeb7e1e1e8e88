"""Provenance of an estimate (pipeline step 5): the catalog figures and assumptions it rests on.

``shared_figures`` and ``algorithm_figures`` list every catalog figure and calculator
assumption an estimate can rest on (with status and source) under a stable key; the page ships
them (``site/calculator/pagedata``). ``RULES`` say, as data, which of them one estimate uses: a
key template filled from the estimate's names and a condition in the calculator's expression
language over its inputs and quantities. calculator.js applies them and flags the figures
whose status is unverified; the tests' Python reference (``tests/helpers_figures.py``)
applies the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.models.hardware import default_rental, default_rental_label
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import assumptions, ids, inputs, timing

_DECODE = "missing(set.mfu_decode) * missing(set.tps)"
"""The decode physics applies: the reader gave neither a decode utilisation nor a throughput."""
TIME_WHEN = {"memory_utilisation": f"{_DECODE} * missing(set.mem_util)", "weight_share": _DECODE,
             "bandwidth_efficiency": _DECODE, "decode_mfu": _DECODE, "decode_floor": _DECODE,
             "graph_layer_s": _DECODE,
             "max_num_seqs": f"{_DECODE} * missing(set.max_seqs)",
             "eager_layer_s": f"{_DECODE} * run.eager",
             "hf_cache_passes": f"{_DECODE} * run.hf_cache",
             "host_link_gb_s": "run.offload_optimizer + run.offload_params + "
                               "run.offload_grads",
             "cpu_adam_bytes": "run.offload_optimizer", "host_memory_gb_s": "run.offload_optimizer",
             "train_mfu_max": "missing(set.mfu_train)",
             "train_bytes_per_flop": f"max(missing(set.mfu_train), {_DECODE}) * "
                                     "(1 - missing(hw.bandwidth))",
             "expert_loop_factor": "run.expert_loop * missing(set.mfu_train)",
             "moe_sync_s": "(1 - run.expert_loop) * missing(set.mfu_train)",
             "train_half_params": "missing(set.mfu_train)"}
"""When a time-model constant is among an estimate's inputs (``timing.CONSTANTS``)."""

RULES: tuple[tuple[str, str], ...] = (
    # (key template, condition): the figures one estimate used, in display order.
    ("model:{model}:total_params", ""),
    ("model:{model}:active_params", ""),
    ("model:{model}:d_model", "run.lora * run.lf_site * missing(set.d_model)"),
    ("model:{teacher}:total_params", "role.teacher * teacher_differs"),
    ("model:{teacher}:active_params", "role.teacher * teacher_differs"),
    ("{row}", "1 - missing(price.prefill)"),
    ("{teacher_row}", "(1 - missing(price.teacher_prefill)) * teacher_differs"),
    ("prices:{price_list}:cache", "run.cache"),
    ("prices:{price_list}:storage", ""),
    ("hardware:{hw}:tflops", ""),
    ("hardware:{hw}:memory", ""),
    ("hardware:{hw}:price", "missing(set.gpu_price)"),
    ("algorithm:{algorithm}:k", "run.K == algo.K"),
    ("algorithm:{algorithm}:g", "run.G == algo.G"),
    ("algorithm:{algorithm}:A", ""),
    ("algorithm:{algorithm}:B", ""),
    ("algorithm:{algorithm}:C_mid", ""),
    (f"formula:{ids.FLOPS_ROLLOUT}", ""),
    (f"formula:{ids.FLOPS_REFERENCE}", "max(role.reference, role.teacher, role.reward_model)"),
    ("formula:{train_formula}", ""),
    ("formula:{vram_formula}", ""),
    ("assumption:mfu_train", "missing(set.mfu_prefill)"),
    ("assumption:mfu_prefill", "missing(set.mfu_prefill)"),
    # decode's memory traffic, and training's (roles_time.on_gpu) unless the reader sets mt
    ("hardware:{hw}:bandwidth", f"max({_DECODE}, missing(set.mfu_train)) * "
                                "(1 - missing(hw.bandwidth))"),
    ("assumption:decode_sequences", "run.online"),
    *((f"assumption:time:{c.key}", TIME_WHEN.get(c.key, "")) for c in timing.CONSTANTS),
    ("setup:total", ""),
)
@dataclass(frozen=True)
class InputFigure:
    """A catalog value (or calculator assumption) an estimate rests on, with provenance."""

    key: str
    label: str
    text: str
    status: Status
    source: str | None
    """Reference id; None for an assumption made here that no source states."""
    reported_instead: str | None = None
    derivation: str | None = None
    """How an assumption's value is obtained (shown beside it)."""
    locator: str | None = None
    """Where in its source the value is stated (catalog markdown), when the catalog says."""

    @property
    def unverified(self) -> bool:
        return self.status == Status.unverified


def _figure(key: str, label: str, fig: m.Figure) -> InputFigure:
    return InputFigure(key, label, derive.format_figure(fig), fig.status, fig.source,
                       fig.reported_instead, locator=fig.locator)


def _model_figures(model: m.LanguageModel) -> Iterable[InputFigure]:
    yield _figure(f"model:{model.id}:total_params", f"{model.name}: parameters",
                  model.total_params)
    if model.active_params is not None:
        yield _figure(f"model:{model.id}:active_params", f"{model.name}: active parameters",
                      model.active_params)
    if model.d_model is not None:
        yield _figure(f"model:{model.id}:d_model", f"{model.name}: hidden size", model.d_model)


def _price_figures(plist: m.PriceList, names: Mapping[str, str]) -> Iterable[InputFigure]:
    money = derive.format_money
    for row in plist.rows:
        model = names.get(row.model, row.model) + (row.variant or "")
        yield InputFigure(
            inputs.row_key(plist, row), f"Tinker's prices of {plist.id}: {model}",
            f"{money(row.prefill)} / {money(row.sample)} / {money(row.train)} per 1M prefill / "
            "sample / train",
            row.status or plist.status, row.source or plist.source,
            row.reported_instead or plist.reported_instead,
            locator=row.locator or plist.locator)
    if plist.cached_prefill_discount is not None:
        yield _figure(f"prices:{plist.id}:cache", f"Tinker {plist.id}: cached-prefill discount",
                      plist.cached_prefill_discount)
    if plist.storage_usd_per_gb_month is not None:
        yield _figure(f"prices:{plist.id}:storage", f"Tinker {plist.id}: storage",
                      plist.storage_usd_per_gb_month)


def _hardware_figures(hw: m.Hardware) -> Iterable[InputFigure]:
    yield _figure(f"hardware:{hw.id}:tflops", f"{hw.name}: dense BF16", hw.bf16_dense_tflops)
    yield _figure(f"hardware:{hw.id}:memory", f"{hw.name}: memory", hw.memory_gb)
    if hw.bandwidth_tb_s is not None:
        yield _figure(f"hardware:{hw.id}:bandwidth", f"{hw.name}: bandwidth", hw.bandwidth_tb_s)
    if (rent := default_rental(hw)) is not None:
        yield _figure(f"hardware:{hw.id}:price",
                      f"{hw.name}: rental ({default_rental_label(hw)})", rent.price)


def algorithm_figures(algo: m.Algorithm) -> Iterable[InputFigure]:
    lists = [("k", "typical K", algo.typical_k), ("g", "typical G", algo.typical_g)]
    for key, label, values in lists:
        if values is not None:
            yield InputFigure(f"algorithm:{algo.id}:{key}", f"{algo.name}: {label}",
                              ", ".join(map(str, values.values)), values.status, values.source,
                              values.reported_instead, locator=values.locator)
    if algo.scalerl is not None:
        for name in ("A", "B", "C_mid"):
            yield _figure(f"algorithm:{algo.id}:{name}", f"{algo.name}: ScaleRL {name}",
                          getattr(algo.scalerl, name))


def assumption_figures(catalog: Catalog) -> list[InputFigure]:
    """Training and prefill utilisation, and the decode batch, as listed input figures."""
    value = assumptions.training_mfu(catalog)
    peak = catalog.hardware[ids.H800_PEAK_HARDWARE].bf16_dense_tflops.value
    percent = derive.format_number(value * derive.PERCENT)
    return [
        InputFigure(
            "assumption:mfu_train", "DeepSeek-V3's training utilisation (MFU)", f"{percent}%",
            Status.derived, "deepseek_v3",
            derivation=f"6 × 37B active × 14.8T tokens ÷ (2.788M H800-hours × 3,600 s × "
                       f"{derive.format_number(peak, digits=4)} TFLOP/s) ≈ {percent}%; the "
                       "prefill default (RL training runs at the time model's own "
                       "utilisation)"),
        InputFigure(
            "assumption:mfu_prefill", "Prefill utilisation (MFU)", f"{percent}%",
            Status.unverified, "deepseek_v3", assumptions.PREFILL_INSTEAD,
            "DeepSeek-V3's training utilisation, reused: prompt processing is a large "
            "compute-bound matrix product like the training forward pass"),
        InputFigure(
            "assumption:decode_sequences", "KV cache the memory sizing reserves, "
            "sequences per decoding GPU", derive.format_number(ids.DECODE_SEQUENCES_PER_GPU),
            Status.unverified, None, assumptions.DECODE_INSTEAD,
            "assumed here: the GPU memory (and the fewest GPUs that hold it) keeps room for "
            "this many sequences' KV cache; the time model's sampler then decodes as many "
            "as its free memory holds (also this many when the model's KV size is unknown)"),
    ]


def time_figures() -> list[InputFigure]:
    """The time model's constants (``timing.CONSTANTS``): stated here or fitted on the
    published runs, never by a source of their own, so each is listed as unverified with its
    basis."""
    return [InputFigure(f"assumption:time:{c.key}", c.label, f"{c.value:g}", Status.unverified,
                        None, "No source states it: see the Back-test page.", c.basis)
            for c in timing.CONSTANTS]


def shared_figures(catalog: Catalog) -> list[InputFigure]:
    """Every figure an estimate may use except the algorithms' (loaded per algorithm)."""
    found: list[InputFigure] = []
    for model in catalog.models.values():
        found.extend(_model_figures(model))
    names = {model.id: model.name for model in catalog.models.values()}
    for plist in catalog.price_lists.values():
        found.extend(_price_figures(plist, names))
    for hw in catalog.hardware.values():
        found.extend(_hardware_figures(hw))
    for formula_id in ids.FORMULA_IDS:
        f = catalog.formulas[formula_id]
        found.append(InputFigure(f"formula:{f.id}", f"Formula: {f.name}", f.expression,
                                 f.status, f.source, f.reported_instead))
    found.extend(assumption_figures(catalog))
    found.extend(time_figures())
    if catalog.platform is not None:
        found.append(_figure("setup:total", "Cost of building the stack",
                             catalog.platform.setup_cost.total))
    return found
