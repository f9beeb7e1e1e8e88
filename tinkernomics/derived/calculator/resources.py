"""The cost model, part two: sizes, utilisation, memory, convergence, break-even (step 5).

Quantities of the graph ``model.build`` assembles (see its docstring). The one utilisation
set here is prefill's: DeepSeek-V3's effective training utilisation, 6·N·D FLOPs over its
GPU-hours at peak (deepseek_v3, transformer_math, glennklockwood_h100), as prompt processing
is compute-bound. Training, scoring and decode are the time model's (``timing``).
"""

from __future__ import annotations

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import ids
from tinkernomics.derived.calculator.constants import inline
from tinkernomics.derived.calculator.graph import Quantity

PHASES = ("rollout", "reference", "training", "storage")
VRAM_USES = "formula:{vram_formula}"


def parameters(catalog: Catalog) -> list[Quantity]:
    """Model sizes, LoRA settings, the training FLOPs per token, utilisation and GPU price."""
    full = inline(catalog, ids.FLOPS_FULL, P_active="p.active")
    sourced = inline(catalog, ids.FLOPS_LORA_SOURCED, P_active="p.active")
    site = inline(catalog, ids.FLOPS_LORA, P_active="p.active", R="lora.rank", D="lora.d_model")
    q = Quantity
    return [
        q("p.total", "model.total_b * 1e9", format="count", label="Parameters", shown=False),
        q("p.active", "model.active_b * 1e9", format="count", label="Active parameters",
          shown=False),
        q("p.teacher_total", "teacher.total_b * 1e9", format="count", label="Teacher parameters",
          shown=False),
        q("p.teacher_active", "teacher.active_b * 1e9", format="count",
          label="Teacher active parameters",
          shown=False),
        *(q(f"p.{role}_{size}", f"coalesce({role}.{size}_b, model.{size}_b) * 1e9",
            format="count", label=f"{role.capitalize()} {size} parameters", shown=False)
          for role in ("critic", "reward") for size in ("total", "active")),
        q("lora.rank", "coalesce(set.rank, const.lora_rank)", format="count", label="LoRA rank R",
          shown=False),
        q("lora.d_model", "coalesce(set.d_model, model.d_model, const.d_model)", format="count",
          label="Hidden size D", shown=False),
        q("train.flops_per_token", f"({site} if run.lf_site else {sourced}) if run.lora "
          f"else {full}", format="flops", label="Training FLOPs per token",
          uses=("formula:{train_formula}",),
          shown=False),
        *utilisation(catalog),
        q("gpu_price", "coalesce(set.gpu_price, hw.price)", format="usd",
          label="Price per GPU-hour"),
    ]


def utilisation(catalog: Catalog) -> list[Quantity]:
    """The prefill utilisation: the reader's setting, else DeepSeek-V3's measured training
    utilisation (``assumption.mfu_train``, which nothing else reads). Training and scoring run
    at the time model's ``time.mfu_train`` and decode is timed from memory traffic
    (``timing``): their utilisation is shown as the time model has it (``time.mfu_train``,
    ``self.decode.mfu``), never as a second, unused figure."""
    dsv3 = inline(catalog, ids.FLOPS_FULL, P_active="const.dsv3_active")
    q = Quantity
    return [
        q("assumption.mfu_train", f"{dsv3} * const.dsv3_tokens / (const.dsv3_gpu_hours * "
          "3600.0 * (const.h800_tflops * 1e12))", format="percent",
          label="DeepSeek-V3's training utilisation (MFU)",
          uses=("assumption:mfu_train",), shown=False),
        q("mfu.prefill", "coalesce(set.mfu_prefill / 100.0, assumption.mfu_train)",
          format="percent", label="Prefill utilisation (MFU)"),
    ]


def _role_sum(roles: list[m.ModelRole]) -> str:
    """Parameters held for some roles: the teacher's own size, the policy's for the others."""
    terms = [f"({'p.teacher_total' if r == m.ModelRole.teacher else 'p.total'} "
             f"if role.{r.value} else 0.0)" for r in roles]
    return " + ".join(["0.0", *terms])


def _vram_values(catalog: Catalog, formula_id: str) -> dict[str, str]:
    """The formula's variables: summed parameters per role, bytes set in GB or the example."""
    values = {}
    mapping = ids.ROLE_VARIABLES[formula_id]
    for var in catalog.formulas[formula_id].variables:
        if var.unit.value == "parameters":
            values[var.name] = _role_sum([r for r in m.ModelRole if mapping.get(r) == var.name])
        else:
            values[var.name] = f"coalesce(set.vram.{var.name} * 1e9, const.vram.{var.name})"
    return values


def _terms(catalog: Catalog, formula_id: str) -> dict[str, str]:
    """Each variable's share: f(that variable alone) − f(all zero)."""
    values = _vram_values(catalog, formula_id)
    zeros = {name: "0.0" for name in values}
    base = inline(catalog, formula_id, **zeros)
    return {name: f"{inline(catalog, formula_id, **{**zeros, name: f'vram.value.{name}'})} "
                  f"- {base}" for name in values}


