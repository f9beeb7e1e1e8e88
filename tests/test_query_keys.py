"""A calculator query key is spelled once, in ``inputs.INPUTS`` (issue 41): rename keys there
and the form, the presets' and default run's links, the comparison run, the page's shipped data,
the Ways comparison's other-GPU links and the command line all follow. (The browser side, fed a
page whose shipped keys are renamed, is ``test_calc_rename_browser.py``.)"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

import pytest

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import inputs
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site.calculator import estimate_cli, form, pagedata, presets
from tinkernomics.site.calculator.checkargs import check_query
from tinkernomics.site.pages.views import Links

RENAMED = {"m": "model_x", "G": "group_x", "hw": "gpu_x", "gp": "gpu_price_x", "p": "prices_x"}
"""Old key -> new key: a choice, a typical-valued number, the GPU and its price, the list."""
OLD = {inputs.key(n) for n in ("model", "run.G", "hardware", "set.gpu_price", "price_list")}


@pytest.fixture
def renamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``INPUTS`` with the keys of ``RENAMED`` renamed (and the keys that name them)."""
    def new(key: str) -> str:
        return RENAMED.get(key, key)

    monkeypatch.setattr(inputs, "INPUTS", tuple(
        replace(i, key=new(i.key), dependents=tuple(map(new, i.dependents)),
                keeps=tuple(map(new, i.keeps)))
        for i in inputs.INPUTS))


def test_the_renamed_keys_are_the_declared_ones() -> None:
    assert set(RENAMED) == OLD


def _keys(query: dict[str, str]) -> set[str]:
    return set(query) & (set(RENAMED) | set(RENAMED.values()))


@pytest.mark.usefixtures("renamed")
def test_links_follow_a_renamed_key(catalog: Catalog) -> None:
    default = inputs.default_query()
    assert _keys(default) == {"model_x", "group_x", "gpu_x"}
    assert inputs.choose(catalog, default).numbers["run.G"] == float(default["group_x"])
    assert inputs.choose(catalog, {**default, "model_x": "qwen3-8b"}).model == "qwen3-8b"
    for query in presets.preset_queries(catalog):
        assert not set(query) & OLD and "prices_x" in query, query
    algo = next(iter(catalog.algorithms))
    assert "prices_x" in inputs.comparison_query(catalog, algo)
    other = ways._other_gpu({"gpu_x": "h100", "gpu_price_x": "2", "m": "kept"}, "a100")
    assert other == {"gpu_x": "a100", "m": "kept"}


@pytest.mark.usefixtures("renamed")
def test_the_page_follows_a_renamed_key(catalog: Catalog) -> None:
    e = estimate(catalog, inputs.default_query())
    fields = {f["key"] for g in form.form_groups(catalog, e) for f in g["fields"]}
    assert {"model_x", "group_x", "gpu_x", "gpu_price_x", "prices_x"} <= fields
    assert not fields & OLD
    shipped = {i["key"] for i in pagedata.input_data(catalog)}
    assert {"model_x", "group_x"} <= shipped and not shipped & OLD
    algo = next(iter(catalog.algorithms.values()))
    data = pagedata.algorithm_data(catalog, algo, Links("calculator/"))
    assert set(data["typical"]) == {"run.G", "run.K"}  # by input name, never by key


@pytest.mark.usefixtures("renamed")
def test_the_command_line_follows_a_renamed_key(catalog: Catalog) -> None:
    parser = argparse.ArgumentParser()
    estimate_cli.add_estimate_command(parser.add_subparsers())
    args: Any = parser.parse_args(["estimate", "--model", "qwen3-8b", "--G", "4"])
    query = estimate_cli.query_of(args)
    assert query == {"model_x": "qwen3-8b", "group_x": "4"}
    assert check_query(catalog, query, estimate_cli.option_of()) == query


def test_a_links_inputs_are_made_once_per_catalog_and_follow_a_new_declaration(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every estimate reads them (issue 47: made again for each of 2,000 estimates before)."""
    first = inputs.link_inputs(catalog)
    assert inputs.link_inputs(catalog) is first
    monkeypatch.setattr(inputs, "INPUTS", tuple(list(inputs.INPUTS)))
    again = inputs.link_inputs(catalog)
    assert again is not first and again == first
