"""The back-test (pipeline step 5): every published run's estimate beside what it used.

Each stage of a ``run`` entry (``catalog/runs/``) becomes a calculator link (``query``): its
model, algorithm, GPU, GPU count, steps, prompts, G, prompt, mean and capped completion lengths,
turns and environment time, synchronous or not, full fine-tuning or LoRA, with the prefix cache
on (vLLM's default, which the runs' samplers use), and the sampler engine's tensor parallelism,
sequence cap and CUDA graphs, the rollouts sampled per rollout trained on (``oversampling``: a
run's stated value replaces the algorithm's typical one, e.g. DAPO's dynamic sampling off),
whether an asynchronous sampler hands over whole batches, whether the trainer takes the
sampler's log-probs as the old policy's (no log-prob pass of its own), whether the learner loops
over a mixture of experts' experts, how it splits one copy of the model (pipeline, tensor and
context parallel), what it offloads to the CPU and what it recomputes in the backward pass
(``recompute``, full unless the run says otherwise), where the run states them;
an actual that times training steps alone (``actual_covers: steps``, a benchmark's step times)
is priced without the run overhead (``ro`` 0).
The estimate's ``self.gpu_hours`` summed over the stages is set beside the run's
``actual_gpu_hours``: ratio = estimate ÷ actual.
``summary`` gives the geometric mean and the spread the calculator states beside every
self-hosted figure. The rows come from the catalog only: the same code back-tests a run added
tomorrow. No constant is chosen per run.

A run with other ``readings`` of a setting (its source's words support two values) is priced
under each reading as well and left out of the summary: it is shown, not scored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.models.runs import (
    ActualCovers,
    PublishedRun,
    Reading,
    Recompute,
    RunMode,
    RunStage,
)
from tinkernomics.derived.calculator import ids, inputs, semantics, spread
from tinkernomics.derived.calculator.graph import Quantity


def _int(value: float) -> str:
    return str(max(0, round(value)))


def query(run: PublishedRun, stage: RunStage) -> dict[str, str]:
    """The calculator link of one stage of a published run."""
    turns = stage.turns.value if stage.turns else 1.0
    delta = stage.mean_completion_tokens.value + (
        stage.observation_tokens.value if stage.observation_tokens else 0.0)
    found = {
        "algorithm": run.algorithm, "model": run.model, "hardware": run.hardware,
        "lora": inputs.TUNING[0] if run.lora else inputs.FULL,
        "score_reference": "1" if run.reference else "0",
        "run.steps": _int(stage.steps.value), "run.prompts": _int(stage.prompts.value),
        "run.G": _int(stage.group.value), "run.C0": _int(stage.prompt_tokens.value),
        "run.K": "1",  # one pass over the rollouts unless the stage states its epochs (STATED)
        "run.out": _int(stage.mean_completion_tokens.value),
        "run.max_out": _int(stage.max_completion_tokens.value), "run.T": _int(turns),
        "run.delta": _int(delta) if turns > 1 else "0", "set.gpus": _int(stage.gpus.value),
        "cache": "1" if run.prefix_cache else "0",
        "run.asynchronous": "1" if run.mode == RunMode.async_ else "0",
        "run.env_s": repr(float(stage.env_seconds_per_turn.value))
        if stage.env_seconds_per_turn else "0",
    }
    if stage.rollout_gpus is not None and not run.colocated:
        found["set.rollout_gpus"] = _int(stage.rollout_gpus.value)
    found.update(_stated(stage))
    found.update(_run_flags(run) | _generate_flags(run) | _expert_flags(run) | _learner_flags(run))
    if run.critic_model is not None:
        found["critic"] = run.critic_model
    if run.reward_model is not None:
        found["reward_model"] = run.reward_model
    if run.reward_model_scored is not None:
        found["score_reward_model"] = "1" if run.reward_model_scored else "0"
    return inputs.query(found)


RECOMPUTE = {Recompute.full: "2", Recompute.selective: "1", Recompute.none: "0"}
"""A run's ``recompute`` as the calculator's activation recomputation (``ac``): 2 full (a
forward again in every backward, the time model's 4/3), 1 selective, 0 none."""


STATED: dict[str, tuple[str, bool]] = {
    "rollout_tp": ("set.rollout_tp", True), "max_num_seqs": ("set.max_seqs", True),
    "attention_tp": ("set.attention_tp", True),
    "micro_batch_tokens": ("set.micro_batch_tokens", True),
    "pipeline_parallel": ("set.pipeline_parallel", True),
    "train_tensor_parallel": ("set.train_tp", True),
    "context_parallel": ("set.context_parallel", True),
    "gpu_memory_utilization": ("set.mem_util", False), "oversampling": ("set.oversample", False),
    "staleness": ("set.staleness", False), "sync_updates": ("set.sync_updates", True),
    "optimizer_steps": ("set.optimizer_steps", True), "epochs": ("run.K", True),
    "duplicated_params": ("set.duplicated_params", False),
}
"""A stage's optional settings -> the calculator input each sets, and whether it is a whole
number (else a float, written as ``repr``)."""


def _stated(stage: RunStage) -> dict[str, str]:
    """The stage's optional settings (``STATED``), where the run states them."""
    found = {}
    for field, (name, whole) in STATED.items():
        figure = getattr(stage, field)
        if figure is not None:
            found[name] = _int(figure.value) if whole else repr(float(figure.value))
    return found


def _generate_flags(run: PublishedRun) -> dict[str, str]:
    """What the run states of a Hugging Face ``generate`` sampler: finished sequences kept as
    padding (``padded_batches``) and the DynamicCache's copies and host waits
    (``hf_dynamic_cache``)."""
    flags = {"run.padded_batches": run.padded_batches, "run.hf_cache": run.hf_dynamic_cache}
    return {key: "1" for key, on in flags.items() if on}


def _expert_flags(run: PublishedRun) -> dict[str, str]:
    """What the run states of its learner's mixture-of-experts layers: the experts run one by
    one (``expert_loop``) and every expert runs in the log-prob passes (``eval_all_experts``)."""
    flags = {"run.expert_loop": run.expert_loop, "run.eval_all_experts": run.eval_all_experts}
    return {key: "1" for key, on in flags.items() if on}


def _run_flags(run: PublishedRun) -> dict[str, str]:
    """What the run states of its sampler and its stack (CUDA graphs, whole batches, the
    sampler's log-probs, sequential batches), and an actual of training steps alone
    (``actual_covers: steps``): no run overhead for evaluation, checkpoints or restarts."""
    flags = {"run.eager": not run.cuda_graphs, "run.whole_batch": run.whole_batch_rollout,
             "run.rollout_logprobs": run.rollout_log_probs,
             "run.static_batches": run.sequential_batches}
    found = {key: "1" for key, on in flags.items() if on}
    if run.actual_covers == ActualCovers.steps:
        found["set.run_overhead"] = "0"
    return found


def _learner_flags(run: PublishedRun) -> dict[str, str]:
    """What the run states of its learner: what it offloads to the CPU (``cpu_offload``), what
    it recomputes in the backward pass (``recompute``: full, the calculator's default, is left
    out of the link) and whether it trains on completions padded to the cap
    (``padded_training``)."""
    found = {f"run.offload_{part.value}": "1" for part in run.cpu_offload}
    if run.padded_training:
        found["run.padded_train"] = "1"
    if run.recompute != Recompute.full:
        found["run.ac"] = RECOMPUTE[run.recompute]
    return found


def assumed(run: PublishedRun) -> list[str]:
    """The settings the entry assumed (status ``unverified``), as 'stage: field', and its GPU
    when the source does not name it (``hardware_assumed``)."""
    found = ["hardware"] if run.hardware_assumed else []
    for index, stage in enumerate(run.stages):
        where = stage.label or (f"stage {index + 1}" if len(run.stages) > 1 else "")
        for name in RunStage.model_fields:
            value = getattr(stage, name)
            if getattr(value, "status", None) == Status.unverified:
                found.append(f"{where}: {name}" if where else name)
    return found


@dataclass(frozen=True)
class Priced:
    """The run under another reading of one setting: which, and the estimate it gives."""

    label: str
    why: str
    estimate_gpu_hours: float | None


@dataclass(frozen=True)
class Row:
    """One published run back-tested."""

    run: str
    name: str
    hardware: str
    estimate_gpu_hours: float | None
    actual_gpu_hours: float
    assumed: tuple[str, ...]
    stages: tuple[dict[str, str], ...]
    readings: tuple[Priced, ...] = ()

    @property
    def ratio(self) -> float | None:
        """Estimate ÷ actual (1.0 is exact); None when the estimate is missing."""
        return _ratio(self.estimate_gpu_hours, self.actual_gpu_hours)

    @property
    def scored(self) -> bool:
        """False when the source reads two ways: the run is priced, not scored."""
        return not self.readings

    def reading_ratio(self, reading: Priced) -> float | None:
        """Estimate ÷ actual under another reading."""
        return _ratio(reading.estimate_gpu_hours, self.actual_gpu_hours)


def _ratio(estimate: float | None, actual: float) -> float | None:
    return None if estimate is None else estimate / actual


Estimator = Callable[[Catalog, Mapping[str, str]], Any]
"""``estimate.estimate`` (passed in: the estimate module adds this module's range to its graph,
so this module cannot import it)."""


def _hours(catalog: Catalog, queries: tuple[dict[str, str], ...],
           estimate: Estimator) -> float | None:
    hours = [estimate(catalog, q).values.get("self.gpu_hours") for q in queries]
    return None if any(h is None for h in hours) else sum(h for h in hours if h is not None)


def read(run: PublishedRun, reading: Reading) -> PublishedRun:
    """``run`` with one setting replaced by another reading's value."""
    stages = list(run.stages)
    index = reading.stage - 1
    stages[index] = stages[index].model_copy(update={reading.setting.value: reading.value})
    return run.model_copy(update={"stages": stages, "readings": []})


def _label(run: PublishedRun, reading: Reading) -> str:
    where = f"stage {reading.stage} " if len(run.stages) > 1 else ""
    return f"{where}{reading.setting.value} = {reading.value.value:,.0f}"


def _priced(catalog: Catalog, run: PublishedRun, reading: Reading,
            estimate: Estimator) -> Priced:
    other = read(run, reading)
    queries = tuple(query(other, s) for s in other.stages)
    return Priced(_label(run, reading), reading.why, _hours(catalog, queries, estimate))


def row(catalog: Catalog, run: PublishedRun, estimate: Estimator) -> Row:
    """Back-test one run: its stages' estimates summed, beside its actual GPU-hours (and the
    same under each other reading of a setting)."""
    queries = tuple(query(run, s) for s in run.stages)
    readings = tuple(_priced(catalog, run, r, estimate) for r in run.readings)
    return Row(run.id, run.name, run.hardware, _hours(catalog, queries, estimate),
               run.actual_gpu_hours.value, (*assumed(run), *sized_as_policy(catalog, run)),
               queries, readings)


def sized_as_policy(catalog: Catalog, run: PublishedRun) -> list[str]:
    """The critic and reward model the run keeps (the algorithm's, or the reward model its
    ``reward_model_scored`` says) and does not name: the estimate takes them as large as the
    policy (an assumption, listed with the run's others)."""
    roles = semantics.switch_role(semantics.default_roles(catalog.algorithms[run.algorithm]),
                                  "reward_model", run.reward_model_scored)
    named = {"critic": run.critic_model, "reward_model": run.reward_model}
    return [f"{role.replace('_', ' ')}: as large as the policy" for role, model in named.items()
            if role in roles and model is None]


def rows(catalog: Catalog, estimate: Estimator) -> list[Row]:
    """Every catalog run, in id order (``estimate.backtest_rows`` passes the estimator)."""
    runs: dict[str, PublishedRun] = catalog.of("run")
    return [row(catalog, runs[rid], estimate) for rid in sorted(runs)]


@dataclass(frozen=True)
class Summary:
    """The spread of the ratios: geometric mean, lowest and highest, and the middle
    ``spread.INNER`` the calculator states (``inner_low`` to ``inner_high``)."""

    count: int
    geometric_mean: float | None
    low: float | None
    high: float | None
    inner_low: float | None
    inner_high: float | None


def geometric_mean(ratios: list[float]) -> float | None:
    """The geometric mean of positive ``ratios`` (None without any)."""
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None


def summary(found: list[Row]) -> Summary:
    """Geometric mean and ranges of the ratios of the scored rows that have an estimate."""
    ratios = [r.ratio for r in found if r.scored and r.ratio is not None and r.ratio > 0]
    if not ratios:
        return Summary(0, None, None, None, None, None)
    return Summary(len(ratios), geometric_mean(ratios), min(ratios), max(ratios),
                   *spread.inner(ratios))


MISSING = "0.0 / 0.0"
"""An expression whose value is missing (no published run to measure the spread on)."""


def constant(value: float | None) -> str:
    """``value`` as a graph expression: the number, or ``MISSING`` for None."""
    return MISSING if value is None else repr(float(value))


def range_quantities(found: list[Row]) -> list[Quantity]:
    """How far published runs (``found``, the catalog's ``rows``) landed from such estimates,
    as graph quantities: the lowest, mean and highest ratio (``backtest.*``), and the
    self-hosted GPU-hours, dollars and break-even they leave room for (an actual of estimate ÷
    ratio). Added to the graph after the runs are estimated (``estimate.graph_for``): the
    ranges read the runs' estimates, which do not read the ranges."""
    s = summary(found)
    scalerl = next((r.ratio for r in found if r.run == ids.SCALERL_RUN), None)

    q = Quantity
    return [
        q("backtest.low", constant(s.inner_low), format="ratio",
          label="10th percentile of estimate ÷ actual", shown=False),
        q("backtest.mean", constant(s.geometric_mean), format="ratio",
          label="Geometric mean of estimate ÷ actual", shown=False),
        q("backtest.high", constant(s.inner_high), format="ratio",
          label="90th percentile of estimate ÷ actual", shown=False),
        q("backtest.runs", repr(float(s.count)), format="count", label="Published runs back-tested",
          shown=False),
        q("backtest.scalerl", constant(scalerl), format="ratio",
          label="Time model ÷ ScaleRL's measured GB200-hours, on its 8B recipe at its "
                "default batch", shown=False),
        q("self.gpu_hours_low", "self.gpu_hours / backtest.high", format="hours",
          label="GPU-hours, low end (published runs' spread)"),
        q("self.gpu_hours_high", "self.gpu_hours / backtest.low", format="hours",
          label="GPU-hours, high end (published runs' spread)"),
        q("self.total_low", "self.total / backtest.high", format="usd",
          label="Self-hosted, low end"),
        q("self.total_high", "self.total / backtest.low", format="usd",
          label="Self-hosted, high end"),
        q("breakeven.ratio_low", "tinker.total / self.total_high", format="ratio",
          label="Tinker ÷ self-hosted, low end",
          when="(1 - missing(tinker.total)) * (self.total > 0)"),
        q("breakeven.ratio_high", "tinker.total / self.total_low", format="ratio",
          label="Tinker ÷ self-hosted, high end",
          when="(1 - missing(tinker.total)) * (self.total > 0)"),
        q("breakeven.gpu_price_low", "tinker.total / self.gpu_hours_high", format="usd",
          label="Break-even GPU price, low end",
          when="(1 - missing(tinker.total)) * (self.gpu_hours > 0)"),
        q("breakeven.gpu_price_high", "tinker.total / self.gpu_hours_low", format="usd",
          label="Break-even GPU price, high end",
          when="(1 - missing(tinker.total)) * (self.gpu_hours > 0)"),
    ]
