"""What the calculator page shows, as data (pipeline step 6: calculator feature).

The results are blocks of text templates over the estimate, rendered by calculator.js: in a
template ``{key}`` is a quantity or input in its own format (a shown quantity is tagged with
``data-key``), ``{key:format}`` in another (``rate``, ``plain``, ``text`` for names),
``{formula:id}``, ``{formula_name:id}`` and ``{badge:id}`` show a catalog formula (the id may be
a name such as ``train_formula``). A block or row with ``when`` shows only where that
expression is non-zero; ``cases`` pick the first template whose condition holds. Cost lines
come from the graph's ``Line`` entries, so a new line appears with no change here.
"""

from __future__ import annotations

from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import ids, limits, spread
from tinkernomics.derived.calculator.graph import Graph
from tinkernomics.derived.calculator.memory import LOGIT_CHUNK
from tinkernomics.derived.calculator.tree import to_tree

ROW = "1 - missing(price.prefill)"
APPROX = "(mem.uncounted_layers > 0)"
"""The model has layers whose state the memory model does not count (hybrid models)."""
UNCOVERED = "role.critic + role.reward_model > 0"


def _w(expression: str) -> Any:
    return to_tree(expression) if expression else None


def cases(*pairs: tuple[str, str]) -> list[list[Any]]:
    return [[_w(when), template] for when, template in pairs]


def spread_rule() -> str:
    """The range's rule in words (``spread.RULE``), with the count of runs it is taken over."""
    return (f"the middle {spread.INNER:.0%} of {{backtest.runs:count}} published runs "
            f"({spread.LOW * 100:.0f}th–{spread.HIGH * 100:.0f}th percentile)")


def self_hosted_card() -> dict[str, Any]:
    """The self-hosted bill: GPU-hours, wall-clock on the run's GPUs and, when the catalog
    holds published runs, the spread they landed at (``backtest.*``)."""
    own = ("{self.total}<small>{self.gpu_hours} GPU-hours on {hw_name:text} at {gpu_price} per "
           "GPU-hour; ≈ {wall_clock_hours} hours on {time.gpus:count} GPU")
    ranged = ("; over " + spread_rule() + ", such estimates came out at {backtest.low}–"
              "{backtest.high} of what the run used, so {self.gpu_hours_low}–"
              "{self.gpu_hours_high} GPU-hours ({self.total_low}–{self.total_high})")
    unseen = ("; runs priced before the model had seen them landed at {heldout.low}–"
              "{heldout.high} (the middle " + f"{spread.INNER:.0%}" + " of {heldout.runs:count} "
              "held-out runs at first sight): {self.gpu_hours_unseen_low}–"
              "{self.gpu_hours_unseen_high} GPU-hours")
    back = "; see the back-test</small>"
    return {"title": "Self-hosted compute", "cases": cases(
        ("missing(mem.shape_known) * missing(self.gpu_hours)", "{self.total}<small>unknown: "
         "the catalog gives only the size of {model_name:text}, not its architecture (layers, "
         "heads, hidden size), so its KV cache, attention and memory cannot be timed; give its "
         "figures under \"A model the catalog lacks\" (from its config.json)</small>"),
        ("missing(gpu_price)", "{self.total}<small>{self.gpu_hours} GPU-hours on "
         "{hw_name:text}, which has no rental price in the catalog: enter a Price per "
         "GPU-hour (USD) to price them</small>"),
        ("missing(backtest.low) * (time.gpus == 1)", own + "</small>"),
        ("missing(backtest.low)", own + "s</small>"),
        ("missing(heldout.low) * (time.gpus == 1)", own + ranged + back),
        ("missing(heldout.low)", own + "s" + ranged + back),
        ("time.gpus == 1", own + ranged + unseen + back),
        ("", own + "s" + ranged + unseen + back))}


