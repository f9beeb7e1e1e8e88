"""``tinkernomics estimate``: the calculator's estimate on the command line (pipeline step 6).

The options are the calculator link's inputs (``derived/calculator/inputs.py``); the command
builds the same query a link would carry and evaluates the same graph the page and calculator.js
evaluate (``estimate.estimate``). ``--json`` prints every named quantity, shown or helper, with its
value and unit; without it, the shown quantities as the page formats them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_catalog
from tinkernomics.derived import listing, ways
from tinkernomics.derived.calculator import inputs, limits, offline, spread, usage
from tinkernomics.derived.calculator.estimate import Estimate, estimate, graph_for
from tinkernomics.derived.calculator.graph import Graph
from tinkernomics.derived.calculator.inputs import ARCH_FIGURES, ARCH_PREFIX, invalid_keys
from tinkernomics.site.calculator.checkargs import BadInput, check_query, check_sampler_fits
from tinkernomics.site.calculator.formatting import fmt_value
from tinkernomics.site.needs import model_needs

UNITS = {"gb": "bytes", "usd": "usd", "count": "count", "flops": "flop", "hours": "hours",
         "percent": "fraction", "ratio": "ratio", "number": "number"}
"""A quantity's unit in ``--json``, by its display format (``gb`` values are bytes)."""
UNIT_OVERRIDES = {"mem.kv_per_token": "bytes", "mem.lora_params": "parameters",
                  "mem.trainable": "parameters"}
