"""Benchmark (issue 47): the calculator's evaluation and the plain-value rules, old and new.

Makes a clone with ``--algorithms`` synthetic algorithms (``synth.make_project``, default
1,000), loads its catalog, then times in CPU seconds (user + sys), best of 3, in one run:

- ``evaluate``: the calculator graph over every algorithm's default run (and each with full
  fine-tuning), by the old tree walk (``graph.walk``) and by the compiled function
  (``graph.evaluate``, compiled once; its compile time is printed apart); the results must
  be identical;
- ``plain values``: the old date rule and hidden-text rule (each walked every field of every
  nested model with ``model_fields`` and ``getattr``; kept below as they were) against the
  one walk ``saferules.rule_plain_values_safe`` makes; the problems must be identical;
- ``attribute lookups``: the old ``getattr(obj, name, None)`` of ``walk.citations`` and
  ``quotes.located`` on every nested model against ``walk.attribute``.

Prints each pair and its ratio. ``.venv/bin/python benchmarks/bench_calc.py [--algorithms N]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import resource
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import make_project

from tinkernomics.catalog import saferules, walk
from tinkernomics.catalog.dates import today
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.problems import Problem
from tinkernomics.derived.calculator import estimate, inputs
from tinkernomics.derived.calculator import graph as g
from tinkernomics.markup.invisible import hidden_message

REPEATS = 3
NAMES = ("source", "references", "status", "locator", "model_names_locator")


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best(work: Callable[[], Any]) -> tuple[float, Any]:
    """The least CPU seconds of ``REPEATS`` runs of ``work``, and its result."""
    times, result = [], None
    for _ in range(REPEATS):
        start = cpu()
        result = work()
        times.append(cpu() - start)
    return min(times), result


def _old_fields(obj: BaseModel) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    for name in type(obj).model_fields:
        value = getattr(obj, name)
        for index, item in (enumerate(value) if isinstance(value, list) else [(None, value)]):
            if not isinstance(item, BaseModel):
                yield ((name,) if index is None else (name, index)), item


def old_plain_rules(catalog: Catalog) -> Iterator[Problem]:
    """The date rule and the hidden-text rule as they were before issue 47."""
    latest = today().replace(year=today().year + saferules.LATEST_YEARS)
    for entry, loc, obj, _, _ in walk.nested_models(catalog):
        for sub, value in _old_fields(obj):
            if isinstance(value, dt.date) and not saferules.EARLIEST <= value <= latest:
                yield catalog.problem(entry.kind.name, entry.key, (*loc, *sub), "date",
                                      "write the date as YYYY-MM-DD")
    for entry, loc, obj, _, _ in walk.nested_models(catalog):
        for sub, value in _old_fields(obj):
            message = hidden_message(value) if isinstance(value, str) else None
            if message is not None:
                yield catalog.problem(entry.kind.name, entry.key, (*loc, *sub), message)


def lookups(get: Callable[[Any, str], Any], catalog: Catalog) -> list[Any]:
    return [get(obj, name) for _, _, obj, _, _ in walk.nested_models(catalog) for name in NAMES]


def report(name: str, old: float, new: float) -> None:
    print(f"{name:18} old {old:7.3f} s   new {new:7.3f} s   old/new {old / new:5.2f}")


def bench_evaluate(catalog: Catalog) -> None:
    graph = estimate.graph_for(catalog)
    queries = [{"a": a, **extra} for a in sorted(catalog.algorithms)
               for extra in ({}, {"ft": "full"})]
    envs = [estimate.environment(catalog, estimate.resolve(catalog, inputs.choose(catalog, q)))
            for q in queries]
    start = cpu()
    for env in envs[:g.COMPILE_AFTER + 1]:
        g.evaluate(graph, env)
    print(f"{len(envs)} estimates, {len(graph.quantities)} quantities; first "
          f"{g.COMPILE_AFTER + 1} evaluations with the compile: {cpu() - start:.3f} s")
    old, walked = best(lambda: [g.walk(graph, env) for env in envs])
    new, compiled = best(lambda: [g.evaluate(graph, env) for env in envs])
    assert [list(v.items()) for v in walked] == [list(v.items()) for v in compiled]
    report("evaluate", old, new)


def bench_rules(catalog: Catalog) -> None:
    walk.nested_models(catalog)
    old, old_found = best(lambda: [(p.path, p.line, p.field) for p in old_plain_rules(catalog)])
    new, new_found = best(lambda: [(p.path, p.line, p.field)
                                   for p in saferules.rule_plain_values_safe(catalog)])
    assert sorted(old_found) == sorted(new_found)
    report("plain values", old, new)
    old, old_got = best(lambda: lookups(lambda o, n: getattr(o, n, None), catalog))
    new, new_got = best(lambda: lookups(walk.attribute, catalog))
    assert old_got == new_got
    report("attribute lookups", old, new)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(args.algorithms, Path(tmp) / "project")
        catalog, problems = load_catalog(project / "catalog")
        assert not problems, problems[:3]
        print(f"{len(catalog.algorithms)} algorithms")
        bench_evaluate(catalog)
        bench_rules(catalog)


if __name__ == "__main__":
    main()
