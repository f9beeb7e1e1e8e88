"""The cost model: every quantity of an RL-run estimate, as a graph (pipeline step 5).

For one RL post-training run, from catalog values only:

1. tokens by kind (prefill, sample, train) from the run shape, single- or multi-turn;
2. the Tinker bill from a dated price list (cached-prefill discount and storage included);
3. FLOPs per phase from the catalog's FLOP formulas (LoRA training in the chosen accounting),
   and the self-hosted GPU-hours and dollars from the time model (``timing``: decode from
   memory traffic at the batch memory allows, the synchronous tail, training utilisation by
   model size, refit, environment and overhead);
4. memory from the catalog's VRAM formulas and the minimum number of GPUs that hold it;
5. the compute at which an algorithm's ScaleRL fit reaches a fraction of its asymptote;
6. the break-even between the two bills (``resources.py`` holds 4 to 6 and the prefill utilisation).

To add a cost line, add a ``Line`` to ``tinker_lines`` or ``compute_lines``: its quantities,
its bill's totals and its row on the calculator page follow from it. Expressions keep the
operation order of the original reference, so every figure stays bit for bit what it was.
"""

from __future__ import annotations

from collections.abc import Callable

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import ids, inputs, limits, memory, resources, timing
from tinkernomics.derived.calculator.constants import constants, inline
from tinkernomics.derived.calculator.graph import ARCH_FIGURES, Graph, Line, Quantity

SHAPE_INPUTS = ("layers", "heads", "kv_heads", "head_dim", "kv_latent", "kv_layers",
                "state_layers", "state_size", "window", "sliding", "mlp", "expert_mlp", "experts",
                "vocab", "context")
"""A model's architecture inputs (``estimate.SHAPE_INPUTS``, ``model.<name>``)."""

ROW = "(1 - missing(price.prefill)) * missing(set.arch.params_b)"
"""The model has a row in the chosen price list (else there is no Tinker bill), and the link
does not give a model of its own by its figures (``x_params_b``: a model the catalog lacks)."""


def architecture() -> list[Quantity]:
    """``arch.<figure>``: the link's own figure of the model (``x_<figure>``), else the
    catalog's. Every later quantity reads these instead of ``model.<figure>`` (``graph``'s
    aliases), so a model the catalog lacks is priced by the same rules in Python and the
    browser. A model given by its total alone is dense: active = total."""
    names = {"total_b": "params_b", "active_b": "active_b", "layers": "layers",
             "heads": "heads", "kv_heads": "kv_heads", "head_dim": "head_dim",
             "d_model": "d_model", "vocab": "vocab", "mlp": "mlp"}
    found = []
    for name in ARCH_FIGURES:
        own = f"set.arch.{names[name]}"
        expression = (f"coalesce({own}, set.arch.params_b, model.{name})" if name == "active_b"
                      else f"coalesce({own}, model.{name})")
        found.append(Quantity(f"arch.{name}", expression, format="number", label=name, shown=False))
    return found

BASE_INPUTS = (
    "run.online", "run.cache", "run.lora", "run.lf_site",
    *(f"role.{r}" for r in inputs.ROLES),
    "model.total_b", "model.active_b", "model.d_model", "teacher.total_b", "teacher.active_b",
    *(f"model.{name}" for name in SHAPE_INPUTS), "algo.oversample",
    *(f"{role}.{name}" for role in ("critic", "reward")
      for name in ("total_b", "active_b", "d_model", *SHAPE_INPUTS)),
    "price.prefill", "price.sample", "price.train", "price.context", "price.teacher_prefill",
    "price.cache",
    "price.storage", "hw.tflops", "hw.memory_gb", "hw.bandwidth", "hw.price",
    "fit.A", "fit.B", "fit.C_mid", "fit.R0", "algo.G", "algo.K",
    *(spec["name"] for spec in inputs.SPEC.values()),
)
"""Inputs every estimate has (``inputs.environment``); VRAM overrides are added per catalog."""