OPTIONS: tuple[tuple[str, str, str], ...] = (
    # (option, the input it sets as inputs.INPUTS names it: inputs.key, help)
    ("--algorithm", "algorithm", "algorithm id (catalog/algorithms/)"),
    ("--model", "model", "model id (catalog/models/)"),
    ("--teacher", "teacher", "teacher model id (distillation)"),
    ("--critic-model", "critic", "the value network's model id (PPO); default: the policy's "
                                 "size"),
    ("--reward-model", "reward_model", "the reward model's id; default: the policy's size"),
    ("--score-reward-model", "score_reward_model", "1 if a learned reward model scores every "
                                                   "completion, 0 if the reward is a rule or "
                                                   "verifier (no reward model); default: the "
                                                   "algorithm's"),
    ("--G", "run.G", "completions per prompt"),
    ("--K", "run.K", "optimisation passes per batch"),
    ("--prompts", "run.prompts", "prompts per step"),
    ("--prompt-tokens", "run.C0", "prompt tokens per episode"),
    ("--completion-tokens", "run.out", "mean completion tokens per turn"),
    ("--max-completion-tokens", "run.max_out", "the cap on one completion (a synchronous step "
                                               "waits for the longest; default: the mean)"),
    ("--turns", "run.T", "turns per episode (agentic runs)"),
    ("--env-seconds", "run.env_s", "environment (tool) seconds per turn"),
    ("--steps", "run.steps", "training steps"),
    ("--lora-rank", "set.rank", "LoRA rank"),
    ("--micro-batch", "run.mb", "training micro-batch (sequences)"),
    ("--recompute", "run.ac", "activation recomputation: 2 full, 1 selective, 0 none"),
    ("--gpu", "hardware", "hardware id (catalog/hardware/)"),
    ("--gpus", "set.gpus", "GPUs of the run (default: the fewest that hold it); wall-clock "
                           "follows"),
    ("--rollout-gpus", "set.rollout_gpus", "GPUs that only sample (sampling not colocated "
                                           "with training)"),
    ("--rollout-tp", "set.rollout_tp", "GPUs one sampler engine spans (tensor parallel; "
                                       "default: the fewest that hold the weights in half "
                                       "their memory, at most the GPUs that sample)"),
    ("--max-num-seqs", "set.max_seqs", "sequences one sampler engine decodes at once, at most "
                                       "(vLLM's max_num_seqs; default 256)"),
    ("--attention-tp", "set.attention_tp", "GPUs an engine splits attention over, when fewer "
                                           "than its tensor parallelism (data-parallel "
                                           "attention; default: all of them)"),
    ("--memory-utilization", "set.mem_util", "share of a sampler GPU's memory its engine "
                                             "takes (vLLM's gpu_memory_utilization; default "
                                             "0.9)"),
    ("--eager", "run.eager", "1 if the sampler decodes without CUDA graphs (vLLM's "
                             "enforce_eager), else 0"),
    ("--whole-batch", "run.whole_batch", "1 if an asynchronous sampler generates each step's "
                                         "batch in one call (the step waits for its longest "
                                         "completion), else 0"),
    ("--staleness", "set.staleness", "how far an asynchronous sampler may run ahead: the "
                                     "samples it may start beyond a weight sync's, a share of "
                                     "them (verl's staleness_threshold; default: unbounded)"),
    ("--sync-updates", "set.sync_updates", "trainer updates between weight syncs (verl's "
                                           "trigger_parameter_sync_step; default 1)"),
    ("--optimizer-steps", "set.optimizer_steps", "optimizer steps the learner takes a step: "
                                                 "mini-batches times epochs (default 1)"),
    ("--rollout-logprobs", "run.rollout_logprobs", "1 if the trainer takes the sampler's "
                                                   "log-probs (no old-policy log-prob pass), "
                                                   "else 0"),
    ("--static-batches", "run.static_batches", "1 if each sampler engine generates its share "
                                               "in sequential batches of --max-seqs, each "
                                               "waiting for its longest completion, else 0"),
    ("--padded-batches", "run.padded_batches", "1 if the sampler keeps decoding a batch's "
                                               "finished sequences as padding until its "
                                               "longest ends (Hugging Face generate), else "
                                               "0"),
    ("--hf-dynamic-cache", "run.hf_cache", "1 if the sampler is Hugging Face generate over "
                                           "its DynamicCache with flash-attention-2 on a "
                                           "padded batch (transformers 4.36-4.38), else 0"),
    ("--expert-loop", "run.expert_loop", "1 if the learner runs a mixture of experts' experts "
                                         "one at a time (Hugging Face transformers < 5.0 "
                                         "under FSDP or DeepSpeed), else 0"),
    ("--eval-all-experts", "run.eval_all_experts", "1 if the log-prob passes (old policy, "
                                                   "reference) run every expert on every "
                                                   "token (Hugging Face Qwen3-VL-MoE in eval "
                                                   "mode, transformers 4.57), else 0"),
    ("--micro-batch-tokens", "set.micro_batch_tokens", "tokens one update micro-batch of a "
                                                       "training GPU holds at most (dynamic "
                                                       "batching's cap; default: one sequence)"),
    ("--padded-training", "run.padded_train", "1 if the learner trains on every completion "
                                              "padded to the cap (--max-completion-tokens), "
                                              "else 0"),
    ("--pipeline-parallel", "set.pipeline_parallel", "pipeline stages the learner splits the "
                                                     "layers into (Megatron's "
                                                     "pipeline_model_parallel_size; default 1)"),
    ("--train-tp", "set.train_tp", "GPUs the learner splits each layer over (Megatron's "
                                   "tensor_model_parallel_size; default 1)"),
    ("--context-parallel", "set.context_parallel", "GPUs the learner splits each sequence over "
                                                   "(Megatron's context_parallel_size, verl's "
                                                   "Ulysses sequence parallel size; default 1)"),
    ("--duplicated-params", "set.duplicated_params", "billions of parameters the learner "
                                                     "computes more than once a token: layers "
                                                     "each tensor-parallel GPU runs whole, "
                                                     "× (TP - 1)"),
    ("--offload-optimizer", "run.offload_optimizer", "1 if the optimizer's state and step are "
                                                     "on the CPU, else 0"),
    ("--offload-params", "run.offload_params", "1 if the learner's weights wait in CPU memory "
                                               "while sampling, else 0"),
    ("--offload-grads", "run.offload_grads", "1 if the gradient buffers wait in CPU memory, "
                                             "else 0"),
    ("--mfu-train", "set.mfu_train", "training and scoring utilisation, % of peak (default: "
                                     "the time model's, which grows with model size)"),
    ("--throughput", "set.tps", "measured decode tokens/s per sampling GPU (a pilot run's figure)"),
    ("--run-overhead", "set.run_overhead", "evaluation, checkpoints and restarts, % of the "
                                           "steps' time (0: the training steps alone)"),
    ("--price-list", "price_list", "Tinker price list id"),
    ("--oversample", "set.oversample", "rollouts sampled per rollout trained on"),
)


