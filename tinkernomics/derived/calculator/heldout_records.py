"""Held-out runs' first-sight records, the earlier batches (pipeline step 5, data of
``heldout.py``).

Each ``FirstSight`` is a published run's ratio (estimate ÷ actual GPU-hours) under the time model
of the commit named, recorded the day the run was added and never edited (``heldout.py`` says
why). The batches from 2026-12-06 to the one of ``_NEW42F`` were moved here verbatim from
``heldout.py`` when it reached its size limit; later batches are appended at the end of
``heldout.py``, whose ``FIRST_SIGHT`` continues this one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FirstSight:
    """A run's ratio under the model of ``commit``, recorded when the run was added."""

    run: str
    ratio: float
    commit: str
    added: str


_V05 = "cf4b5c4"
"""The commit that added the four NeMo RL v0.5 runs (runs2, 2026-12-06); its time model is main's at
75e9730 (the commit changed only catalog files). The ratios of this commit and of ``_VERL`` and
``_OLMO`` were not written down when they were added: they are ``tinkernomics backtest --json``
run on a ``git archive`` of each commit (runs42b, 2026-12-06), and they match, to the two places
printed, the "last session ... held out" column of stop 53's closing note (``issues stops``):
1.54, 0.69, 0.80, 1.23 for v0.5, 0.26 for verl, 0.53 for OLMo."""
_VERL = "422ec45"
"""The commit that added verl's DeepSeek-V3 step on 96 H20 (runs2), priced by the same model."""
_OLMO = "90626ad"
"""The commit that added OLMo 2 1B RLVR (runs2), priced by the same model."""
_V06 = "3fa2602"
"""The main-branch commit whose time model priced the first runs added on 2026-12-06 (runs42)."""
_MOE = "93b9522"
"""The commit whose time model (with ``moe_train_factor``) priced the second batch that day."""
_H20 = "286a7b6"
"""The commit whose time model (runs42's at 296d6e7, unchanged) priced the four runs of verl's
fully-async page on H20 (docs/advance/fully_async.md), added by runs42b on 2026-12-06."""

_REASON = "ac9b560"
"""The main-branch commit whose time model priced the held-out runs from reasoning-RL reports,
blogs and repositories added by heldout42b on 2026-12-07 (JustRL's ICLR 2026 post and launcher,
EasyR1's performance baselines, Hugging Face's GRPO + vLLM cookbook notebook): the branch changed
no model code, so ``tinkernomics backtest --json`` on it is ac9b560's model."""
_SYS = "ac9b560"
"""Main's head when heldout42a branched (2026-12-07): its time model, unchanged on that branch,
priced the nine runs of two RL-systems sources added there, NeMo-Aligner's PPO step times
(docs/user-guide/rlhf.rst) and DeepSpeed-Chat's RLHF step-3 times (the DeepSpeed-Chat README's
Table 1), with ``tinkernomics backtest --json`` run on the branch after the runs were added
(commit 61f8ff1, catalog files only) and before anything else was changed."""

_EE3 = "ee3f0b4"
"""Main's head when heldout42c branched (2026-12-07): its time model, unchanged on that branch,
priced the fourteen runs added there from three sources, each batch with ``tinkernomics backtest
--json`` run after its runs were added and before anything else was changed: X-R1's three GRPO
runs on 4 RTX 3090 (its README's results table), the four runs of verl's one-step-off page on
16 H20 (docs/advance/one_step_off.md) and the seven NeMo RL v0.6 performance rows the catalog did
not yet hold (docs/about/performance-summary.md)."""

_OPENRLHF = "c8f2f4e"
"""Main's head when heldout42d branched (2026-12-07): its time model, unchanged on that branch,
priced the twelve PPO runs of two OpenRLHF sources added there, the nine rows with a named model
of the benchmark page at commit dbdd43b (benchmark/README.md: Llama 2 7B, 13B and 70B on 8-16
A800, DeepSpeed-Chat and OpenRLHF with and without Ray and vLLM) and the three DeepSpeed-Chat
Hybrid Engine rows of the README's Performance table at commit 391e1de (7B, 13B and 70B on 16-32
A800), with ``tinkernomics backtest --json`` run on the branch after the runs were added
(catalog files only) and before anything else was changed."""

