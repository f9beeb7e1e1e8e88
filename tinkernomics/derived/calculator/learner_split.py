"""How the learner splits one copy of the model (pipeline step 5, a part of ``timing``): the
micro-batches a training pass runs, a mixture of experts' host waits in them, and a pipelined
learner's fill-and-drain bubble. Expressions over the graph's names only; ``timing`` places them
under its prefix (``time.``, ``ways.<slot>.time.``) and multiplies the policy's training and
reference passes by ``bubble``.

One copy of the model spans ``model_split`` GPUs: ``pp`` pipeline stages (a run's
``pipeline_parallel``, Megatron's ``pipeline_model_parallel_size``) × ``ttp`` GPUs a layer is
split over (``train_tensor_parallel``) × ``cp`` GPUs a sequence is split over
(``context_parallel``); each is 1 when not given. The learner's GPUs hold ``train_replicas``
such copies (data parallel), and each copy runs its share of a pass's tokens as micro-batches of
``mbt`` tokens (a run's ``micro_batch_tokens``: the micro-batch of one copy, NeMo RL's
``train_mb_tokens``, verl's ``ppo_max_token_len_per_gpu`` × its sequence parallelism), else one
sequence a micro-batch; every GPU of a copy takes part in each of them.

**The bubble.** A pipeline of p stages runs m micro-batches in (m + p - 1) stage-times under the
1F1B schedule (and under GPipe's): each stage idles p - 1 of them while the pipeline fills and
drains, so a pass lasts 1 + (p - 1)/m times its work (Narayanan et al., "Efficient Large-Scale
Language Model Training on GPU Clusters Using Megatron-LM", arXiv 2104.04473, §2.2.1: "the
bubble time fraction (pipeline bubble size) is (p − 1)/m"). An interleaved schedule of v chunks a
stage divides the bubble by v (§2.2.2); no run field states v, so an interleaved learner is
priced as a plain one (an upper bound). The log-prob passes are forward-only pipelines with the
same fill and drain. A stated training utilisation (``mt``) holds its own bubble.
"""

from __future__ import annotations


def split(p: str) -> list[tuple[str, str]]:
    """The pipeline's stages and the GPUs one copy of the model spans (keys under ``p``): the
    run's default GPU count holds at least one copy besides any GPUs that only sample."""
    return [
        ("pipeline", "coalesce(set.pipeline_parallel, 1.0)"),
        ("model_split", f"{p}.pipeline * coalesce(set.train_tp, 1.0) * "
                        "coalesce(set.context_parallel, 1.0)"),
    ]


def quantities(p: str, train_tokens: str) -> list[tuple[str, str]]:
    """The learner's micro-batches a pass, its bubble and its MoE host waits (keys under ``p``;
    ``split`` comes first, before the GPU count)."""
    seq = f"{p}.train_sequence"
    return [
        ("train_replicas", f"max(1.0, {p}.train_gpus / {p}.model_split)"),
        ("micro_batch_tokens", f"coalesce(set.micro_batch_tokens, {seq})"),
        ("pass_micro_batches", f"{train_tokens} / ({p}.train_replicas * max("
                               f"{p}.micro_batch_tokens, {seq}))"),
        ("bubble", f"1.0 + ({p}.pipeline - 1.0) / max(1.0, {p}.pass_micro_batches) if "
                   "missing(set.mfu_train) else 1.0"),
        moe_sync(p),
    ]


def moe_sync(p: str) -> tuple[str, str]:
    """A mixture of experts' host synchronisations in training (``MOE_SYNC_S``): every MoE
    layer a GPU holds (its pipeline stage's share of them) of every forward pass (the update's,
    its recomputation, the old-policy log-probs' and the reference's) of every micro-batch its
    copy of the model runs (``pass_micro_batches``: a packed micro-batch is one forward) waits
    for the host; none for a dense model or a learner that loops over the experts (``el``: the
    measured ``EXPERT_LOOP_FACTOR`` holds its own) or a reader who states the training
    utilisation (``mt``: a measured one holds them). The log-prob passes are counted at the
    update's budget: a stack's own log-prob budget (verl's ``log_prob_max_token_len_per_gpu``,
    NeMo RL's ``logprob_mb_tokens``) is not a run field."""
    forwards = ("(run.K * (2.0 if run.ac == 2 else 1.0) + ((1.0 - run.rollout_logprobs) + "
                "(1.0 if role.reference else 0.0)) * (1.0 - run.eval_all_experts))")
    return ("moe_sync_s", f"0.0 if p.active >= p.total else missing(set.mfu_train) * (1.0 - "
                          f"run.expert_loop) * {p}.pass_micro_batches * {forwards} * "
                          f"coalesce(model.layers, 0.0) / {p}.pipeline * "
                          "const.time.moe_sync_s")