def token_quantities() -> list[Quantity]:
    """Run totals: episodes = steps × prompts × G; offline methods sample nothing.

    Prefill per episode with re-prefill every turn is T·C0 + Δ·T(T−1)/2 (turn t re-sends
    C0 + Δ·t; fireworks_cost_comparison). A prefix cache serves every turn's context but the
    new part: (T−1)·C0 + Δ·(T−1)(T−2)/2. A finished trajectory is C0 + Δ·(T−1) + the last reply.
    """
    def q(key: str, expression: str, *, label: str, fmt: str = "count", **kw: object) -> Quantity:
        return Quantity(key, expression, format=fmt, label=label, **kw)  # type: ignore[arg-type]

    return [
        q("tokens.episodes", "run.steps * run.prompts * run.G", label="Episodes"),
        q("rollout.oversample", "coalesce(set.oversample, algo.oversample)",
          label="Rollouts sampled per rollout trained on", fmt="number"),
        q("tokens.rollouts", "tokens.episodes * rollout.oversample", label="Rollouts sampled",
          shown=False),
        q("tokens.prefill_per_episode",
          "run.T * run.C0 + run.delta * run.T * (run.T - 1) / 2 if run.online else 0.0",
          label="Prefill per episode", shown=False),
        q("tokens.cached_per_episode",
          "((run.T - 1) * run.C0 + run.delta * (run.T - 1) * (run.T - 2) / 2 if run.cache "
          "else 0.0) if run.online else 0.0", label="Cached prefill per episode", shown=False),
        q("tokens.sample_per_episode", "run.T * run.out if run.online else 0.0",
          label="Sampled per episode", shown=False),
        q("tokens.sequence_per_episode", "run.C0 + run.delta * (run.T - 1) + run.out",
          label="Trajectory length", shown=False),
        q("tokens.completion_cap", "coalesce(run.max_out, run.out)",
          label="Completion cap (the mean where none is given)", shown=False),
        # a learner that pads every completion to the cap (a run's padded_training) trains and
        # holds activations for prompt + cap tokens a sequence; sampling is unchanged
        q("tokens.train_sequence_per_episode", "tokens.sequence_per_episode + run.padded_train "
          "* (tokens.completion_cap - run.out)", label="Trained sequence length", shown=False),
        q("tokens.prefill", "tokens.rollouts * tokens.prefill_per_episode", label="Prefill"),
        q("tokens.prefill_cached", "tokens.rollouts * tokens.cached_per_episode",
          label="of which cached"),
        q("tokens.prefill_uncached", "tokens.rollouts * tokens.prefill_per_episode - "
          "tokens.rollouts * tokens.cached_per_episode", label="Uncached prefill"),
        q("tokens.sample", "tokens.rollouts * tokens.sample_per_episode", label="Sampled"),
        q("tokens.sequence", "tokens.episodes * tokens.sequence_per_episode", label="Trajectories"),
        q("tokens.train", "tokens.episodes * tokens.sequence_per_episode * run.K", label="Trained"),
    ]


def tinker_lines() -> list[tuple[Line, str, str, str]]:
    """(line, amount, rate, per): amount × rate ÷ per: tokens × USD per 1M tokens (per 1e6),
    checkpoint storage GB-months × USD per GB-month (per 1).

    Scoring with a reference or teacher uses ``compute_logprobs`` on a sampling client
    (tinker_cookbook), billed as prefill of the finished trajectories. Tinker runs no critic
    and no reward model (tinker_docs): those are listed as not covered.
    """
    per_m = "{amount:count} tokens × {rate:rate} / 1M"
    cached = "price.prefill * (1 - price.cache / 100.0)"
    return [
        (Line("tinker", "prefill", "Prefill", "rollout", ROW, per_m),
         "tokens.prefill_uncached", "price.prefill", "1e6"),
        (Line("tinker", "prefill_cached", "Cached prefill", "rollout", ROW,
              per_m + " (prefill price less the list's cached discount, where it gives one)"),
         "tokens.prefill_cached", f"coalesce({cached}, price.prefill)", "1e6"),
        (Line("tinker", "sample", "Sample", "rollout", ROW, per_m),
         "tokens.sample", "price.sample", "1e6"),
        (Line("tinker", "reference", "Reference log-probs (as prefill)", "reference",
              f"({ROW}) * role.reference", per_m),
         "tokens.sequence", "price.prefill", "1e6"),
        (Line("tinker", "teacher", "Teacher log-probs (as prefill)", "reference",
              f"({ROW}) * (1 - missing(price.teacher_prefill))", per_m),
         "tokens.sequence", "price.teacher_prefill", "1e6"),
        (Line("tinker", "train", "Train", "training", ROW, per_m),
         "tokens.train", "price.train", "1e6"),
        (Line("tinker", "storage", "Checkpoint storage", "storage",
              f"({ROW}) * (1 - missing(price.storage))",
              "{amount:number} GB-months × {rate:rate} per GB-month",
              (f"formula:{ids.VRAM_LORA}",)),
         "run.checkpoints * storage.checkpoint_gb * run.months", "price.storage", "1.0"),
    ]


