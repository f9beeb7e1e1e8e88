"""The calculator's reader-facing rules without a browser (issue 31): what an algorithm switch
keeps is declared with the inputs, and every catalog algorithm prices the run a switch leaves
(the default run with that algorithm) with finite numbers. Properties of the catalog, never its
values; the freshness of an estimate's prices on a fixture price list and a fixed
SOURCE_DATE_EPOCH."""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import replace
from pathlib import Path

import pytest
from helpers_calc import TOY_PRICES, with_toys

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import inputs
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.derived.calculator.inputs import DEFAULT_ALGORITHM
from tinkernomics.site.build import SiteContext
from tinkernomics.site.calculator import asof
from tinkernomics.site.calculator import feature as calcsite
from tinkernomics.site.calculator.presets import preset_queries
from tinkernomics.site.pages.views import Links


def test_what_a_switch_keeps_is_declared_keys() -> None:
    declared = {i.key: i for i in inputs.INPUTS}
    algorithm = declared["a"]
    assert {"G", "K"} <= set(algorithm.keeps)
    assert not set(algorithm.keeps) & set(algorithm.dependents)
    for i in inputs.INPUTS:
        assert set(i.keeps) <= set(declared), i.key
    # a kept key the new algorithm may not use says when it applies
    assert declared["tm"].when and declared["rc"].when


def test_every_algorithm_prices_the_default_run(catalog: Catalog) -> None:
    """The default run (G and K kept) with each algorithm: tokens, the self-hosted bill,
    GPU-hours and memory are finite numbers, and so is the Tinker bill where the model has a
    row in the list and Tinker can run the job (no algorithm blanks the estimate to '–'; one
    that trains a critic is not offered on Tinker, issue 44)."""
    default = preset_queries(catalog)[0]
    for algo in catalog.algorithms:
        e = estimate(catalog, {**default, "a": algo})
        for key in ("tokens.episodes", "tokens.train", "self.total", "self.gpu_hours",
                    "mem.peak", "mem.min_gpus"):
            assert e[key] is not None and math.isfinite(e[key]), (algo, key)
        if e["price.prefill"] is not None and not e["tinker.no"]:
            assert math.isfinite(e["tinker.total"]), algo


# --------------------------------------------------------------------------- freshness

def with_list(catalog: Catalog, effective: dt.date) -> Catalog:
    """A copy of ``catalog`` with a fixture price list (helpers_calc's toy list) dated
    ``effective``."""
    toy = with_toys(catalog)
    plist = toy.entries["price_list"][TOY_PRICES]
    model = plist.model.model_copy(update={"effective": effective})
    toy.entries["price_list"] = {**toy.entries["price_list"],
                                 TOY_PRICES: replace(plist, model=model)}
    return toy


def epoch(day: dt.date) -> str:
    return str(int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()))


def test_asof_judges_a_list_on_the_build_day(catalog: Catalog) -> None:
    """The newest list is stale only once it is over six months before the build day; an
    older list is stale while a newer one exists, whatever the day."""
    newest = max(p.effective for p in catalog.price_lists.values()) + dt.timedelta(days=1)
    toy = with_list(catalog, newest)
    fresh = asof.view(toy, TOY_PRICES, newest + dt.timedelta(days=31))
    old = asof.view(toy, TOY_PRICES, newest + dt.timedelta(days=7 * 31))
    assert fresh["date"] == newest.isoformat() and not fresh["stale"]
    assert old["stale"] and not old["newer"]
    other = next(p for p in catalog.price_lists)
    older = asof.view(toy, other, newest)
    assert older["stale"] and older["newer"] == newest.isoformat()


def test_the_build_day_comes_from_source_date_epoch(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "catalog").mkdir()
    for day in (dt.date(2031, 5, 17), dt.date(2032, 1, 2)):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch(day))
        assert calcsite.staleness_day(tmp_path) == day


@pytest.mark.parametrize(("months", "warned"), [(1, False), (7, True)])
def test_cost_panel_warns_on_an_old_list(catalog: Catalog, monkeypatch: pytest.MonkeyPatch,
                                         months: int, warned: bool) -> None:
    """An algorithm page's cost panels say the date of their prices, and warn when the list
    (a fixture list, the catalog's newest) is over six months older than the build day set by
    SOURCE_DATE_EPOCH; the calculator's static estimate likewise."""
    newest = max(p.effective for p in catalog.price_lists.values()) + dt.timedelta(days=1)
    toy = with_list(catalog, newest)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch(newest + dt.timedelta(days=months * 31)))
    ctx = SiteContext(root=catalog.root, catalog=toy)
    panel = calcsite.typical_run_section(ctx, DEFAULT_ALGORITHM, Links("algorithms/grpo/"))
    page = re.sub(r"<template.*?</template>", "", calcsite.calculator_html(ctx), flags=re.S)
    for html in (panel, page):
        assert f'Tinker prices as of <time datetime="{newest}">{newest}</time>' in html
        assert ('class="tn-calc__stale"' in html) is warned
        assert ("over 6 months before this site was built" in html) is warned
