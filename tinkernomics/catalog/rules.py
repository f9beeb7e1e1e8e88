"""Cross-entry rules (pipeline step 3): one rule, one small function, one test.

Each rule takes the loaded catalog and yields ``Problem`` values located at the offending field.
A rule's docstring is the rule in one sentence; ``RULES`` lists them in the order they run.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.arithmetic import rule_derivations_add_up
from tinkernomics.catalog.dates import rule_dates_plausible
from tinkernomics.catalog.duplicates import rule_algorithm_names_unique, rule_references_unique
from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.fields import ID_PATTERN
from tinkernomics.catalog.locators import rule_locator_required, rule_scalerl_sourced
from tinkernomics.catalog.mirrors import rule_no_arxiv_mirror
from tinkernomics.catalog.partial import HoleTouched
from tinkernomics.catalog.physics_hardware import (
    rule_gpu_specs_in_range,
    rule_power_plausible,
    rule_rental_price_plausible,
    rule_sparse_is_twice_dense,
)
from tinkernomics.catalog.physics_models import rule_model_shape_consistent, rule_param_count
from tinkernomics.catalog.physics_runs import rule_actual_above_compute_floor
from tinkernomics.catalog.pricelist_rules import (
    rule_price_list_changes_something,
    rule_price_list_not_backdated,
    rule_price_list_source_dated,
)
from tinkernomics.catalog.pricelists import (
    price_rows_missing,
    rule_price_jumps,
    rule_price_list_dates,
)
from tinkernomics.catalog.problems import FILE_FIELD, Problem
from tinkernomics.catalog.provenancerules import (
    rule_asserted_by,
    rule_expected_units,
    rule_figure_ranges,
    rule_scalerl_sane,
    rule_unverified_says_what_sources_report,
)
from tinkernomics.catalog.quotedvalues import rule_quoted_value_stated
from tinkernomics.catalog.quotes import rule_pages_quoted, rule_quotes_at_their_lines
from tinkernomics.catalog.runrules import run_problems
from tinkernomics.catalog.saferules import SAFE_RULES
from tinkernomics.catalog.sitenames import Reserved, rule_reserved_ids
from tinkernomics.catalog.walk import cited
from tinkernomics.catalog.walk import nested_models as _nested
from tinkernomics.catalog.yamlread import Loc
from tinkernomics.derived import expr

Rule = Callable[[Catalog], Iterator[Problem]]
Need = tuple[str, str, str]
"""(kind, id, what names it): an entry the site's own code names by id, e.g. the calculator's
default algorithm. The catalog layer knows none of them; ``tinkernomics.site.needs`` lists them
and the CLI and the site build pass them in, so ``validate`` reports a missing one."""


CLOSED_KINDS = {
    "loss": "the losses are Tinker's own (its docs list them): name the one the algorithm runs "
            "on, and say in tinker_mapping how it maps; do not add a loss file for it",
}
"""Kinds whose entries mirror a fixed outside list: an unknown id lists them rather than
inviting a new file."""


def _unknown_id(catalog: Catalog, entry: Entry, loc: Loc, wanted: str, kind: str,
                what: str) -> Problem:
    known = sorted(catalog.ids(kind))
    close = difflib.get_close_matches(wanted, known, n=1, cutoff=0.6)
    folder = KINDS_BY_NAME[kind].folder
    if close:
        hint = f"did you mean {close[0]!r}?"
    elif kind in CLOSED_KINDS:
        hint = f"the known ones: {', '.join(known)}; {CLOSED_KINDS[kind]}"
    else:
        hint = f"add catalog/{folder}/{wanted}.yaml (make new KIND={kind} ID={wanted})"
    return catalog.problem(entry.kind.name, entry.key, loc, f"unknown {what} {wanted!r}", hint)


def _free_id(base: str, taken: set[str]) -> str:
    """``base`` if no entry has it, else ``base_2``, ``base_3``, ...: a hint never names a taken
    file."""
    n, candidate = 2, base
    while candidate in taken:
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def rule_id_matches_file(catalog: Catalog) -> Iterator[Problem]:
    """An entry's id equals its file name; an id that another file already has is a duplicate."""
    for entry in catalog.iter_entries():
        wanted, kind = entry.model.id, entry.kind
        if wanted == entry.key:
            continue
        taken = catalog.known_ids(kind.name)
        own_ok = re.fullmatch(ID_PATTERN, entry.key) is not None
        if wanted in taken:
            fix = (f"set id: {entry.key} (the file name)" if own_ok else
                   f"rename the file to {_free_id(wanted, taken)}.yaml and set the same id")
            yield catalog.problem(kind.name, entry.key, ("id",),
                                  f"duplicate id {wanted!r}: catalog/{kind.folder}/{wanted}.yaml "
                                  "already has it", fix)
        else:
            fix = f"rename the file to {wanted}.yaml" + (f" or set id: {entry.key}"
                                                         if own_ok else "")
            yield catalog.problem(kind.name, entry.key, ("id",),
                                  f"id {wanted!r} differs from the file name {entry.key!r}", fix)