def tinker_quantities(lines: list[tuple[Line, str, str, str]]) -> list[Quantity]:
    found = [Quantity("storage.checkpoint_gb", f"const.vram.{ids.VAR_LORA_STATE} / 1e9",
    format="number",
                      label="One checkpoint (adapter and optimiser state), GB", shown=False)]
    for line, amount, rate, per in lines:
        k = f"tinker.{line.key}"
        found += [
            Quantity(f"{k}.amount", amount, format="count", label=line.label, when=line.when,
                     shown=False),
            Quantity(f"{k}.rate", rate, format="number", label=line.label, when=line.when,
                     shown=False),
            Quantity(k, f"{k}.amount * {k}.rate / {per}", format="usd", label=line.label,
                     when=line.when,
                     uses=line.uses),
        ]
    return found


def compute_lines(catalog: Catalog) -> list[tuple[Line, str, str, str]]:
    """(line, tokens, FLOPs per token, seconds) of each phase on rented GPUs.

    Rollout: uncached prefill and sampled tokens (flops_rollout); the environment's time per
    turn. Scoring: one forward pass over the trajectories per model kept for it
    (flops_ref_logprobs; the reward model and critic at their own sizes where the link names
    them, ``p.reward_active``, ``p.critic_active``, else as large as the policy).
    Training: K passes of the training formula for the policy (and the old-policy log-probs),
    and for the critic if any. Overhead: refit and the fixed work of a step; evaluation,
    checkpoints and restarts, a fraction of the steps' time (``run_overhead``). Each line's
    GPU-hours are its share of the time model's step (``timing``), its utilisation what the
    FLOPs make of them.
    """
    roll = inline(catalog, ids.FLOPS_ROLLOUT, P_active="p.active")
    ref, teacher, reward = (inline(catalog, ids.FLOPS_REFERENCE, P_active=f"p.{size}")
                            for size in ("active", "teacher_active", "reward_active"))
    how = ("{amount:count} tokens × {per_token:flops} FLOP/token ({formula}); "
           "{gpu_hours:hours} GPU-hours at {mfu:percent} of {hw.tflops:plain} TFLOP/s")

    def line(key: str, label: str, phase: str, when: str, formula: str) -> Line:
        fid = formula[len("{formula:"):-1]  # a formula id, or the name that holds one
        uses = (f"formula:{{{fid}}}" if fid == "train_formula" else f"formula:{fid}",)
        return Line("self", key, label, phase, when, how.replace("{formula}", formula), uses)

    def idle(key: str, label: str, how_text: str) -> Line:
        return Line("self", key, label, "rollout" if key == "environment" else "training",
                    "1", how_text)

    rollout, scoring = f"{{formula:{ids.FLOPS_ROLLOUT}}}", f"{{formula:{ids.FLOPS_REFERENCE}}}"
    t = timing.PHASE_SECONDS
    return [
        (line("prefill", "Rollout prefill", "rollout", "1", rollout),
         "tokens.prefill_uncached", roll, t["prefill"]),
        (line("decode", "Rollout decode", "rollout", "1", rollout),
         "tokens.sample", roll, t["decode"]),
        (idle("environment", "Environment (tools, tests)",
              "{run.T:count} turns × {run.env_s:number} s a turn, waited for"),
         "0.0", "0.0", t["environment"]),
        (line("reference", "Reference log-probs", "reference", "role.reference", scoring),
         "tokens.sequence", ref, t["reference"]),
        (line("teacher", "Teacher log-probs", "reference", "role.teacher", scoring),
         "tokens.sequence", teacher, t["teacher"]),
        (line("reward_model", "Reward model", "reference", "role.reward_model", scoring),
         "tokens.sequence", reward, t["reward_model"]),
        (line("train", "Policy training", "training", "1", "{formula:train_formula}"),
         "tokens.train", "train.flops_per_token", t["train"]),
        (line("critic", "Critic training", "training", "role.critic", "{formula:train_formula}"),
         "tokens.train", "train.flops_per_token * p.critic_active / p.active", t["critic"]),
        *_overhead_lines(idle),
    ]


def _overhead_lines(idle: Callable[[str, str, str], Line]) -> list[tuple[Line, str, str, str]]:
    """The lines that do no FLOPs besides the environment: refit and a step's fixed work, and
    evaluation, checkpoints and restarts."""
    t = timing.PHASE_SECONDS
    return [
        (idle("overhead", "Refit and fixed work per step",
              "{time.refit_s:number} s a step: weights to the sampler and the step's fixed "
              "work"), "0.0", "0.0", t["overhead"]),
        (idle("run_overhead", "Evaluation, checkpoints and restarts",
              "{const.time.run_overhead:number} × the steps' time (fitted on published runs)"),
         "0.0", "0.0", t["run_overhead"]),
    ]