def memory(catalog: Catalog) -> list[Quantity]:
    """VRAM from the catalog expression (LoRA or full), its terms, and GPUs that hold it: the
    original site's formula, kept as history for the Formulas page (helpers, never shown in a
    run's figures: the run's memory is ``memory.py``'s)."""
    lora, full = _vram_values(catalog, ids.VRAM_LORA), _vram_values(catalog, ids.VRAM_FULL)
    found = []
    for name in dict.fromkeys([*lora, *full]):
        both = name in lora and name in full
        expression = (f"{lora[name]} if run.lora else {full[name]}" if both
                      else (lora if name in lora else full)[name])
        found.append(Quantity(f"vram.value.{name}", expression, format="number", label=name,
                              when=_when(name, lora, full), shown=False))
    terms_lora, terms_full = _terms(catalog, ids.VRAM_LORA), _terms(catalog, ids.VRAM_FULL)
    for name in dict.fromkeys([*lora, *full]):
        if name in lora and name in full:
            expression = f"({terms_lora[name]}) if run.lora else ({terms_full[name]})"
        else:
            expression = terms_lora[name] if name in lora else terms_full[name]
        found.append(Quantity(f"vram.{name}", expression, format="gb", label=name,
        when=_when(name, lora, full),
                              uses=(VRAM_USES,), shown=False))
    value = {n: f"vram.value.{n}" for n in lora}
    total = (f"{inline(catalog, ids.VRAM_LORA, **value)} if run.lora else "
             f"{inline(catalog, ids.VRAM_FULL, **{n: f'vram.value.{n}' for n in full})}")
    return [
        *found,
        Quantity("vram.total", total, format="gb", label="GPU memory (original site's formula)",
                 uses=(VRAM_USES,), shown=False),
        Quantity("vram.min_gpus", "ceil(vram.total / (hw.memory_gb * 1e9))", format="count",
                 label="GPUs that hold it (original site's formula)", shown=False),
    ]


def _when(name: str, lora: dict[str, str], full: dict[str, str]) -> str:
    if name in lora and name in full:
        return ""
    return "run.lora" if name in lora else "1 - run.lora"


def convergence() -> list[Quantity]:
    """The compute to the target in GB200-hours and its reward (``derive.SCALERL_COMPUTE`` and
    ``SCALERL_REWARD``, the one ScaleRL formula), H100-equivalent hours and dollars."""
    fit = "1 - missing(fit.C_mid)"
    fit_names = {"C_mid": "fit.C_mid", "B": "fit.B"}

    def q(key: str, expression: str, *, fmt: str, label: str, shown: bool = True) -> Quantity:
        return Quantity(key, expression, format=fmt, label=label, when=fit, uses=(), shown=shown)

    return [
        q("scalerl.fraction", "run.target_percent / 100.0", fmt="percent", label="Target",
          shown=False),
        q("scalerl.A", "fit.A / 100.0", fmt="percent", label="Asymptote A", shown=False),
        q("scalerl.R0", "coalesce(fit.R0 / 100.0, 0.0)", fmt="percent", label="Start R0",
          shown=False),
        q("scalerl.gb200_hours", derive.scalerl_expression(
            derive.SCALERL_COMPUTE, f="scalerl.fraction", **fit_names), fmt="hours",
          label="GB200-hours to the target"),
        q("scalerl.h100_hours", "scalerl.gb200_hours * conv.factor", fmt="hours",
          label="H100-equivalent hours"),
        q("scalerl.reward", derive.scalerl_expression(
            derive.SCALERL_REWARD, C="scalerl.gb200_hours", A="scalerl.A", R0="scalerl.R0",
            **fit_names), fmt="percent", label="Pass rate at the target"),
        q("scalerl.chosen_hours", "scalerl.gb200_hours * const.gb200_tflops / hw.tflops",
          fmt="hours", label="Hours on the chosen GPU"),
        q("scalerl.usd", "scalerl.chosen_hours * gpu_price", fmt="usd",
          label="Cost on the chosen GPU"),
        q("scalerl.gb200_usd", "scalerl.gb200_hours * const.gb200_price", fmt="usd",
          label="Cost on GB200"),
    ]


def break_even() -> list[Quantity]:
    """The GPU price at which both bills are equal, their ratio, runs that repay the setup."""
    both = "(1 - missing(tinker.total)) * (self.gpu_hours > 0)"
    return [
        Quantity("breakeven.gpu_price", "tinker.total / self.gpu_hours", format="usd",
                 label="Break-even GPU price", when=both),
        Quantity("breakeven.ratio", "tinker.total / self.total", format="ratio",
                 label="Tinker ÷ self-hosted",
                 when=f"{both} * (self.total > 0)"),
        Quantity("breakeven.runs", "const.setup / (tinker.total - self.total)", format="number",
                 label="Runs that repay the setup",
                 when=f"{both} * (tinker.total - self.total > 0)",
                 uses=("setup:total",)),
    ]