LACKS = {"run.G": "G (--G): the catalog gives no typical G for this algorithm",
         "run.K": "K (--K): the catalog gives no typical K for this algorithm",
         "set.gpus": "the GPU count (--gpus): the model's architecture figures are not in the "
                 "catalog, so its memory, and the GPUs that hold it, are unknown"}
"""What a missing typical input is, for the line that says the run lacks it."""


def shape_lacks(est: Estimate) -> str:
    """What a run lacks when its model's architecture figures are unknown (a model the catalog
    gives by its size alone): its KV cache, attention and memory, so its self-hosted time, are
    unknown (``timing``: nothing is guessed; ``mem.shape_known``, the page's test too); '' when
    the figures are there."""
    if est.values.get("mem.shape_known") is not None:
        return ""
    missing = [n for n in ARCH_FIGURES if n not in ("params_b", "active_b")
               and est.values.get(f"arch.{n}") is None]
    given = ", ".join(f"--arch {n}" for n in missing) or "--arch"
    return (f"the model's architecture ({given}): the catalog does not give it for "
            f"{est.resolved.names.get('model_name', 'this model')}, so its KV cache, attention "
            "and memory, and with them its self-hosted time and the GPUs that hold it, are "
            "unknown")


def option_of() -> dict[str, str]:
    """Link key -> the option that sets it (error messages name the option)."""
    return {**{inputs.key(name): option for option, name, _ in OPTIONS},
            **{ARCH_PREFIX + name: f"--arch {name}" for name in ARCH_FIGURES}}


def query_of(args: argparse.Namespace) -> dict[str, str]:
    """The calculator-link query the options describe (``--set KEY=VALUE`` for any other key)."""
    query: dict[str, str] = {}
    for option, name, _ in OPTIONS:
        value = getattr(args, option.lstrip("-").replace("-", "_"))
        if value is not None:
            query[inputs.key(name)] = str(value)
    if args.full:
        query[inputs.key("lora")] = inputs.FULL
    if args.asynchronous is not None:
        query[inputs.key("run.asynchronous")] = "1" if args.asynchronous else "0"
    for item in args.arch or ():
        name, _, value = item.partition("=")
        query[ARCH_PREFIX + name] = value
    for item in args.set or ():
        key, _, value = item.partition("=")
        query[key] = value
    return query


def as_json(est: Estimate, graph: Graph) -> dict[str, Any]:
    """Every quantity with its value and unit, and the names the estimate resolved."""
    found = {q.key: {"value": est.values[q.key],
                     "unit": UNIT_OVERRIDES.get(q.key, UNITS[q.format]),
                     "label": q.label, "shown": q.shown} for q in graph.quantities}
    return {"names": dict(est.resolved.names), "roles": list(est.resolved.roles),
            "quantities": found}


def valid_catalog(folder: str) -> Catalog | None:
    """The catalog in ``folder``; None, after printing every problem on stderr, if it has any
    (the command then exits 1). ``estimate`` and ``backtest`` read an invalid catalog alike, and
    refuse one without an entry the cost model reads (``needs.model_needs``) at the missing file,
    as ``validate`` refuses a site's, not with a traceback from inside the model."""
    catalog, problems = load_catalog(Path(folder), needs=model_needs())
    for problem in problems:
        print(problem.format(), file=sys.stderr)
    return None if problems else catalog