def rule_sources_exist(catalog: Catalog) -> Iterator[Problem]:
    """Every `source` and `references` entry names an existing reference."""
    refs = catalog.known_ids("reference")
    for entry, loc, ref in cited(catalog):
        if ref not in refs:
            yield _unknown_id(catalog, entry, loc, ref, "reference", "reference")


def rule_links_exist(catalog: Catalog) -> Iterator[Problem]:
    """Tinker losses, price-list models and conversion hardware name existing entries."""
    for key, algo in catalog.algorithms.items():
        entry = catalog.entry("algorithm", key)
        for i, loss in enumerate(algo.tinker_losses):
            if loss not in catalog.known_ids("loss"):
                yield _unknown_id(catalog, entry, ("tinker_losses", i), loss, "loss",
                                  "Tinker loss")
    for key, plist in catalog.price_lists.items():
        entry = catalog.entry("price_list", key)
        for i, row in enumerate(plist.rows):
            if row.model not in catalog.known_ids("model"):
                yield _unknown_id(catalog, entry, ("rows", i, "model"), row.model, "model",
                                  "model")
    for key, conv in catalog.conversions.items():
        entry = catalog.entry("conversion", key)
        for name in ("from_hardware", "to_hardware"):
            wanted = getattr(conv, name)
            if wanted not in catalog.known_ids("hardware"):
                yield _unknown_id(catalog, entry, (name,), wanted, "hardware", "hardware")


def rule_formula_variables(catalog: Catalog) -> Iterator[Problem]:
    """A formula's expression parses, uses only declared variables, and uses every one."""
    for key, formula in catalog.formulas.items():
        declared = [v.name for v in formula.variables]
        try:
            used = expr.names(formula.expression)
        except expr.ExpressionError as err:
            yield catalog.problem("formula", key, ("expression",), str(err))
            continue
        for name in used:
            if name not in declared:
                close = difflib.get_close_matches(name, declared, n=1, cutoff=0.6)
                hint = f"did you mean {close[0]!r}?" if close else "declare it under variables"
                yield catalog.problem("formula", key, ("expression",),
                                      f"variable {name!r} is not declared", hint)
        for i, name in enumerate(declared):
            if declared.index(name) != i:
                yield catalog.problem("formula", key, ("variables", i, "name"),
                                      f"variable {name!r} is declared twice")
            elif name not in used:
                yield catalog.problem("formula", key, ("variables", i, "name"),
                                      f"variable {name!r} is not used in the expression",
                                      "remove it or use it")