MFU_LABELS = {"decode": "Decode utilisation achieved (time model)"}
"""Lines whose achieved utilisation is a shown quantity: decode has no utilisation input (the
time model times it from memory traffic), so the one it implies is printed instead."""


def compute_quantities(lines: list[tuple[Line, str, str, str]]) -> list[Quantity]:
    """FLOPs = tokens × FLOPs/token; GPU-hours = the line's share of the time model's run
    (``timing.share``); utilisation = FLOPs ÷ (GPU-hours × peak), what the time model implies;
    dollars = hours × price."""
    found = []
    for line, tokens, per_token, seconds in lines:
        k, w = f"self.{line.key}", ("" if line.when == "1" else line.when)
        found += [
            Quantity(f"{k}.amount", tokens, format="count", label=line.label, when=w, shown=False),
            Quantity(f"{k}.per_token", per_token, format="flops", label=line.label, when=w,
                     uses=line.uses, shown=False),
            Quantity(f"{k}.flops", f"{k}.amount * {k}.per_token", format="flops", label=line.label,
                     when=w),
            Quantity(f"{k}.gpu_hours", timing.share("time", seconds), format="hours",
                     label=line.label, when=w),
            Quantity(f"{k}.mfu", f"{k}.flops / ({k}.gpu_hours * 3600.0 * hw.tflops * 1e12) "
                                 f"if {k}.gpu_hours > 0 else 0.0", format="percent",
                     label=MFU_LABELS.get(line.key, line.label), when=w,
                     shown=line.key in MFU_LABELS),
            Quantity(f"{k}.usd", f"{k}.gpu_hours * gpu_price", format="usd", label=line.label,
                     when=w),
        ]
    return found


def _sum(terms: list[tuple[str, str]]) -> str:
    """Left-to-right sum (0.0 + a + b ..., as a loop adds them) of (key, when) terms.

    A line that does not apply adds 0; a line that applies but is missing (an input the
    catalog does not hold) makes the sum missing: a total is never a silent partial sum.
    """
    parts = [k if when in ("", "1") else f"({k} if ({when}) else 0.0)" for k, when in terms]
    return " + ".join(["0.0", *parts])


def totals(graph: Graph) -> list[Quantity]:
    """Each bill's total, and its share per phase (the bars of the page)."""
    tinker = [x for x in graph.lines if x.group == "tinker"]
    own = [x for x in graph.lines if x.group == "self"]

    def bill(suffix: str, lines: list[Line]) -> str:
        return _sum([(f"{x.group}.{x.key}{suffix}", x.when) for x in lines])

    found = [
        # issue 44: no Tinker bill for a run Tinker cannot do (limits.py, its catalog gaps)
        Quantity("tinker.total", bill("", tinker), format="usd", label="Tinker bill",
                 when=f"({ROW}) * (1 - tinker.no)"),
        Quantity("self.flops", bill(".flops", own), format="flops", label="FLOPs"),
        Quantity("self.gpu_hours", "time.gpu_hours", format="hours", label="GPU-hours"),
        Quantity("self.total", bill(".usd", own), format="usd", label="Self-hosted compute"),
    ]
    for phase in resources.PHASES:
        found.append(Quantity(f"tinker.phase.{phase}", bill(
            "", [x for x in tinker if x.phase == phase]), format="usd", label=phase, when=ROW,
            shown=False))
        found.append(Quantity(f"self.phase.{phase}", bill(
            ".usd", [x for x in own if x.phase == phase]), format="usd", label=phase, shown=False))
    return found


def build(catalog: Catalog) -> Graph:
    """The whole estimate as a graph over ``BASE_INPUTS`` and the VRAM overrides."""
    vram = tuple(f"set.vram.{n}" for n in inputs.vram_variables(catalog))
    graph = Graph(inputs=BASE_INPUTS + vram)
    graph.add(*architecture())
    graph.add(*constants(catalog))
    graph.add(*resources.parameters(catalog))
    graph.add(*timing.constant_quantities())
    graph.add(*token_quantities())
    tinker = tinker_lines()
    graph.lines += [line for line, _, _, _ in tinker]
    graph.add(*tinker_quantities(tinker))
    graph.add(*memory.quantities())
    graph.add(*timing.quantities())
    own = compute_lines(catalog)
    graph.lines += [line for line, _, _, _ in own]
    graph.add(*compute_quantities(own))
    graph.add(*limits.quantities(catalog))  # issue 44: Tinker's own gaps (limits.py)
    graph.add(*totals(graph))
    graph.add(*resources.memory(catalog))
    graph.add(*resources.convergence())
    graph.add(*resources.break_even())
    return graph