def with_usage(catalog: Catalog, args: argparse.Namespace,
               query: dict[str, str]) -> tuple[dict[str, str], str | None]:
    """The query with the mean lengths of a pilot's ``tinker billing usage`` export
    (``--usage``), and the line that says so; unchanged without it."""
    if args.usage is None:
        if args.usage_steps is not None or args.usage_session is not None:
            raise BadInput("--usage-steps and --usage-session need --usage FILE")
        return query, None
    if inputs.key("run.out") in query:
        raise BadInput("--usage sets the mean completion length: give it or "
                       "--completion-tokens, not both")
    if args.usage_steps is None:
        raise BadInput("--usage needs --usage-steps N: the steps the pilot ran in the export")
    steps_key = inputs.key("run.steps")
    steps = check_query(catalog, {steps_key: args.usage_steps}, {steps_key: "--usage-steps"})
    if not float(steps[steps_key]) >= 1:
        raise BadInput(f"--usage-steps {args.usage_steps}: the pilot ran at least one step")
    env = estimate(catalog, query).env
    try:
        totals = usage.read(Path(args.usage), args.usage_session)
        found = usage.lengths(totals, float(steps[steps_key]), float(env["run.prompts"] or 0),
                              float(env["run.G"] or 0), float(env["run.K"] or 1))
    except usage.UsageError as bad:
        raise BadInput(f"--usage {bad}") from bad
    values = usage.query_values(found)
    if inputs.key("run.C0") in query:
        values.pop(inputs.key("run.C0"), None)
    merged = {**query, **values}
    cap, mean = inputs.key("run.max_out"), inputs.key("run.out")
    if cap in merged and float(merged[cap]) < float(merged[mean]):
        raise BadInput(f"--max-completion-tokens {merged[cap]}: below the pilot's mean "
                       f"completion length ({merged[mean]}, from --usage)")
    keys = " ".join(f"{k}={v}" for k, v in values.items())
    return merged, (f"{usage.describe(found, totals.models)}; the calculator link takes the "
                    f"same as {keys}")


def cmd_estimate(args: argparse.Namespace) -> int:
    catalog = valid_catalog(args.catalog)
    if catalog is None:
        return 1
    try:
        query = query_of(args)
        # a pilot's export sets the mean: the cap is checked against it, after
        check_query(catalog, {k: v for k, v in query.items()
                              if k != inputs.key("run.max_out") or args.usage is None},
                    option_of())
        query, from_usage = with_usage(catalog, args, query)
        query = check_query(catalog, query, option_of())
    except BadInput as bad:
        print(f"tinkernomics estimate: {bad}", file=sys.stderr)
        return 2
    if from_usage:
        print(f"# {from_usage}", file=sys.stderr)
    est = estimate(catalog, query)
    try:
        check_sampler_fits(est.values, est.resolved.names, query, option_of())
    except BadInput as bad:
        print(f"tinkernomics estimate: {bad}", file=sys.stderr)
        return 2
    graph = graph_for(catalog)
    names = {i.key: i.name for i in inputs.NUMBERS}
    lacks = [LACKS.get(names.get(k, k), k) for k in invalid_keys(catalog, query)]
    shape = shape_lacks(est)
    if shape:
        lacks.append(shape)
    elif est.values.get("time.gpus") is None and inputs.key("set.gpus") not in query:
        lacks.append(LACKS["set.gpus"])
    if args.json:
        print(json.dumps({**as_json(est, graph), "lacks": lacks}, indent=1, allow_nan=False))
        return 0
    for text in lacks:
        print(f"lacks {text}: give it to price this run (figures that need it are left out)")
    for q in graph.quantities:
        if q.shown and est.values[q.key] is not None:
            print(f"{q.key:32} {fmt_value(q.format, est.values[q.key]):>18}  {q.label}")
    if est.values.get("gpu_price") is None:  # a GPU without rental prices (they are optional)
        print(f"{'gpu_price':32} {'no price':>18}  The catalog lists no rental price for this "
              f"GPU: give one with --set {inputs.key('set.gpu_price')}=<USD per GPU-hour> to price "
              "the self-hosted run")
    for line in notes(catalog, est):  # issue 44: what the numbers are, where Tinker is absent
        print(f"# {line}")
    return 0


def notes(catalog: Catalog, est: Estimate) -> list[str]:
    """An offline method's data shape; why there is no Tinker bill (its gap, or no row)."""
    algo = catalog.algorithms[est.choice.algorithm]
    found = [f"{algo.name} is {offline.describe(algo)}"] if offline.describe(algo) else []
    run = ways.totals_of(catalog, est, {})
    reason = ways.gap_reason(ways.tinker_gaps(catalog), run.needs, run)
    if reason:
        found.append(f"Tinker bill: not offered: {reason}")
    elif est.values.get("tinker.total") is None and est.env.get("price.prefill") is None:
        found.append(f"Tinker bill: none in the {est.choice.price_list} list: "
                     f"{listing.listing_text(catalog, est.choice.model)}")
    return found + policy_sized(est) + memory_lines(est) + spread_lines(est) + limits.context_lines(
        est.resolved.names["model_name"], run.row, run.context, est.env.get("model.context"),
        run.served_context, est.env.get("price.prefill") is not None)