def rule_algorithm_consistent(catalog: Catalog) -> Iterator[Problem]:
    """`needs_critic`/`needs_reward_model` and a KL term to a reference agree with
    `models_in_memory`; offline means no G."""
    pairs = (("needs_critic", m.ModelRole.critic), ("needs_reward_model", m.ModelRole.reward_model))
    for key, algo in catalog.algorithms.items():
        for flag, role in pairs:
            flagged = getattr(algo, flag)
            if flagged != (role in algo.models_in_memory):
                yield catalog.problem("algorithm", key, (flag,),
                                      f"{flag} is {str(flagged).lower()} but models_in_memory "
                                      f"{'lacks' if flagged else 'has'} {role.value}")
        if not algo.online and algo.typical_g is not None:
            yield catalog.problem("algorithm", key, ("typical_g",),
                                  "an offline algorithm (online: false) has no group size",
                                  "remove typical_g")
        semantics = algo.semantics
        if semantics is not None and semantics.kl_reference.value != (
                m.ModelRole.reference in algo.models_in_memory):
            held = "lacks" if semantics.kl_reference.value else "has"
            yield catalog.problem("algorithm", key, ("models_in_memory",),
                                  f"semantics.kl_reference is "
                                  f"{str(semantics.kl_reference.value).lower()} but "
                                  f"models_in_memory {held} reference",
                                  "a reference is held only for a KL term to it: make the two "
                                  "agree")


def rule_unique_within_lists(catalog: Catalog) -> Iterator[Problem]:
    """Names inside an entry are unique: price rows, primitives, token types, loss inputs."""
    checks: list[tuple[str, str, Callable[[Any], list[Any]], Callable[[Any], Any]]] = [
        ("price_list", "rows", lambda e: e.rows, lambda r: (r.model, r.variant)),
        ("platform", "primitives", lambda e: e.primitives, lambda p: (p.client, p.name)),
        ("platform", "token_types", lambda e: e.token_types, lambda t: t.id),
        ("loss", "inputs", lambda e: e.inputs, lambda i: i.name),
        ("loss", "hyperparameters", lambda e: e.hyperparameters, lambda h: h.name),
    ]
    for kind, field, items, key_of in checks:
        for entry_id, model in catalog.of(kind).items():
            seen: set[Any] = set()
            for i, item in enumerate(items(model)):
                k = key_of(item)
                if k in seen:
                    yield catalog.problem(kind, entry_id, (field, i),
                                          f"duplicate {field[:-1].replace('_', ' ')} {k!r}")
                seen.add(k)


def rule_values_in_order(catalog: Catalog) -> Iterator[Problem]:
    """A list of typical values is written smallest first, each value once (as documented)."""
    for entry, loc, obj, _, _ in _nested(catalog):
        if not isinstance(obj, m.FigureList):
            continue
        values = list(obj.values)
        if values != sorted(set(values)):
            wanted = ", ".join(str(v) for v in sorted(set(values)))
            yield catalog.problem(entry.kind.name, entry.key, (*loc, "values"),
                                  f"values {values} are not smallest first",
                                  f"write values: [{wanted}] (each value once, smallest first)")


def rule_platform_shape(catalog: Catalog) -> Iterator[Problem]:
    """The platform entry is `tinker`, marks exactly four core primitives, and bills
    prefill, sample and train tokens."""
    for key, platform in catalog.of("platform").items():
        core = [p for p in platform.primitives if p.core]
        if len(core) != 4:
            yield catalog.problem("platform", key, ("primitives",),
                                  f"exactly four primitives are core (found {len(core)})")
        kinds = sorted(t.id for t in platform.token_types)
        if kinds != ["prefill", "sample", "train"]:
            yield catalog.problem("platform", key, ("token_types",),
                                  f"token types must be prefill, sample, train (got {kinds})")


def rule_docs_page_exists(catalog: Catalog, docs_dir: Path | None) -> Iterator[Problem]:
    """Every algorithm has its page stub `docs/algorithms/<id>.md` (the scaffold writes it)."""
    if docs_dir is None:
        return
    for key, algo in catalog.algorithms.items():
        if not (docs_dir / "algorithms" / f"{algo.id}.md").is_file():
            yield catalog.problem("algorithm", key, ("id",),
                                  f"no page docs/algorithms/{algo.id}.md for this algorithm",
                                  f"run: .venv/bin/tinkernomics new algorithm {algo.id} "
                                  "--page-only")


def rule_runs_consistent(catalog: Catalog) -> Iterator[Problem]:
    """Published runs name existing entries and stages that agree (``runrules``)."""
    yield from run_problems(catalog, _unknown_id)


