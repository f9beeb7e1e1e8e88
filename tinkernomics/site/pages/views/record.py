"""Algorithm page views of what sits beside the charted fit (pipeline step 6, a view model).

``record_view``: an algorithm's ScaleRL record, the other fits its source reports (a table, each
fit with its setting and where in the source it is printed) and the values they superseded
(history, drawn on no chart; unverified values carry the ids the Data quality lists link to).
``semantics_view``: the run model's facts (KL to a reference, reward, rollouts, teacher,
over-sampling), each with its source. ``algorithms.algorithm_view`` attaches both.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from tinkernomics.catalog import models as m
from tinkernomics.catalog.models.algorithms import RewardSource, Semantics, SourcedFact
from tinkernomics.site.pages.views.core import (
    Links,
    Origin,
    Shown,
    SiteIndex,
    prose,
    prose_inline,
    yes_no,
)

PARAMS = ("A", "B", "C_mid")


@dataclass(frozen=True)
class VariantView:
    name: str
    setting: Markup
    values: list[Shown | None]
    """A, B and C_mid in that order; None where the source does not give it."""
    where: list[Markup]
    """Where in the source each given value is printed (each locator once)."""
    note: Markup | None


@dataclass(frozen=True)
class SupersededView:
    model: str
    dataset: str
    values: list[tuple[str, Shown]]
    why: Markup


@dataclass(frozen=True)
class RecordView:
    summary: Markup
    variants: list[VariantView]
    superseded: SupersededView | None


def _variant(index: SiteIndex, algo_id: str, i: int, v: m.ScaleRLVariant,
             links: Links) -> VariantView:
    figs = [getattr(v, name) for name in PARAMS]
    values = [index.figure(f, links, Origin("algorithm", algo_id,
                                            ("scalerl_record", "variants", i, name)))
              .without_locator()  # the table's "Where in the source" column prints them
              if f is not None else None for f, name in zip(figs, PARAMS, strict=True)]
    where = [prose_inline(loc) for loc in dict.fromkeys(
        f.locator.strip() for f in figs if f is not None and f.locator and f.locator.strip())]
    return VariantView(v.name, prose_inline(v.setting), values, where,
                       prose_inline(v.note) if v.note else None)


def record_view(index: SiteIndex, algo: m.Algorithm, links: Links) -> RecordView | None:
    """The algorithm's ScaleRL record, or None when it has none."""
    rec = algo.scalerl_record
    if rec is None:
        return None
    superseded = None
    if rec.superseded is not None:
        old = rec.superseded
        at = ("scalerl_record", "superseded")
        superseded = SupersededView(
            old.model, old.dataset,
            [(name, index.figure(getattr(old, name), links,
                                 Origin("algorithm", algo.id, (*at, name)))) for name in PARAMS],
            prose(old.why))
    return RecordView(prose(rec.summary),
                      [_variant(index, algo.id, i, v, links) for i, v in enumerate(rec.variants)],
                      superseded)


# --------------------------------------------------------------------------- semantics

REWARD_WORDS = {
    RewardSource.reward_model: "a learned reward model", RewardSource.verifier: "a verifier",
    RewardSource.either: "a reward model or a verifier",
    RewardSource.preferences: "offline preference data", RewardSource.teacher: "a teacher model",
}


def _fact(index: SiteIndex, algo_id: str, name: str, text: str, fact: SourcedFact,
          links: Links) -> Shown:
    return index.shown(text, fact.status, [fact.source], links, note=fact.note,
                       reported_instead=fact.reported_instead, asserted_by=fact.asserted_by,
                       origin=Origin("algorithm", algo_id, ("semantics", name)),
                       locator=fact.locator)


def semantics_view(index: SiteIndex, algo: m.Algorithm,
                   links: Links) -> list[tuple[str, Shown]]:
    """(label, value) of each run-model fact the algorithm states, in a fixed order."""
    sem: Semantics | None = algo.semantics
    if sem is None:
        return []
    rows = [("KL term to a frozen reference",
             _fact(index, algo.id, "kl_reference", yes_no(sem.kl_reference.value),
                   sem.kl_reference, links)),
            ("Reward from", _fact(index, algo.id, "reward", REWARD_WORDS[sem.reward.value],
                                  sem.reward, links)),
            ("Samples rollouts from the policy",
             _fact(index, algo.id, "rollouts", yes_no(sem.rollouts.value), sem.rollouts, links))]
    if sem.teacher is not None:
        model = index.catalog.models.get(sem.teacher.model)
        rows.append(("Teacher", _fact(index, algo.id, "teacher",
                                      model.name if model else sem.teacher.model,
                                      sem.teacher, links)))
    if sem.oversampling is not None:
        rows.append(("Over-sampling (rollouts sampled per rollout kept)",
                     index.figure(sem.oversampling, links,
                                  Origin("algorithm", algo.id, ("semantics", "oversampling")))))
    return rows