_NEW42 = "907519b"
"""Main's head when new42 branched (2026-12-07): its time model, unchanged on that branch, priced
the runs added there, each batch with ``tinkernomics backtest --json`` run after its runs were
added (catalog files only) and before anything else was changed: first four more rows of verl's
fully-async page (docs/advance/fully_async.md at b178a3c: Qwen2.5-Math-7B colocated sync on 64
H20 and fully async on 16+16 and 32+32, Qwen3-30B-A3B-Base fully async on 96+32), then six more
cells of DeepSpeed-Chat's Table 1 (README.md at 83757d9: OPT-1.3B on 1 and 8 A100 80G, OPT-6.7B and
OPT-30B on 8, OPT-30B and OPT-175B on 64), their per-step batch assumed from the example scripts."""

_NEW42B = "8201c8b"
"""Main's head when new42b branched (2026-12-07): its time model, unchanged on that branch, priced
the fourteen unused rows of three already-kept pages added there, with ``tinkernomics backtest
--json`` run after they were added (catalog files only) and before anything else was changed:
seven rows of NeMo RL v0.5's performance page (Llama-3.1-8B 1-step-off on 16 H100 and on- and
off-policy on 8 GB200, Qwen3-32B 1-step-off on 64 H100, on-policy on 16 and off on 32 GB200,
Qwen3-30B-A3B 1-step-off on 32 GB200), v0.6's 8-step-off Qwen3-30B-A3B row on 192 H100, and six
rows of verl's fully-async page: the 8+8 H20 run of its validation experiment (10K cap, 50 steps)
and five 64+64 ablations (staleness 0, 0.1, 0.3; require_batches 1, 2) that differ from the
64:64 run the model has seen only in settings it does not express."""

_NEW42C = "7ca2094"
"""Main's head when new42c branched (2026-12-07): its time model, unchanged on that branch, priced
seven measured runs of three sources the catalog did not use, with ``tinkernomics backtest --json``
run after each batch was added (catalog files only) and before anything else was changed: RLinf's
Compare with Verl page (RLinf/RLinf at 298084c8b: verl's GRPO step of DeepSeek-R1-Distill-Qwen-7B
on 64 GPUs, H100 assumed, and verl's and RLinf's steps of the 1.5B model on 8 H100), Miles' Qwen3.8
recipe page (radixark/miles at 31f1ca9: one GRPO step of Qwen3.8-27B on 8 H200), then verl's V1
async trainer benchmark (verl-project/verl at 1dda039: Qwen3.5-35B-A3B synchronous on 32 GPUs and
separate_async on 16 + 16 and 16 + 8 H100). Every mean response length is the source's own."""

_AMD42 = "da8d13f"
"""Main's head when amd42 branched (2026-12-07): its time model, unchanged on that branch, priced
AMD's own measured verl runs from two ROCm blogs, with ``tinkernomics backtest --json`` run after
they were added (catalog files and two GPUs, MI300X and MI355X, only) and before anything else was
changed: the veRL-on-AMD post's Qwen2.5-Math-7B DAPO case (first 64 steps, fully async on 16 + 16
"MI300", taken as MI300X, and colocated on 32), and the MI355X walkthrough's two 4 + 4 fully async
runs (ROCm/verl amd-integration at 275342c: Qwen2.5-Math-7B DAPO at 8K, Qwen2.5-VL-7B-Instruct
GRPO on Geometry3k at 2K). The VL run's mean response length is the entry's assumption."""

_NEW42D = "bdea96a"
"""Main's head when new42d branched (2026-12-07): its time model, unchanged on that branch, priced
three measured runs of two SkyRL pages the catalog did not use (NovaSky-AI/SkyRL at a9564572), with
``tinkernomics backtest --json`` run after each was added (catalog files only: one new model,
nemotron-3-nano-4b, from NVIDIA's Megatron-Bridge recipe at 067f987) and before anything else was
changed: the ThunderAgent recipe's Qwen3-32B coding agent on R2E-Gym (40 steps on 32 + 8 H100,
fully asynchronous) without and with the ThunderAgent scheduler, which the model prices alike,
and the Nemotron 3 example's GRPO step of Nemotron-3-Nano-4B on GSM8K on 8 H100. The agent's turns,
tokens a turn and environment seconds, and the 4B's mean response length, are assumptions."""

