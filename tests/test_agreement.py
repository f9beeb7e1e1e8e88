"""One answer per question (issue 44): every algorithm × every calculator preset, the profile
page, the compare column, the estimate and the Ways comparison agree on what the run holds
and where it can run.

On the real catalog this is a property test: it asserts agreement between the pages' sources,
never a value, so a correct data PR passes it unchanged and a PR that makes them disagree
fails with the algorithm, the preset and the two answers.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from helpers_calc import evaluate_ways

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.ways import Capability
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import inputs as calc_inputs
from tinkernomics.derived.calculator import semantics
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.derived.derive import conversion_factor
from tinkernomics.site.calculator.presets import preset_queries
from tinkernomics.site.compare import feature, view
from tinkernomics.site.pages.views import Links, SiteIndex, algorithm_row, build_index
from tinkernomics.site.pages.views.algorithms import ROLE_LABELS

ROOT = Path(__file__).resolve().parent.parent
TODAY = dt.date(2026, 12, 6)
YES = {True: "Yes", False: "No"}


def memory_tier(roles: list[str] | tuple[str, ...]) -> str:
    """The coarse memory class the roles held imply (``memory_profile`` must say the same):
    ``high`` with a second trained model (a critic), ``medium`` with a frozen full-size scorer
    (a reward model or a teacher), else ``low`` (the policy, and a reference that LoRA shares
    with the base weights)."""
    if "critic" in roles:
        return "high"
    return "medium" if {"reward_model", "teacher"} & set(roles) else "low"


def disagreements(algo: m.Algorithm) -> list[str]:
    """Where an algorithm's listed facts (its profile page and compare column read them) say
    other than the roles the estimate holds by default; empty when they agree."""
    roles = semantics.default_roles(algo)
    found = []
    listed = sorted(r.value for r in algo.models_in_memory)
    if listed != sorted(roles):
        found.append(f"models_in_memory {listed} but the estimate holds {sorted(roles)}")
    for flag, role in (("needs_critic", "critic"), ("needs_reward_model", "reward_model")):
        if getattr(algo, flag) != (role in roles):
            found.append(f"{flag} is {getattr(algo, flag)} but the estimate holds {sorted(roles)}")
    if algo.memory_profile.value != memory_tier(roles):
        found.append(f"memory_profile is {algo.memory_profile.value} but the roles held "
                     f"({', '.join(roles)}) make it {memory_tier(roles)}")
    return found


@pytest.fixture(scope="module")
def index(catalog: Catalog) -> SiteIndex:
    return build_index(catalog, conversion_factor(catalog))


class _Ctx:
    def __init__(self, index: SiteIndex) -> None:
        self.extra = {"views.index": index}


def _labels(roles: list[str] | tuple[str, ...]) -> list[str]:
    return sorted(ROLE_LABELS.get(r, r) for r in roles)  # type: ignore[call-overload]


def test_profile_and_compare_column_say_what_the_estimate_holds(index: SiteIndex) -> None:
    problems = []
    for a, algo in index.catalog.algorithms.items():
        held = semantics.default_roles(algo)
        for where, row in (("profile", algorithm_row(index, algo, Links("algorithms/"))),
                           ("compare", view.column(index, a).row)):
            shown = sorted(x.strip() for x in row.models_in_memory.split(","))
            checks = {"models in memory": (shown, _labels(held)),
                      "needs a critic": (row.needs_critic, YES["critic" in held]),
                      "needs a reward model": (row.needs_reward_model,
                                               YES["reward_model" in held]),
                      "memory profile": (row.memory_profile, memory_tier(held))}
            problems += [f"{a} {where}: {what} says {said!r}, the estimate's roles {want!r}"
                         for what, (said, want) in checks.items() if said != want]
        cell = feature.column_html(_Ctx(index), a).split('data-tn-row="memory"')[1]
        if f"reward model: {YES['reward_model' in held]}" not in cell.split("</tr>")[0]:
            problems.append(f"{a}: the compare column's memory cell disagrees")
    assert not problems, "\n".join(problems)


def _run_problems(catalog: Catalog, a: str, query: dict[str, str]) -> list[str]:
    """Estimate, Ways (Python) and the calculator's graph on one run of one algorithm."""
    algo, q = catalog.algorithms[a], {**query, "a": a}
    est = estimate(catalog, q)
    held, roles = semantics.default_roles(algo), est.resolved.roles
    found = []
    if not set(roles) <= set(held) | {"reference"}:
        found.append(f"estimate holds {roles}, the profile lists {held}")
    for role in ("critic", "reward_model", "teacher"):
        if (role in roles) != (role in held):
            found.append(f"{role}: estimate {role in roles}, profile {role in held}")
    totals = ways.run_totals(catalog, q)
    if totals.needs != ways.needs_of(semantics.rollouts(algo), roles, est.choice.lora):
        found.append(f"Ways needs {sorted(totals.needs)} disagree with the estimate's roles")
    if (Capability.critic in totals.needs) != algo.needs_critic:
        found.append("Ways and the profile disagree on the critic")
    rows = {r.key: r for r in ways.compare(catalog, totals, TODAY)}
    gap = ways.gap_reason(ways.tinker_gaps(catalog), totals.needs)
    tinker = rows[ways.TINKER]
    if bool(gap) != bool(tinker.not_offered) or (gap and est.values["tinker.total"] is not None):
        found.append(f"Tinker: gap {gap!r}, Ways row {tinker.not_offered!r}, "
                     f"estimate bill {est.values['tinker.total']!r}")
    _, values = evaluate_ways(catalog, q, TODAY)
    if bool(values["ways.tinker.no"]) != bool(gap):
        found.append("the calculator's Ways table and the Ways page disagree on Tinker")
    if not _same(tinker.total, est.values["tinker.total"]):
        found.append(f"Tinker bill: Ways page {tinker.total!r}, estimate "
                     f"{est.values['tinker.total']!r}")
    return found


