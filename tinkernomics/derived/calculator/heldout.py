"""Held-out runs (pipeline step 5, beside ``backtest.py``): each published run's ratio the day it
was added, before the time model could learn from it.

A run's ratio today (``backtest.Row.ratio``) is measured after every constant was fitted and every
piece of physics was added with all catalog runs in view, so it says how well the model explains
the runs, not how well it predicts a new one. ``FIRST_SIGHT`` keeps, for the runs added as
held-out, the ratio (estimate ÷ actual GPU-hours) that ``tinkernomics backtest`` printed under the
time model of the commit named, before anything was changed for them; ``held_out`` sets it beside
today's ratio, and ``summary`` counts how many landed within ``backtest``'s 2× at first sight.

The records are history, not catalog data: a record is added once, with the commit whose model
priced the run, and never edited when the model changes (that is the point of it). A record whose
run is no longer in the catalog is left out. The Back-test page and its JSON file show the table.
The earlier batches' records are in ``heldout_records.py``; new batches are appended here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tinkernomics.derived.calculator import spread
from tinkernomics.derived.calculator.backtest import Row, constant, geometric_mean
from tinkernomics.derived.calculator.graph import Quantity
from tinkernomics.derived.calculator.heldout_records import FIRST_SIGHT as EARLIER
from tinkernomics.derived.calculator.heldout_records import FirstSight

FIRST_SIGHT: tuple[FirstSight, ...] = EARLIER
"""Every record, in the order added: the earlier batches (``heldout_records``), then the
batches appended below."""


WITHIN = 2.0
"""The factor a held-out ratio is counted within (issue 42's done-when: every run within 2×)."""


@dataclass(frozen=True)
class HeldOut:
    """A held-out run: its ratio at first sight beside today's."""

    run: str
    name: str
    first: float
    now: float | None
    commit: str
    added: str


def held_out(rows: Iterable[Row],
             records: Iterable[FirstSight] | None = None) -> list[HeldOut]:
    """The records (``FIRST_SIGHT`` as the module ends it, unless given) whose run is among
    ``rows``, in record order, with today's ratio."""
    by_id = {r.run: r for r in rows}
    return [HeldOut(f.run, by_id[f.run].name, f.ratio, by_id[f.run].ratio, f.commit, f.added)
            for f in (FIRST_SIGHT if records is None else records) if f.run in by_id]


def within(ratio: float) -> bool:
    """True when ``ratio`` is within ``WITHIN`` of 1 either way."""
    return 1 / WITHIN <= ratio <= WITHIN


@dataclass(frozen=True)
class Summary:
    """How the held-out runs landed at first sight: how many, how many within 2×, their
    geometric mean and the middle ``spread.INNER`` of their ratios (None without runs)."""

    count: int
    within: int
    geometric_mean: float | None
    inner_low: float | None = None
    inner_high: float | None = None


def summary(found: list[HeldOut]) -> Summary:
    """Count, count within 2×, geometric mean and middle band of the first-sight ratios."""
    ratios = [h.first for h in found if h.first > 0]
    if not ratios:
        return Summary(len(found), 0, None)
    return Summary(len(found), sum(within(x) for x in ratios), geometric_mean(ratios),
                   *spread.inner(ratios))


def range_quantities(rows: Iterable[Row]) -> list[Quantity]:
    """How far runs the model had not seen landed at first sight, as graph quantities beside
    ``backtest.range_quantities``: the middle band of the held-out ratios (``heldout.low``,
    ``heldout.high``), their count, and the self-hosted GPU-hours that band leaves room for.
    The in-sample band says how well the model explains the runs it was fitted with; this one
    how far a run it had not seen landed, under the model of the day it was added."""
    s = summary(held_out(rows))

    q = Quantity
    return [
        q("heldout.low", constant(s.inner_low), format="ratio",
          label="10th percentile of the held-out runs' estimate ÷ actual at first sight",
          shown=False),
        q("heldout.high", constant(s.inner_high), format="ratio",
          label="90th percentile of the held-out runs' estimate ÷ actual at first sight",
          shown=False),
        q("heldout.runs", repr(float(s.count)), format="count",
          label="Held-out runs", shown=False),
        q("self.gpu_hours_unseen_low", "self.gpu_hours / heldout.high", format="hours",
          label="GPU-hours, low end (held-out runs at first sight)"),
        q("self.gpu_hours_unseen_high", "self.gpu_hours / heldout.low", format="hours",
          label="GPU-hours, high end (held-out runs at first sight)"),
    ]


_THREAD42 = "1b24430"
"""Main's head when thread42 branched (2026-12-07): its time model, unchanged on that branch,
priced three measured runs found in users' GitHub issues, each batch with ``tinkernomics
backtest --json`` run after it was added (catalog files, and a validation fix that lets an issue
page be cited as a page) and before anything else was changed: first Open R1's simple-RL GRPO
recipe for Qwen2.5-Math-7B run unmodified on 8 H100 (huggingface/open-r1 issue #251, 2025-02-09:
the first 9 of 468 steps in 10 min 25 s, with the trainer's logged mean completion length), its
settings from the repository (db19392) and TRL's main branch (55e680e) of that day; then
DeepScaleR's 8K-stage script run as published on 8 H200 and on 8 A100 (agentica-project/
deepscaler issue #29, 2025-02-15: 396 and 394 s a step), its settings from the repository at
95ef74f and its mean response length assumed from the authors' blog. This block is appended to
``FIRST_SIGHT`` at the end of the module, beside any other branch's."""

FIRST_SIGHT += (
    FirstSight("open-r1-issue251-qwen2.5-math-7b-h100-8", 1.166, _THREAD42, "2026-12-07"),
    FirstSight("deepscaler-issue29-r1-distill-1.5b-8k-h200-8", 0.825, _THREAD42, "2026-12-07"),
    FirstSight("deepscaler-issue29-r1-distill-1.5b-8k-a100-8", 1.150, _THREAD42, "2026-12-07"),
)

_NEW42G = "9c7448f"
"""Main's head when new42g branched (2026-12-07): its time model, unchanged on that branch,
priced two runs of SimpleRL-Zero (PPO from Qwen2.5-Math-7B on 8K MATH problems, the authors'
OpenRLHF 0.5.0 fork with vLLM 0.4.2, hkust-nlp/simpleRL-reason at 57f24ed) with ``tinkernomics
backtest --json`` run after their catalog files were added and before anything else changed:
the authors' 4-node run as the README states it (32 GPUs, H100 by a maintainer in issue #9,
120 steps in about 1.5 days), and a user's episode of the one-node script on a node of H100
(issue #20: about 2.5 hours an episode of about 8 rollouts, on the script's 6 GPUs); both at an
assumed mean of 700 tokens, the user's stated training length from episode 6 on. This block is
appended to ``FIRST_SIGHT`` at the end of the module, beside any other branch's."""

FIRST_SIGHT += (
    FirstSight("simplerl-zero-qwen2.5-math-7b-h100-32", 0.334, _NEW42G, "2026-12-07"),
    FirstSight("simplerl-issue20-qwen2.5-math-7b-h100-6", 1.724, _NEW42G, "2026-12-07"),
)

_HELD42 = "9af464b"
"""Main's head when held42 branched (2026-12-07): its time model, unchanged on that branch,
priced four published runs the catalog did not hold, each batch with ``tinkernomics backtest
--json`` run after its catalog files were added (runs, references, copies of the sources) and
before anything else was changed. First Open-Reasoner-Zero-7B, vanilla PPO with a critic from
the Qwen2.5-7B base model on 57K math problems, 128 prompts × 64 responses a step on the
authors' fork of OpenRLHF with everything colocated (Open-Reasoner-Zero/Open-Reasoner-Zero at
ed9e0d7), timed by a maintainer in issue #1 (2025-02-24: 8 × 8 H800 for 5.5 days), its steps
(about 740) and mean response length (about 1,570 tokens) read off the README's Figure 2. Then
Ai2's two reproductions of Llama-3.1-Tulu-3.1-8B on open-instruct's GRPO page
(allenai/open-instruct at 686a521a3): GRPO from Llama-3.1-Tulu-3-8B-DPO for 2M episodes of 16
samples a prompt, with grpo_fast.py on one node (6 learners, 2 vLLM engines; about 30 hours)
and with the legacy grpo_vllm_thread_ray_gtrl.py on two (12 learners, 4 engines; about 41
hours), the hours and the mean response lengths (about 350 and 370 tokens) read off the page's
figures, the GPUs taken as H100. Last the same page's experimental zero-style run of the next
commit (d208aa3): GRPO from the Qwen2.5-7B base model on zero-shot math with grpo_fast.py on
two nodes (4 ZeRO-3 learners, 12 vLLM engines), 5M episodes of 48 prompts × 16 in about 65
hours at a mean of about 560 tokens, both read off its figures. This block is appended to
``FIRST_SIGHT`` at the end of the module, beside any other branch's."""

FIRST_SIGHT += (
    FirstSight("orz-7b-ppo-h800-64", 0.537, _HELD42, "2026-12-07"),
    FirstSight("tulu3.1-8b-grpo-fast-h100-8", 0.883, _HELD42, "2026-12-07"),
    FirstSight("tulu3.1-8b-grpo-h100-16", 0.498, _HELD42, "2026-12-07"),
    FirstSight("qwen2.5-7b-grpo-fast-zero-openinstruct-h100-16", 1.460, _HELD42, "2026-12-07"),
)

_HELD43 = "a6f5478"
"""Main's head when held43 branched (2026-12-07): its time model, unchanged on that branch,
priced published runs the catalog did not hold, each with ``tinkernomics backtest --json`` run
after its catalog files were added (run, references, copies of the sources) and before anything
else was changed. First the RLVR stage of Llama-3.1-Tulu-3-70B: PPO from Llama-3.1-Tulu-3-70B-DPO
with open-instruct's ppo_vllm_thread_ray_gtrl.py as published with Tulu 3 (allenai/open-instruct
at 30d11b4: 640 prompts a step on 40 ZeRO-3 learners holding the policy, reference, an 8B value
and an 8B reward network, one vLLM engine of tensor parallelism 4, responses padded to 2,048
tokens, four PPO epochs a rollout, 400,000 episodes), timed by a Tulu 3 author in issue #485
(2024-12-15: about 60 hours on 48 GPUs), the GPU taken as H100 and the mean response length
assumed. Then one GRPO step of VLM-R1's referring-expression script (om-ai-lab/VLM-R1 at
9ed36f1: Qwen2.5-VL-3B-Instruct under DeepSpeed ZeRO-3 on 8 processes, one prompt a process and
two accumulated micro-batches a step, each group decoded with Hugging Face generate), timed by a
maintainer in issue #30 (2025-02-22: about 25 to 30 s a step with 7 generations on 8 A100 80GB),
the prompt and answer lengths assumed. Last RLPR's main Qwen2.5-7B run (OpenBMB/RLPR at
8490fca on its fork of verl: GRPO advantages with the probability-of-reference-answer reward, 768
prompts × 8 a step, 4 updates, eager vLLM at tensor parallelism 2), 320 steps in 4 days 13 hours
per an author in issue #16 on the paper's 32 A100, the prompt and mean response lengths assumed;
its extra reward pass and the regeneration behind its reward-spread filter are not priced. This
block is appended to ``FIRST_SIGHT`` at the end of the module, beside any other branch's."""

FIRST_SIGHT += (
    FirstSight("tulu3-70b-rlvr-ppo-h100-48", 0.368, _HELD43, "2026-12-07"),
    FirstSight("vlm-r1-qwen2.5-vl-3b-rec-a100-8", 1.153, _HELD43, "2026-12-07"),
    FirstSight("rlpr-qwen2.5-7b-a100-32", 0.196, _HELD43, "2026-12-07"),
)

_HELD44 = "dc73064"
"""Main's head when held44 branched (2026-12-07): its time model, unchanged on that branch,
priced published runs the catalog did not hold, each with ``tinkernomics backtest --json`` run
after its catalog files were added (run, references, copies of the sources, a missing model) and
before anything else was changed. First R1-V's GRPO run on CLEVR counting (Deep-Agent/R1-V at
412ced0: Qwen2-VL-2B-Instruct, plain data parallel on 8 processes, 16 prompts × 8 a step with
TRL main's defaults, each completion decoded alone with Hugging Face generate), whose README
gives 30 minutes on 8 A100 and an author 100 steps for them (issue #8, 2025-02-05); the prompt
length assumed, the mean answer length (about 32 tokens) read off the README's curves, the
model's shape taken from Qwen2-1.5B's. Then the multimodal Open R1 fork R1-V started from
(EvolvingLMMs-Lab/open-r1-multimodal at 10f45f9: Qwen2-VL-2B-Instruct under ZeRO-3 on 8
processes, 8 prompts × 8 a step, each group decoded in one Hugging Face generate call), whose
README gives 10 hours for one epoch of its 8k math samples on 8 H100; the prompt and answer
lengths assumed. Last the GRPO baseline of the MaxRL paper (tajwarfahim/maxrl at 13f9d22, a verl
0.4 fork: Qwen3-4B-Base on POLARIS-53K, 256 prompts × 16 a step, a 4,096-token cap, no KL, vLLM
colocated at tensor parallelism 1), 1,000 steps in about 3 days on 4 nodes of 8 H200 per the
first author in issue #2 (2026-03-06), a sentence that covers the GRPO and MaxRL runs both; the
prompt and mean response lengths assumed. This block is appended to ``FIRST_SIGHT`` at the end
of the module, beside any other branch's."""

FIRST_SIGHT += (
    FirstSight("r1v-qwen2-vl-2b-clevr-a100-8", 12.240, _HELD44, "2026-12-07"),
    FirstSight("open-r1-multimodal-qwen2-vl-2b-8k-h100-8", 0.399, _HELD44, "2026-12-07"),
    FirstSight("maxrl-grpo-qwen3-4b-base-polaris-h200-32", 0.363, _HELD44, "2026-12-07"),
)
