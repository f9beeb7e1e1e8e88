"""How far an asynchronous sampler may run ahead of its trainer (``timing``, pipeline step 5).

An asynchronous step (``async``) is today priced as full overlap: the longer of the sampler's
time and the trainer's. A run that states a staleness bound (``st``, a run's ``staleness``:
verl's ``async_training.staleness_threshold``) and the trainer updates between weight syncs
(``su``, a run's ``sync_updates``: verl's ``trigger_parameter_sync_step``) is priced by
``async_step``; without ``st`` the step is the full overlap, as before. Expressions over the
graph's names only; ``timing`` places them under its prefix (``time.``,
``ways.<slot>.time.``).

verl's fully asynchronous trainer at b178a3c (``verl/experimental/fully_async_policy/``):

- ``fully_async_rollouter.py`` lines 195-201: ``max_required_samples = required_samples ×
  (staleness_threshold + 1) × trigger_parameter_sync_step``, with ``required_samples =
  ppo_mini_batch_size × require_batches`` (lines 141-143), the samples one trainer update
  takes. Lines 717-737: generation pauses once ``staleness_samples``, the samples started since
  the last sync, reaches it; lines 230-240: at a sync the count restarts at the samples carried
  over (running, interrupted, queued), so they count against the new version's budget.
- ``fully_async_trainer.py`` lines 170-227 and 525-553: the trainer takes ``required_samples``
  finished samples from the queue (``message_queue.py``, first in first out), updates, and
  after ``trigger_parameter_sync_step`` updates pauses the rollouter and syncs the weights
  (``param_sync.py`` lines 117-157). With ``partial_rollout`` the pause interrupts unfinished
  answers and resumes them after the sync (rollouter lines 741-769) instead of waiting.

A step here is one weight version: its P prompts (``run.prompts`` = K × the samples of one
update) in K updates (``su``; default 1). S is the sampler's time for P at its streaming rate
(``rollout_s`` of an asynchronous run: no tail), L the trainer's time for P (``learn_s``, L/K an
update), F the sync and fixed work (``refit_s``), s the staleness bound. Two cycles, each a
lower bound on the version; the version is the longer (a fluid picture: samples finish at the
sampler's rate, the k-th update's samples about k/K of the way through S):

- The trainer's cycle: L + F plus its wait for the version's first update. The sampler's lead
  at a sync is at most s × P samples (the budget less what it consumed); they cover the first
  update's P/K when s ≥ 1/K, else it waits S × (1/K − s).
- The sampler's cycle: S plus its idle time. With s = 0 it may start only the version's P
  samples after the sync, so its version lasts until the longest of them ends (the cap's tail,
  ``version_tail_s``, as a synchronous step's), then it idles while the trainer updates on the
  last samples and syncs (L/K + F). With s > 0 it may start s × P samples more, about s × S of
  work, which fills that idle time; an interrupted answer resumes after the sync, so no version
  waits for the longest (partial rollout, which every catalog row with s > 0 runs; without
  it the sync waits for the running answers, not modelled here).

So s = 0: max(S + tail + L/K + F, L + F + S/K) (about S plus the trainer's work on the last
update, verl's "stream off policy pipeline"); s ≥ 1/K and s × S ≥ L/K + F: max(S, L + F), the
full overlap. Not modelled: the samples a sampler must hold in flight to keep its engines full
(a small s lets their batch thin before a sync) and the engine's KV cache rebuilt after a sync.

NeMo RL's ``max_trajectory_age_steps`` A bounds the same lead in whole steps: a sampler holding
weights g generates the batches the trainer will take at steps g + 1 to g + A
(``nemo_rl/algorithms/async_utils.py`` at 5fb5889, ``_calculate_target_weights``, lines
294-321), so s = A with K = 1; any A ≥ 1 is then the full overlap, and its rows leave it unstated.
"""

from __future__ import annotations


def version_tail_s(p: str) -> str:
    """The tail a staleness-0 version waits for: the longest completion past the mean, as a
    synchronous step's (``timing``'s ``longest_iterations``, of which a synchronous step's
    ``tail_iterations`` are made)."""
    return f"{p}.longest_iterations * {p}.tail_iteration_s"


def async_step(p: str, rollout: str, learn: str, refit: str) -> str:
    """An asynchronous step's seconds: the full overlap ``max(rollout, learn + refit)`` unless
    the reader states the staleness bound (``set.staleness``), then the longer of the trainer's
    and the sampler's cycles (the module's docstring derives them)."""
    s, k = "set.staleness", "coalesce(set.sync_updates, 1.0)"
    trainer = f"{learn} + {refit} + {rollout} * max(0.0, 1.0 / {k} - {s})"
    idle = (f"({p}.version_tail_s + {learn} / {k} + {refit} if {s} <= 0.0 else "
            f"max(0.0, {learn} / {k} + {refit} - {s} * {rollout}))")
    return (f"max({rollout}, {learn} + {refit}) if missing({s}) else "
            f"max({trainer}, {rollout} + {idle})")