def cards(no_tinker: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """The headline cards; ``no_tinker`` the (condition, text) of each thing Tinker cannot run
    (``limits.reasons``): where one holds, there is no Tinker bill and no break-even."""
    gone = [(when, "{tinker.total}<small>" + text + "</small>") for when, text in no_tinker or []]
    tinker = ("{tinker.total}<small>{model_name:text}{variant:text} at Tinker's prices as of "
              "{price.effective:text}")
    even = ("{breakeven.gpu_price}<small>per GPU-hour ({tinker.total} ÷ {self.gpu_hours} "
            "GPU-hours) makes both bills equal; Tinker costs {breakeven.ratio} the self-hosted "
            "compute")
    even_range = (" ({breakeven.ratio_low}–{breakeven.ratio_high} over the published runs' "
                  f"middle {spread.INNER:.0%}: {{breakeven.gpu_price_low}}–"
                  "{breakeven.gpu_price_high} per GPU-hour)")
    return [
        {"title": "Tinker bill", "cases": cases(
            *gone,
            (f"({ROW}) * ({UNCOVERED})", tinker + "; without the {not_covered:text}, which "
             "Tinker does not run</small>"),
            (ROW, tinker + "</small>"),
            ("", "{tinker.total}<small>{model_name:text} has no row in the {price_list:text} "
             "price list: {model.listing:text}</small>"))},
        self_hosted_card(),
        {"title": "Break-even GPU price", "cases": cases(
            ("tinker.no", "{breakeven.gpu_price}<small>none: Tinker cannot run this job (see "
             "the Tinker bill)</small>"),
            (f"1 - ({ROW})", "{breakeven.gpu_price}<small>needs a Tinker price</small>"),
            ("missing(breakeven.gpu_price)", "{breakeven.gpu_price}<small>needs both bills and "
             "some compute to compare</small>"),
            ("1 - missing(breakeven.runs)", even + "; {breakeven.runs} such runs repay the "
             "{const.setup:usd} of building the stack</small>"),
            ("missing(breakeven.ratio_low)", even + "</small>"),
            ("", even + even_range + "</small>"))},
        {"title": "GPU memory", "cases": cases(
            ("missing(mem.peak)", "{mem.peak}<small>unknown: the catalog does not give "
             "enough of {model_name:text}'s architecture for this run (see GPU memory)"
             "</small>"),
            (f"{APPROX} * run.online", "{mem.peak}<small>approximate, at the peak (rollout "
             "{mem.rollout}, training {mem.training}): {mem.min_gpus} × {hw_name:text} "
             "({hw.memory_gb:number} GB each)</small>"),
            ("run.online", "{mem.peak}<small>at the peak (rollout {mem.rollout}, training "
             "{mem.training}): {mem.min_gpus} × {hw_name:text} ({hw.memory_gb:number} GB "
             "each)</small>"),
            ("", "{mem.peak}<small>training only (no rollouts): {mem.min_gpus} × "
             "{hw_name:text} ({hw.memory_gb:number} GB each)</small>"))},
    ]


def token_rows() -> list[dict[str, Any]]:
    def row(label: str, key: str, *pairs: tuple[str, str]) -> dict[str, Any]:
        return {"label": label, "cells": [key], "cases": cases(*pairs), "when": None}

    rows = [
        row("Episodes", "tokens.episodes",
            ("(1 - run.online) * (run.G == 2)", "{run.steps:count} steps × {run.prompts:count} "
             "examples × 2 sequences (a chosen and a rejected answer; offline: no G, nothing "
             "sampled)"),
            ("(1 - run.online) * (run.G == 1)", "{run.steps:count} steps × {run.prompts:count} "
             "examples × 1 labelled answer (offline: no G, nothing sampled)"),
            ("", "{run.steps:count} steps × {run.prompts:count} prompts × G {run.G:count}")),
        row("Prefill", "tokens.prefill",
            ("run.online", "(T·C0 + Δ·T(T−1)/2 with T = {run.T:count}, C0 = {run.C0:count}, "
             "Δ = {run.delta:count}: {tokens.prefill_per_episode:count} per episode) × "
             "episodes; every turn re-sends the whole context"),
            ("", "none: an offline method samples nothing")),
        row("of which cached", "tokens.prefill_cached",
            ("", "((T−1)·C0 + Δ·(T−1)(T−2)/2 = {tokens.cached_per_episode:count} per episode) "
             "× episodes: all but the newest context")),
        row("Sampled", "tokens.sample",
            ("run.online", "T × {run.out:count} completion tokens × episodes"), ("", "none")),
        row("Trajectories", "tokens.sequence",
            ("", "(C0 + Δ·(T−1) + completion = {tokens.sequence_per_episode:count}) × "
             "episodes: what one scoring pass reads")),
        row("Trained", "tokens.train",
            ("", "trajectories × K (K = {run.K:count} optimisation passes)")),
    ]
    rows[2]["when"] = _w("run.cache")
    return rows


def line_rows(graph: Graph, group: str) -> list[dict[str, Any]]:
    """One row per cost line of a bill, its 'How' template pointed at the line's quantities."""
    found = []
    for line in graph.lines:
        if line.group != group:
            continue
        k = f"{group}.{line.key}"
        how = line.how
        for part in ("amount", "rate", "per_token", "mfu", "gpu_hours"):
            how = how.replace("{" + part, "{" + k + "." + part)
        cells = [k] if group == "tinker" else [f"{k}.flops", f"{k}.gpu_hours", f"{k}.usd"]
        found.append({"label": line.label, "cells": cells, "cases": cases(("", how)),
                      "when": _w(f"1 - missing({cells[-1]})")})
    return found


MEMORY_ROWS: tuple[tuple[str, str, str, str], ...] = (
    # (quantity, label, phase, how). Phase: both, rollout or training.
    ("mem.policy", "Policy weights", "both", "{p.total:count} parameters × 2 bytes (bf16)"),
    ("mem.adapter", "LoRA adapter", "both", "{mem.lora_params:count} parameters (rank "
     "{lora.rank:count} × {model.layers:count} layers × every attention and MLP matrix) × 2"),
    ("mem.reference", "Reference", "both", "{p.total:count} × 2 bytes if a separate copy, else "
     "0: under LoRA the reference is the base with the adapter off"),
    ("mem.teacher", "Teacher", "both", "{p.teacher_total:count} parameters × 2 bytes"),
    ("mem.reward_model", "Reward model", "both", "taken as large as the policy, × 2 bytes"),
    ("mem.kv_cache", "KV cache", "rollout", ""),
    ("mem.gradients", "Gradients", "training", "{mem.trainable:count} trained parameters × 2"),
    ("mem.optimiser", "Optimiser state", "training", "{mem.trainable:count} × 12 (fp32 master "
     "weights and two Adam moments; ZeRO's 16 bytes a parameter with weights and gradients)"),
    ("mem.critic", "Critic", "training", "weights, gradients and Adam state of a value model"),
    ("mem.activations", "Activations", "training", "{model.layers:count} layers × "
     "{mem.activations_per_layer:gb} (micro-batch {run.mb:count} × "
     "{tokens.train_sequence_per_episode:count} tokens; recomputation {run.ac:count}: 2 full, "
     "1 selective, 0 none)"),
    ("mem.logits", "Logits", "training", "vocabulary {model.vocab:count} × "
     "{run.mb:count} × {mem.logit_tokens:count} tokens (the sequence's, at most a loss chunk "
     f"of {LOGIT_CHUNK:,.0f}) × 4 bytes (fp32)"),
    ("mem.rollout", "Rollout phase", "total", "weights, frozen models and the KV cache"),
    ("mem.training", "Training phase", "total", "weights, frozen models, trained state, "
     "activations and logits"),
)


MEMORY_FLAGS = [f"formula:{ids.MEM_ZERO}", f"formula:{ids.MEM_KV}",
                f"formula:{ids.MEM_ACTIVATIONS}"]


KV_TAIL = ("× {mem.decode_sequences:count} sequences, the KV room the sizing reserves "
           "(the sampler then decodes as many as its free memory holds) × "
           "{tokens.sequence_per_episode:count} tokens")
KV_CASES = (
    ("1 - missing(model.kv_latent)", "{mem.kv_per_token:count} bytes a token (multi-head latent "
     "attention: {model.layers:count} layers × a {model.kv_latent:count}-wide latent × 2) "
     + KV_TAIL),
    ("1 - missing(model.sliding)", "{mem.kv_per_token:count} bytes a token in the "
     "full-attention layers (2 × layers × KV heads × head size × 2) " + KV_TAIL + "; the "
     "{model.sliding:count} sliding-window layers hold at most {model.window:count} tokens a "
     "sequence: {mem.kv_window_per_sequence:count} bytes × {mem.decode_sequences:count}"),
    ("1 - missing(model.kv_layers)", "{mem.kv_per_token:count} bytes a token (2 × "
     "{model.kv_layers:count} full-attention layers × KV heads × head size × 2) " + KV_TAIL
     + "; approximate: the other {mem.uncounted_layers:count} layers' fixed state per sequence "
     "is not counted"),
    ("", "{mem.kv_per_token:count} bytes a token (2 × layers × KV heads × head size × 2) "
     + KV_TAIL),
)


ADAPTER_MOE = (("coalesce(model.experts, 0) > 1", "{mem.lora_params:count} parameters (rank "
                 "{lora.rank:count} × {model.layers:count} layers × every attention matrix and "
                 "every one of the {model.experts:count} experts' MLP matrices: on a mixture of "
                 "experts the adapter sits on each expert, so it grows with their number) × 2"),)
"""Issue 44: a mixture-of-experts model's adapter, said in words (the count is the same)."""


def memory_rows(catalog: Catalog) -> list[dict[str, Any]]:
    """One row per memory term (``derived/calculator/memory.py``), its phase in the label."""
    where = {"both": " (both phases)", "rollout": " (rollout)", "training": " (training)",
             "total": ""}
    return [{"label": label + where[phase], "cells": [key],
             "cases": cases(*KV_CASES) if key == "mem.kv_cache" else cases(
                 *(ADAPTER_MOE if key == "mem.adapter" else ()), ("", how)),
             "when": _w(f"1 - missing({key})")} for key, label, phase, how in MEMORY_ROWS]


APPROX_NOTE = ('<p class="tn-calc__note tn-calc__approx"><strong>Approximate for '
               "{model_name:text}:</strong> {mem.uncounted_layers:count} of its "
               "{model.layers:count} layers are linear-attention or Mamba layers; their fixed "
               "state per sequence is not counted, and activations are taken as a transformer "
               "layer's.</p>")


def training_note() -> list[list[Any]]:
    note = ('<p class="tn-calc__note tn-calc__training-formula" data-formula="'
            '{train_formula:text}">Training FLOPs per token: {formula_name:train_formula} '
            '{formula:train_formula} {badge:train_formula}.')
    switch = ' Switch with “LoRA FLOP accounting”: {formula_name:%s} ({formula:%s}, {status:%s}).'
    sourced, site = ids.FLOPS_LORA_SOURCED, ids.FLOPS_LORA
    return cases(("run.lora * run.lf_site", note + switch % (sourced, sourced, sourced) + "</p>"),
                 ("run.lora", note + switch % (site, site, site) + "</p>"),
                 ("", note + "</p>"))


def _table(block_id: str, title: str, head: list[str], rows: list[dict[str, Any]],
           total: list[str], flags: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "table", "id": block_id, "title": title, "head": head, "rows": rows,
            "total": total, "flags": flags, "before": [], "after": [], "when": None, **extra}


def _tinker(graph: Graph) -> dict[str, Any]:
    notes = ('<p class="tn-calc__note">Scoring with a reference or teacher is billed as prefill '
             "(the cookbook calls <code>compute_logprobs</code> on a sampling client). Tinker "
             "trains LoRA adapters only: a run with full fine-tuning, or one that trains a "
             "critic, is not offered on it (no bill).")
    return _table(
        "calc-tinker", "Tinker bill", ["Kind", "How", "Cost"], line_rows(graph, "tinker"),
        ["", "{tinker.total}"],
        ["{row}", "{teacher_row}", "prices:{price_list}:cache", "prices:{price_list}:storage"],
        missing=cases((f"1 - ({ROW})", "<p>{model_name:text} has no price in the "
                       "{price_list:text} list ({model.listing:text}); pick another price list "
                       "or model.</p>")),
        after=[cases((UNCOVERED, notes + " Tinker runs no {not_covered:text}: those would have "
                      "to run elsewhere and are not in this bill.</p>"), ("", notes + "</p>"))])


def _own(graph: Graph) -> dict[str, Any]:
    note = ('<p class="tn-calc__note">Utilisation, as the time model runs it: training and '
            "scoring {time.mfu_train}, prefill {mfu.prefill}; decode %s. Compute only: no idle "
            "GPUs, engineering, storage or egress. The reward model and critic are taken as "
            "large as the policy.</p>")
    physics = ("is timed from memory traffic ({time.batch:count} sequences decoded at once per "
               "sampler, tensor parallel {time.tp:count}), which makes {self.decode.mfu} of "
               "peak")
    given = "at the utilisation or throughput you gave: {self.decode.mfu} of peak"
    return _table(
        "calc-self", "Self-hosted compute", ["Phase", "How", "FLOP", "GPU-hours", "Cost"],
        line_rows(graph, "self"),
        ["at {gpu_price} per GPU-hour", "{self.flops}", "{self.gpu_hours}", "{self.total}"],
        ["assumption:time:train_mfu_max", "assumption:mfu_prefill",
         "assumption:time:bandwidth_efficiency", "formula:{train_formula}",
         "hardware:{hw}:price"],
        after=[cases(("missing(set.mfu_decode) * missing(set.tps)", note % physics),
                     ("", note % given)), training_note()])


NO_FIT = ("<p>No sourced ScaleRL fit exists for {algorithm_name:text}, so no compute to "
          "converge is priced: the catalog takes a convergence curve only from a source that "
          "reports its A, B and C<sub>mid</sub> with a locator, never from the original site's "
          "values. The algorithm's page says what the sources do report.</p>")
"""The convergence section's text for an algorithm without a charted (sourced) fit."""


def _convergence() -> dict[str, Any]:
    text = ("<p>{algorithm_name:text}'s ScaleRL fit reaches {run.target_percent:number}% of its "
            "gain (pass rate {scalerl.reward} of an asymptote of {fit.A:number}%) at C = "
            "C<sub>mid</sub> / (1/f − 1)<sup>1/B</sup> = {fit.C_mid:number} / "
            "(1/{scalerl.fraction:number} − 1)<sup>1/{fit.B:number}</sup> = "
            "{scalerl.gb200_hours} GB200-hours, {scalerl.h100_hours} H100-equivalent "
            "(×{conv.factor:number}, peak dense BF16 ratio).</p><p>On {hw_name:text}: "
            "{scalerl.chosen_hours} GPU-hours at {gpu_price} = {scalerl.usd}; on GB200 at its "
            "default price: {scalerl.gb200_usd}. The fit is the sourced one the charts draw.</p>")
    stretch = ('<p class="tn-calc__stretch"><strong>How far this is stretched.</strong> The fit '
               "was made in one setting: {fit_on:text}. Your run is {model_name:text} "
               "({model.total_b:number}B parameters%s) on your own data: nothing measured this "
               "curve for it, so these hours are the fitted setting's compute, an order of "
               "magnitude, not a forecast for your run.</p>")
    moe = stretch % ", {model.active_b:number}B active, a mixture of experts"
    basis = ("<p>Basis: ScaleRL's measured GB200-hours, not this page's time model, which "
             "puts ScaleRL's 8B recipe at its default batch at {backtest.scalerl} of the hours "
             "the paper reports "
             "(see the back-test): a bottom-up estimate of the same recipe is about that factor "
             "apart.</p>")
    fit, moe_run = "(1 - missing(fit.C_mid))", "(model.active_b < model.total_b)"
    basis_known = "(1 - missing(backtest.scalerl))"
    return {"type": "text", "id": "calc-scalerl", "title": "Compute to converge", "when": None,
            "flags": ["algorithm:{algorithm}:A", "algorithm:{algorithm}:B",
                      "algorithm:{algorithm}:C_mid"],
            "cases": cases((f"{fit} * {moe_run} * {basis_known}", text + moe + basis),
                           (f"{fit} * {moe_run}", text + moe),
                           (f"{fit} * {basis_known}", text + stretch % "" + basis),
                           (fit, text + stretch % ""),
                           ("", NO_FIT))}


SAMPLER_SHORT = ('<p class="tn-calc__missing" role="status"><strong>The sampler does not fit.'
                 "</strong> A sampler engine keeps the whole policy in its GPUs' memory: "
                 "{model_name:text}'s bf16 weights are {time.weights_gb}, and an engine of "
                 "{time.tp} × {hw_name:text} may use {time.engine_room}. Give it at least "
                 "{time.min_engine_gpus} (“GPUs”, or “GPUs per sampler engine”, under “Rented "
                 "GPUs”) to price this run; its time, GPU-hours and self-hosted cost show as "
                 "–.</p>")
"""The message for a run whose sampler engine has no memory left after the weights."""
FEWER_GPUS = ('<p class="tn-calc__missing" role="status"><strong>Fewer GPUs than the memory '
              "model needs.</strong> The run's peak, {mem.peak}, is more than {time.gpus} × "
              "{hw_name:text} hold; the memory model needs {mem.min_gpus}. The time is priced on "
              "the GPUs given, as a run that offloads or shrinks its batches would fit (some "
              "published runs fit in fewer GPUs than this model's peak asks).</p>")
"""The message for a reader's GPU count below the memory model's (``estimate_cli``'s note)."""


def blocks(catalog: Catalog, graph: Graph) -> list[dict[str, Any]]:
    """The results, top to bottom."""
    missing_g = ('<p class="tn-calc__missing" role="status"><strong>G is missing.</strong> The '
                 "catalog gives no typical number of completions per prompt (G) for "
                 "{algorithm_name:text}: enter one under “Run shape” to price this run. Numbers "
                 "that depend on it show as –.</p>")
    return [
        {"type": "text", "id": "", "title": "", "flags": [], "when": _w("missing(run.G)"),
         "cases": cases(("", missing_g))},
        {"type": "text", "id": "", "title": "", "flags": [], "when": _w(limits.OVER_MODEL),
         "cases": cases(*((when, f'<p class="tn-calc__missing" role="status">{text}</p>')
                          for when, text in limits.context_notes()))},  # issue 44: context
        {"type": "text", "id": "", "title": "", "flags": [], "when": _w("coalesce(time.short, 0)"),
         "cases": cases(("", SAMPLER_SHORT))},  # sampler_fit: the engine cannot hold the weights
        {"type": "text", "id": "", "title": "", "flags": [],
         "when": _w("time.fewer_gpus"),
         "cases": cases(("", FEWER_GPUS))},  # as estimate_cli.memory_lines says it
        {"type": "cards", "cards": cards(limits.reasons(catalog)), "when": None},
        {"type": "bars", "id": "calc-money", "title": "Where the money goes", "when": None,
         "phases": [["rollout", "Rollout"],
                    ["reference", "Scoring (reference, teacher, reward model)"],
                    ["training", "Training"], ["storage", "Storage"]]},
        _table("calc-tokens", "Tokens", ["Kind", "How", "Tokens"], token_rows(), [], []),
        _tinker(graph),
        _own(graph),
        _table("calc-memory", "GPU memory", ["Term", "How", "Bytes"], memory_rows(catalog),
               ["GPUs that hold it: {mem.min_gpus} (the peak ÷ {hw.memory_gb:number} GB per "
                "{hw_name:text})",
                "{mem.peak}"],
               MEMORY_FLAGS,
               before=[cases(("", "<p>Memory of the run's two phases, from the model's "
                              "architecture: the peak is the larger. Weights and KV cache in "
                              "bf16; sharded across GPUs (ZeRO), so the GPU count is the peak "
                              "over one GPU's memory.</p>"))],
               after=[cases((APPROX, APPROX_NOTE))]),
        _convergence(),
        {"type": "inputs", "when": None},
    ]
