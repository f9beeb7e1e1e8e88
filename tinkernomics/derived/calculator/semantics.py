"""What an algorithm's catalog semantics decide for an estimate (pipeline step 5).

The roles it holds by default, whether it samples, its over-sampling factor and its teacher:
read from the entry's sourced ``semantics`` where it has them, else from ``models_in_memory`` and
``online`` as before. Python (``estimate.resolve``) and the page's per-algorithm files
(``site/calculator/pagedata``, which calculator.js reads) use these same functions.
"""

from __future__ import annotations

from tinkernomics.catalog import models as m
from tinkernomics.catalog.models.algorithms import RewardSource


def default_roles(algo: m.Algorithm) -> list[str]:
    """Models held and scored by default: a reference only with a KL term, a reward model only
    when the reward comes from a learned one, a teacher when the method has one."""
    listed = [r.value for r in algo.models_in_memory]
    s = algo.semantics
    if s is None:
        return listed
    wanted = {
        "reference": s.kl_reference.value,
        "reward_model": s.reward.value == RewardSource.reward_model,
        "teacher": s.teacher is not None or "teacher" in listed,
    }
    roles = [r for r in listed if wanted.get(r, True)]
    return roles + [r for r in ("reference", "reward_model", "teacher")
                    if wanted[r] and r not in roles]


def switch_role(roles: list[str], role: str, on: bool | None) -> list[str]:
    """The roles with ``role`` added (on), dropped (off) or as they are (None): a link's or a
    run's flag over the algorithm's default (``estimate.held``, ``backtest.sized_as_policy``)."""
    if on is None:
        return roles
    return [*roles, role] if on and role not in roles else [
        r for r in roles if on or r != role]


def rollouts(algo: m.Algorithm) -> bool:
    """True if the method samples from the policy (an offline method has no rollout phase)."""
    return algo.semantics.rollouts.value if algo.semantics is not None else algo.online


def oversampling(algo: m.Algorithm) -> float:
    """Rollouts sampled per rollout trained on (1 unless the method filters groups)."""
    s = algo.semantics
    return s.oversampling.value if s is not None and s.oversampling is not None else 1.0


def teacher(algo: m.Algorithm) -> str:
    """The teacher model the method's source uses ('' if none given)."""
    s = algo.semantics
    return s.teacher.model if s is not None and s.teacher is not None else ""