def _same(a: float | None, b: float | None) -> bool:
    return (a is None) == (b is None) and (a is None or b is None or abs(a - b) <= 1e-6 * abs(b))


def test_estimate_and_ways_agree_on_every_algorithm_and_preset(catalog: Catalog) -> None:
    problems = []
    for n, query in enumerate(preset_queries(catalog)):
        for a in catalog.algorithms:
            problems += [f"{a} × preset {n + 1}: {p}" for p in _run_problems(catalog, a, query)]
    assert not problems, "\n".join(problems)


def test_profile_compare_and_estimate_give_the_same_comparison_run(index: SiteIndex) -> None:
    """The GB and $ the Algorithms index, each profile and the compare column print for the
    comparison run are the estimate's at the comparison run's query (one run, one answer)."""
    problems = []
    catalog = index.catalog
    for a, algo in catalog.algorithms.items():
        est = estimate(catalog, calc_inputs.comparison_query(catalog, a))
        peak, bill = est.values["mem.peak"], est.values["tinker.total"]
        want = ("unknown" if peak is None else f"{peak / 1e9:,.1f} GB",
                "–" if bill is None else f"${bill:,.2f}")
        row = algorithm_row(index, algo, Links("algorithms/"))
        column = view.column(index, a)
        for where, said in (("profile", (row.compare_gb, row.compare_usd)),
                            ("compare", column.run or ("unknown", "–"))):
            if tuple(said) != want:
                problems.append(f"{a} {where}: {said}, the estimate {want}")
    assert not problems, "\n".join(problems)


def test_every_algorithms_listed_facts_follow_its_semantics(catalog: Catalog) -> None:
    problems = [f"{a}: {p}" for a, algo in catalog.algorithms.items()
                for p in disagreements(algo)]
    assert not problems, "\n".join(problems)