_NEW42E = "3e8f8da"
"""Main's head when new42e branched (2026-12-07): its time model, unchanged on that branch, priced
four benchmark steps of a source the catalog did not use, a verl Megatron contributor's DAPO
tables on 32 H20 (ISEEKYAN/verl_megatron_practice at 6f4ac40a: dapo14b.csv, dapo32b.csv and the
scripts they ran), with ``tinkernomics backtest --json`` run after they were added (catalog files
only: two new models, qwen3-14b-base and qwen2.5-14b) and before anything else was changed:
Qwen3-14B-Base under FSDP (SP 4) and Megatron (TP 4 × CP 2), Qwen2.5-32B under Megatron (TP 8 ×
PP 2) and Qwen2.5-14B under FSDP (SP 4), each colocated with vLLM at a 20K cap. Every mean
response length is the table's own; the mean prompt is derived from verl's throughput column."""

_NEW42F = "aa5e0f1"
"""Main's head when new42f branched (2026-12-07): its time model, unchanged on that branch, priced
four GRPO step times of a source the catalog did not use, Table 1 of NVIDIA's NeMo-RL v0.3
release post (nvidia-nemo.github.io/blog, 2025-07-21: the mean of steps 22-29 of each run, with
the average generated tokens per sample) and the v0.3.0 configs it ran (NVIDIA-NeMo/RL at
b1c86a8), with ``tinkernomics backtest --json`` run after they were added (catalog files only, no
new model) and before anything else was changed: Llama-3.1-8B-Instruct on 8 GPUs (Megatron),
Llama-3.1-70B on 64 GPUs under Megatron (TP 4 × PP 4) and under PyTorch DTensor (TP 8), and
Qwen3-30B-A3B on 64 GPUs (Megatron, EP 8 × TP 2). Every mean response length is the table's own;
the GPU (H100) and the mean prompt are the entries' assumptions."""