def policy_sized(est: Estimate) -> list[str]:
    """The critic and reward model the run keeps at the policy's size, none being named."""
    return [f"The {role.replace('_', ' ')} is taken as large as the policy (no {option}): its "
            "passes and memory are priced at the policy's size"
            for role, option in (("critic", "--critic-model"), ("reward_model", "--reward-model"))
            if est.env.get(f"role.{role}") and not est.resolved.names[role]]


def memory_lines(est: Estimate) -> list[str]:
    """The reader's GPUs, fewer than the memory model says hold the run's peak: priced as
    given (the model's peak is an upper bound: some published runs fit in fewer)."""
    if not est.values.get("time.fewer_gpus"):  # the page's note reads the same quantity
        return []
    gpus, need, peak = (est.values.get(k) or 0.0 for k in ("time.gpus", "mem.min_gpus",
                                                          "mem.peak"))
    return [f"memory: the run's peak, {peak / 1e9:,.0f} GB, is more than {gpus:g} × "
            f"{est.resolved.names['hw_name']} hold; the memory model needs {need:g}. The time is "
            "priced on the GPUs given, as a run that offloads or shrinks its batches would fit"]


def spread_lines(est: Estimate) -> list[str]:
    """The rule of the self-hosted range (``spread.RULE``), when published runs give one."""
    low, high, runs = (est.values.get(k) for k in ("backtest.low", "backtest.high",
                                                   "backtest.runs"))
    if low is None or high is None or not runs:
        return []
    lines = [f"self-hosted range (*_low, *_high): {spread.RULE}, over {runs:.0f} runs: "
             f"{fmt_value('ratio', low)}–{fmt_value('ratio', high)}"]
    first = [est.values.get(k) for k in ("heldout.low", "heldout.high", "heldout.runs",
                                         "self.gpu_hours_unseen_low",
                                         "self.gpu_hours_unseen_high")]
    if all(v is not None for v in first) and first[2]:
        f_low, f_high, f_runs, hours_low, hours_high = first
        lines.append(f"held-out range (*_unseen_*): the middle {spread.INNER:.0%} of {f_runs:.0f} "
                     "runs priced before the model had seen them, at first sight: "
                     f"{fmt_value('ratio', f_low)}–{fmt_value('ratio', f_high)}, so "
                     f"{fmt_value('hours', hours_low)}–{fmt_value('hours', hours_high)} "
                     "GPU-hours")
    return lines


def add_estimate_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("estimate", help="price and size an RL run (the calculator's estimate)")
    p.add_argument("catalog", nargs="?", default="catalog", help="catalog folder")
    for option, name, text in OPTIONS:
        help_text = f"{text} (link key {inputs.key(name)})".replace("%", "%%")  # argparse %-formats
        p.add_argument(option, default=None, help=help_text)
    p.add_argument("--full", action="store_true", help="full fine-tuning instead of LoRA")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--sync", dest="asynchronous", action="store_false", default=None,
                      help="each step samples, then trains (the default)")
    mode.add_argument("--async", dest="asynchronous", action="store_true",
                      help="sampling overlaps training (off-policy by a step)")
    p.add_argument("--arch", action="append", metavar="NAME=VALUE",
                   help="a model by its architecture figures, when the catalog lacks it: "
                        + ", ".join(ARCH_FIGURES) + " (params_b in billions)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="any other calculator-link key, e.g. --set T=8")
    p.add_argument("--usage", metavar="FILE", default=None,
                   help="a pilot's token counts: the export of 'tinker billing usage START END' "
                        "(JSON with --format json, or --csv); its mean completion and prompt "
                        "lengths replace --completion-tokens and --prompt-tokens")
    p.add_argument("--usage-steps", metavar="N", default=None,
                   help="steps the pilot ran in the export (of --prompts × --G each)")
    p.add_argument("--usage-session", metavar="ID", default=None,
                   help="count only this session's rows of the export")
    p.add_argument("--json", action="store_true", help="every named quantity with its unit")
    p.set_defaults(func=cmd_estimate)