RULES: tuple[Rule, ...] = (
    rule_id_matches_file,
    rule_sources_exist,
    rule_references_unique,
    rule_no_arxiv_mirror,
    rule_algorithm_names_unique,
    rule_dates_plausible,
    rule_links_exist,
    rule_runs_consistent,
    rule_unverified_says_what_sources_report,
    rule_asserted_by,
    rule_figure_ranges,
    rule_expected_units,
    rule_scalerl_sane,
    rule_locator_required,
    rule_quotes_at_their_lines,
    rule_pages_quoted,
    rule_derivations_add_up,
    rule_quoted_value_stated,
    rule_scalerl_sourced,
    rule_formula_variables,
    rule_algorithm_consistent,
    rule_unique_within_lists,
    rule_platform_shape,
    rule_price_list_dates,
    rule_price_jumps,
    rule_price_list_changes_something,
    rule_price_list_not_backdated,
    rule_price_list_source_dated,
    rule_values_in_order,
    rule_param_count,
    rule_model_shape_consistent,
    rule_gpu_specs_in_range,
    rule_sparse_is_twice_dense,
    rule_power_plausible,
    rule_rental_price_plausible,
    rule_actual_above_compute_floor,
    *SAFE_RULES,  # everything that validates builds (saferules)
)


def _collect(rule: Rule, catalog: Catalog) -> list[Problem]:
    """What ``rule`` yields until it touches a hole."""
    found: list[Problem] = []
    with contextlib.suppress(HoleTouched):  # list.extend keeps what came before the hole
        found.extend(rule(catalog))
    return found


def run_guarded(rule: Rule, catalog: Catalog) -> list[Problem]:
    """Run ``rule``; if it touches a value that failed validation, run it again on the complete
    entries, then once beside each partial entry, so a hole skips one rule for one entry."""
    try:
        return list(rule(catalog))
    except HoleTouched:
        pass
    problems = _collect(rule, catalog.view())
    for entry in catalog.partial_entries():
        problems.extend(_collect(rule, catalog.view(keep=entry)))
    return problems


def needed_entries_missing(catalog: Catalog, needs: Iterable[Need],
                           shown_root: str) -> Iterator[Problem]:
    """Every entry the site's code names by id exists (a file that failed to load is reported
    already). Located at the file that should hold it: deleting or renaming it is the cause."""
    named_by: dict[tuple[str, str], list[str]] = {}
    for kind_name, entry_id, who in needs:
        if kind_name in KINDS_BY_NAME:  # other needs (price rows) have rules of their own
            named_by.setdefault((kind_name, entry_id), []).append(who)
    for (kind_name, entry_id), whos in named_by.items():
        if entry_id in catalog.ids(kind_name) or entry_id in catalog.invalid.get(kind_name, ()):
            continue
        folder = KINDS_BY_NAME[kind_name].folder
        renamed = sorted(i for i in catalog.ids(kind_name)
                         if i.startswith(entry_id) or entry_id.startswith(i))
        hint = f"restore catalog/{folder}/{entry_id}.yaml (git checkout -- it)"
        if renamed:
            hint += f"; if {renamed[0]!r} is the same entry, give it back its id {entry_id!r}"
        yield Problem(f"{shown_root}/{folder}/{entry_id}.yaml", 1, 1, FILE_FIELD,
                      f"missing {kind_name} {entry_id!r}, which the site names "
                      f"({'; '.join(whos)})", hint)


def run_rules(catalog: Catalog, *, docs_dir: Path | None = None, needs: Iterable[Need] = (),
              reserved: Iterable[Reserved] = (), shown_root: str = "catalog") -> list[Problem]:
    """Run every rule, around the holes of partial entries; collect every problem."""
    problems: list[Problem] = []
    for rule in RULES:
        problems.extend(run_guarded(rule, catalog))
    problems.extend(run_guarded(lambda c: rule_docs_page_exists(c, docs_dir), catalog))
    reserved = tuple(reserved)
    problems.extend(run_guarded(lambda c: rule_reserved_ids(c, reserved), catalog))
    needs = tuple(needs)
    problems.extend(needed_entries_missing(catalog, needs, shown_root))
    problems.extend(run_guarded(lambda c: price_rows_missing(c, needs), catalog))
    return problems
