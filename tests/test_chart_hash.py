"""A chart's hash (the key of every cached output of it: ``svg``, ``share``, ``cardsvg``) is its
fields', worked out once per chart object (issue 47: hashing every curve point and fit again
at each cache lookup was half the CPU of a chart's SVG files)."""

from __future__ import annotations

import dataclasses

from helpers_charts import fitted_catalog_fixture, fitted_grpo_fixture  # noqa: F401 (fixtures)

from tinkernomics.site.charts import spec as charts


class CountingTuple(tuple[tuple[str, str], ...]):
    """A tuple that counts how often it is hashed."""

    hashed = 0

    def __hash__(self) -> int:
        CountingTuple.hashed += 1
        return tuple.__hash__(self)


def test_a_chart_hashes_its_fields_once(grpo: charts.Chart) -> None:
    chart = dataclasses.replace(grpo, others=CountingTuple((("x", "X"),)))
    CountingTuple.hashed = 0
    first = hash(chart)
    assert hash(chart) == first
    assert CountingTuple.hashed == 1


def test_equal_charts_hash_alike_and_a_changed_one_differs(grpo: charts.Chart) -> None:
    same = dataclasses.replace(grpo)
    assert same == grpo and hash(same) == hash(grpo)
    moved = dataclasses.replace(grpo, date="2020-01-01")
    assert moved != grpo and hash(moved) != hash(grpo)
    assert hash(grpo) == hash(tuple(getattr(grpo, f.name) for f in dataclasses.fields(grpo)))