FIRST_SIGHT: tuple[FirstSight, ...] = (
    FirstSight("nemo-rl-v05-llama3.1-8b-h100", 1.538, _V05, "2026-12-06"),
    FirstSight("nemo-rl-v05-qwen3-235b-gb200", 0.687, _V05, "2026-12-06"),
    FirstSight("nemo-rl-v05-qwen3-30b-a3b-h100", 0.796, _V05, "2026-12-06"),
    FirstSight("nemo-rl-v05-qwen3-32b-h100", 1.232, _V05, "2026-12-06"),
    FirstSight("verl-deepseek-v3-671b-h20", 0.263, _VERL, "2026-12-06"),
    FirstSight("olmo2-1b-rlvr", 0.532, _OLMO, "2026-12-06"),
    FirstSight("nemo-rl-v06-deepseek-v3-gb200-128", 0.779, _V06, "2026-12-06"),
    FirstSight("nemo-rl-v06-deepseek-v3-h100-256", 0.722, _V06, "2026-12-06"),
    FirstSight("nemo-rl-v06-qwen3-235b-h100-128", 0.491, _V06, "2026-12-06"),
    FirstSight("nemo-rl-v06-qwen3-30b-a3b-gb200-16", 0.548, _V06, "2026-12-06"),
    FirstSight("nemo-rl-v06-qwen3-30b-a3b-h100-async", 0.667, _V06, "2026-12-06"),
    FirstSight("skyrl-qwen3.5-9b-dapo-h100", 0.908, _V06, "2026-12-06"),
    FirstSight("nemo-rl-v06-deepseek-v3-gb200-256", 0.856, _MOE, "2026-12-06"),
    FirstSight("nemo-rl-v06-deepseek-v3-h100-512", 0.867, _MOE, "2026-12-06"),
    FirstSight("nemo-rl-v06-qwen3-235b-gb200-128", 0.530, _MOE, "2026-12-06"),
    FirstSight("nemo-rl-v06-qwen3-235b-h100-256", 0.619, _MOE, "2026-12-06"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-32-sync", 4.120, _H20, "2026-12-06"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-sync", 4.643, _H20, "2026-12-06"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-async", 3.425, _H20, "2026-12-06"),
    FirstSight("verl-async-qwen3-30b-a3b-h20-128-sync", 0.906, _H20, "2026-12-06"),
    FirstSight("justrl-deepseek-1.5b", 1.109, _REASON, "2026-12-07"),
    FirstSight("justrl-nemotron-1.5b", 0.881, _REASON, "2026-12-07"),
    FirstSight("easyr1-qwen3-vl-30b-a3b-instruct-geo3k-h800", 0.059, _REASON, "2026-12-07"),
    FirstSight("easyr1-qwen3-vl-30b-a3b-thinking-geo3k-h800", 0.049, _REASON, "2026-12-07"),
    FirstSight("easyr1-qwen2.5-vl-3b-geo3k-h100", 0.743, _REASON, "2026-12-07"),
    FirstSight("easyr1-qwen2.5-vl-7b-geo3k-h100", 0.897, _REASON, "2026-12-07"),
    FirstSight("easyr1-qwen2.5-vl-32b-geo3k-h100", 1.000, _REASON, "2026-12-07"),
    FirstSight("hf-cookbook-qwen2-0.5b-grpo-vllm-a100", 5.672, _REASON, "2026-12-07"),
    FirstSight("nemo-aligner-llama3-70b-ppo-h100-96", 0.256, _SYS, "2026-12-07"),
    FirstSight("nemo-aligner-llama3-70b-ppo-h100-192", 0.419, _SYS, "2026-12-07"),
    FirstSight("nemo-aligner-llama3-70b-ppo-h100-384", 0.679, _SYS, "2026-12-07"),
    FirstSight("nemo-aligner-llama3-70b-ppo-h100-768", 1.231, _SYS, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-13b-a100-40gb-8", 2.780, _SYS, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-13b-a100-80gb-8", 3.307, _SYS, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-13b-a100-80gb-64", 2.986, _SYS, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-66b-a100-80gb-8", 2.682, _SYS, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-66b-a100-80gb-64", 2.254, _SYS, "2026-12-07"),
    FirstSight("x-r1-qwen2.5-0.5b-rtx3090", 3.619, _EE3, "2026-12-07"),
    FirstSight("x-r1-qwen2.5-1.5b-rtx3090", 2.236, _EE3, "2026-12-07"),
    FirstSight("x-r1-qwen2.5-3b-rtx3090", 1.839, _EE3, "2026-12-07"),
    FirstSight("verl-one-step-off-qwen2.5-math-7b-h20-fsdp2-colocate-sync", 2.252, _EE3,
               "2026-12-07"),
    FirstSight("verl-one-step-off-qwen2.5-math-7b-h20-fsdp2-4-12-async", 2.424, _EE3, "2026-12-07"),
    FirstSight("verl-one-step-off-qwen2.5-math-7b-h20-megatron-colocate-sync", 2.415, _EE3,
               "2026-12-07"),
    FirstSight("verl-one-step-off-qwen2.5-math-7b-h20-megatron-4-12-async", 2.227, _EE3,
               "2026-12-07"),
    FirstSight("nemo-rl-v06-qwen3-30b-a3b-h100-32", 0.826, _EE3, "2026-12-07"),
    FirstSight("nemo-rl-v06-qwen3-235b-gb200-64", 0.678, _EE3, "2026-12-07"),
    FirstSight("nemo-rl-v06-deepseek-v3-h100-512-async", 0.696, _EE3, "2026-12-07"),
    FirstSight("nemo-rl-v06-qwen3-235b-h100-256-async", 0.807, _EE3, "2026-12-07"),
    FirstSight("nemo-rl-v06-deepseek-v3-gb200-256-async", 0.706, _EE3, "2026-12-07"),
    FirstSight("nemo-rl-v06-qwen3-235b-gb200-128-async", 0.385, _EE3, "2026-12-07"),
    FirstSight("nemo-rl-v06-qwen3-30b-a3b-gb200-16-async", 0.341, _EE3, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-7b-dschat-offload-a800-8", 0.786, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-7b-dschat-a800-8", 1.363, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-7b-deepspeed-a800-8", 0.624, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-7b-ray-a800-8", 0.235, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-7b-ray-vllm-a800-8", 0.882, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-13b-dschat-offload-a800-8", 0.942, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-13b-ray-a800-8", 0.260, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-13b-ray-vllm-a800-8", 0.831, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-bench-llama2-70b-ray-vllm-a800-16", 0.919, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-readme-llama2-7b-dschat-he-a800-16", 0.193, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-readme-llama2-13b-dschat-he-a800-32", 0.102, _OPENRLHF, "2026-12-07"),
    FirstSight("openrlhf-readme-llama2-70b-dschat-he-a800-32", 0.057, _OPENRLHF, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-64-sync", 1.598, _NEW42, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-32-async", 3.336, _NEW42, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-64-async", 2.591, _NEW42, "2026-12-07"),
    FirstSight("verl-async-qwen3-30b-a3b-h20-128-async", 2.470, _NEW42, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-1.3b-a100-80gb-1", 5.443, _NEW42, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-1.3b-a100-80gb-8", 19.838, _NEW42, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-6.7b-a100-80gb-8", 7.805, _NEW42, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-30b-a100-80gb-8", 3.656, _NEW42, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-30b-a100-80gb-64", 2.052, _NEW42, "2026-12-07"),
    FirstSight("deepspeed-chat-opt-175b-a100-80gb-64", 0.831, _NEW42, "2026-12-07"),
    FirstSight("nemo-rl-v05-llama3.1-8b-h100-16-async", 1.502, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v05-llama3.1-8b-gb200-8", 1.141, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v05-llama3.1-8b-gb200-8-async", 1.116, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v05-qwen3-32b-h100-64-async", 1.188, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v05-qwen3-32b-gb200-16", 0.958, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v05-qwen3-32b-gb200-32-async", 0.927, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v05-qwen3-30b-a3b-gb200-32-async", 1.093, _NEW42B, "2026-12-07"),
    FirstSight("nemo-rl-v06-qwen3-30b-a3b-h100-192-async-8off", 1.762, _NEW42B, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-16-async-10k", 2.434, _NEW42B, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-async-stale0", 1.099, _NEW42B, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-async-stale0.1", 1.423, _NEW42B, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-async-stale0.3", 1.641, _NEW42B, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-async-rb1", 1.212, _NEW42B, "2026-12-07"),
    FirstSight("verl-async-qwen2.5-math-7b-h20-128-async-rb2", 1.529, _NEW42B, "2026-12-07"),
    FirstSight("verl-rlinf-bench-deepseek-r1-distill-7b-64gpu", 0.871, _NEW42C, "2026-12-07"),
    FirstSight("verl-rlinf-bench-deepseek-r1-distill-1.5b-h100-8", 1.166, _NEW42C, "2026-12-07"),
    FirstSight("rlinf-deepseek-r1-distill-1.5b-h100-8", 1.153, _NEW42C, "2026-12-07"),
    FirstSight("miles-qwen3.8-27b-h200-8", 0.445, _NEW42C, "2026-12-07"),
    FirstSight("verl-v1-qwen3.5-35b-a3b-32gpu-sync", 0.931, _NEW42C, "2026-12-07"),
    FirstSight("verl-v1-qwen3.5-35b-a3b-16-16-separate-async", 0.931, _NEW42C, "2026-12-07"),
    FirstSight("verl-v1-qwen3.5-35b-a3b-h100-16-8-separate-async", 1.163, _NEW42C,
               "2026-12-07"),
    FirstSight("verl-amd-qwen2.5-math-7b-mi300x-32-async", 1.107, _AMD42, "2026-12-07"),
    FirstSight("verl-amd-qwen2.5-math-7b-mi300x-32-colocate-sync", 0.692, _AMD42, "2026-12-07"),
    FirstSight("verl-amd-qwen2.5-math-7b-mi355x-4-4-async", 0.740, _AMD42, "2026-12-07"),
    FirstSight("verl-amd-qwen2.5-vl-7b-geo3k-mi355x-4-4-async", 0.215, _AMD42, "2026-12-07"),
    FirstSight("skyrl-thunderagent-qwen3-32b-r2egym-h100-40-no-ta", 1.098, _NEW42D, "2026-12-07"),
    FirstSight("skyrl-thunderagent-qwen3-32b-r2egym-h100-40-ta", 3.302, _NEW42D, "2026-12-07"),
    FirstSight("skyrl-nemotron3-nano-4b-gsm8k-h100-8", 0.398, _NEW42D, "2026-12-07"),
    FirstSight("verl-megatron-practice-qwen3-14b-base-fsdp-sp4-h20-32", 0.759, _NEW42E,
               "2026-12-07"),
    FirstSight("verl-megatron-practice-qwen3-14b-base-megatron-tp4cp2-h20-32", 0.848, _NEW42E,
               "2026-12-07"),
    FirstSight("verl-megatron-practice-qwen2.5-32b-megatron-tp8pp2-h20-32", 1.221, _NEW42E,
               "2026-12-07"),
    FirstSight("verl-megatron-practice-qwen2.5-14b-fsdp-sp4-h20-32", 1.839, _NEW42E,
               "2026-12-07"),
    FirstSight("nemo-rl-v03-llama3.1-8b-h100-8-megatron", 1.123, _NEW42F, "2026-12-07"),
    FirstSight("nemo-rl-v03-llama3.1-70b-h100-64-megatron", 0.889, _NEW42F, "2026-12-07"),
    FirstSight("nemo-rl-v03-llama3.1-70b-h100-64-dtensor", 0.567, _NEW42F, "2026-12-07"),
    FirstSight("nemo-rl-v03-qwen3-30b-a3b-h100-64-megatron", 0.839, _NEW42F, "2026-12-07"),
)
