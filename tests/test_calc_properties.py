"""Property tests of the calculator (hypothesis): monotonic costs, zero in -> zero out, LoRA."""

from __future__ import annotations

import pytest
from helpers_calc import cost_lines, real_catalog
from hypothesis import given, settings
from hypothesis import strategies as st

from tinkernomics.catalog import models as m
from tinkernomics.derived.calculator import ids, offline, tree
from tinkernomics.derived.calculator.estimate import Estimate
from tinkernomics.derived.calculator.estimate import estimate as evaluate


def newest_prices() -> str:
    """The id of the real catalog's newest price list."""
    return max(real_catalog().price_lists.values(), key=lambda p: (p.effective, p.id)).id


def _queries() -> st.SearchStrategy[dict[str, str]]:
    """Calculator queries on the real catalog's algorithms and newest priced models (built at
    the first draw, ``st.deferred``: collecting this file loads no catalog)."""
    catalog, prices = real_catalog(), newest_prices()
    small = st.integers(min_value=1, max_value=5_000)
    return st.fixed_dictionaries({
        "a": st.sampled_from(sorted(catalog.algorithms)),
        "m": st.sampled_from(sorted({row.model for row in catalog.price_lists[prices].rows})),
        "p": st.just(prices),
        "ft": st.sampled_from(["lora", "full"]),
        "steps": small.map(str), "n": small.map(str),
        "G": st.integers(1, 64).map(str), "K": st.integers(1, 4).map(str),
        "in": small.map(str), "out": small.map(str),
        "T": st.integers(1, 20).map(str), "d": st.integers(0, 20_000).map(str),
        "cache": st.sampled_from(["0", "1"]),
        # a GPU count: some priced models have no architecture figures to size the run from
        # (nor to time it: their self-hosted figures are then missing, and say why)
        "gpus": st.integers(1, 64).map(str),
    })


queries = st.deferred(_queries)


def estimate(query: dict[str, str]) -> Estimate:
    return evaluate(real_catalog(), query)


def value_of(formula: m.Formula, values: dict[str, float]) -> float:
    """A catalog formula at ``values``, by the calculator's evaluator (as the graph reads it)."""
    return tree.value_of(formula.expression, values)


@settings(max_examples=60, deadline=None)
@given(queries, st.sampled_from(["steps", "n", "G", "in", "out", "T", "d"]))
def test_costs_grow_with_tokens(query: dict[str, str], key: str) -> None:
    before = estimate(query)
    after = estimate({**query, key: str(int(query[key]) * 2)})
    offered = before["tinker.total"] is not None  # a run Tinker cannot do has no bill
    assert (after["tinker.total"] is not None) == offered
    if offered:
        assert after["tinker.total"] >= before["tinker.total"]
    # unpriced: no GPU count for a model without figures, or a sampler engine too small for
    # the weights (sampler_fit), neither of which tokens change
    priced = not _unpriced(before)
    assert (not _unpriced(after)) == priced
    if priced:
        assert after["self.total"] >= before["self.total"]
    assert after["self.flops"] >= before["self.flops"]
    # these always add trained tokens (G but for an offline method's fixed data shape)
    grows = ("steps", "n", "in") + (() if offline.overrides(real_catalog().algorithms[query["a"]])
                                    else ("G",))
    if key in grows:
        assert after["tokens.train"] > before["tokens.train"]
        if offered:
            assert after["tinker.total"] > before["tinker.total"]
        if priced:
            assert after["self.total"] > before["self.total"]


@settings(max_examples=40, deadline=None)
@given(queries)
def test_zero_tokens_cost_nothing(query: dict[str, str]) -> None:
    result = estimate({**query, "steps": "0", "ck": "0"})  # no steps, no checkpoints kept
    assert result["tokens.train"] == result["tokens.prefill"] == result["tokens.sample"] == 0
    assert result["tinker.total"] in (0, None)  # None: a run Tinker cannot do
    assert result["self.flops"] == 0
    assert result["self.total"] == 0 or _unpriced(result)


def _unpriced(result: Estimate) -> bool:
    """No self-hosted cost, and why: a model without architecture figures (no KV cache a
    token: its decode, attention and memory are unknown, ``timing``) or a sampler engine with
    no room after the weights (``time.short``)."""
    if result["self.total"] is not None:
        return False
    assert result["mem.shape_known"] is None or result["time.short"] == 1
    return True


@pytest.mark.parametrize("accounting", sorted(ids.LORA_FLOP_FORMULAS))
@settings(max_examples=60, deadline=None)
@given(st.floats(1e8, 1e12), st.integers(1024, 16384), st.integers(1, 64))
def test_lora_below_full_when_rank_is_small(accounting: str, p_active: float, d_model: int,
                                            rank: int) -> None:
    values = {"P_active": p_active, "R": rank, "D": d_model}
    formula = real_catalog().formulas[ids.LORA_FLOP_FORMULAS[accounting]]
    lora = value_of(formula, {v.name: values[v.name] for v in formula.variables})
    full = value_of(real_catalog().formulas[ids.FLOPS_FULL], {"P_active": p_active})
    assert rank <= d_model / 16  # R << D
    assert lora < full


@pytest.mark.parametrize("accounting", sorted(ids.LORA_FLOP_FORMULAS))
@settings(max_examples=30, deadline=None)
@given(queries, st.integers(1, 64))
def test_lora_run_trains_for_less_than_full(accounting: str, query: dict[str, str],
                                            rank: int) -> None:
    # D is the model's hidden size, or the site formula's example (4,096) where the catalog has
    # none: R <= 64 keeps R << D
    lora = estimate({**query, "ft": "lora", "lf": accounting, "r": str(rank)})
    full = estimate({**query, "ft": "full", "lf": accounting, "r": str(rank)})
    assert lora["lora.d_model"] >= 16 * rank
    catalog = real_catalog()
    lora_train = [x for x in cost_lines(catalog, lora, "self").values() if x.phase == "training"
                  and x.flops_per_token]
    full_train = [x for x in cost_lines(catalog, full, "self").values() if x.phase == "training"
                  and x.flops_per_token]
    assert [x.key for x in lora_train] == [x.key for x in full_train]
    for mine, theirs in zip(lora_train, full_train, strict=True):
        assert mine.formula == ids.LORA_FLOP_FORMULAS[accounting]
        assert mine.flops < theirs.flops
    assert lora["self.flops"] <= full["self.flops"]


@settings(max_examples=60, deadline=None)
@given(st.floats(1e8, 1e12), st.integers(1024, 16384), st.integers(1, 64))
def test_sourced_lora_is_two_thirds_of_full(p_active: float, d_model: int, rank: int) -> None:
    """The sourced count (transformer_math, lora_without_regret): 4·P of full fine-tuning's 6·P,
    above the original site's expression whenever R < D / 3."""
    sourced = value_of(real_catalog().formulas[ids.FLOPS_LORA_SOURCED],
                                      {"P_active": p_active})
    site = value_of(real_catalog().formulas[ids.FLOPS_LORA],
                                   {"P_active": p_active, "R": rank, "D": d_model})
    full = value_of(real_catalog().formulas[ids.FLOPS_FULL], {"P_active": p_active})
    assert sourced == pytest.approx(full * 2 / 3)
    assert site < sourced


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 50), st.integers(0, 100_000), st.integers(0, 100_000))
def test_closed_form_equals_turn_by_turn_sum(turns: int, c0: int, delta: int) -> None:
    e = estimate({"a": "grpo", "T": str(turns), "in": str(c0), "d": str(delta), "cache": "1"})
    # turn t (0-based) re-sends C0 + Δ·t; from turn 1 on the previous context is cached
    assert e["tokens.prefill_per_episode"] == sum(c0 + delta * t for t in range(turns))
    assert e["tokens.cached_per_episode"] == sum(c0 + delta * (t - 1) for t in range(1, turns))


@settings(max_examples=30, deadline=None)
@given(queries)
def test_single_turn_is_the_t1_case(query: dict[str, str]) -> None:
    one = estimate({**query, "T": "1"})
    prompt, out = float(query["in"]), float(query["out"])
    online = real_catalog().algorithms[query["a"]].online
    assert one["tokens.prefill_per_episode"] == (prompt if online else 0)
    assert one["tokens.sequence_per_episode"] == prompt + out
    assert one["tokens.prefill_cached"] == 0


@settings(max_examples=30, deadline=None)
@given(queries)
def test_totals_are_the_sum_of_lines(query: dict[str, str]) -> None:
    result = estimate(query)
    catalog = real_catalog()
    tinker, own = cost_lines(catalog, result, "tinker"), cost_lines(catalog, result, "self")
    if result["tinker.total"] is not None:  # else a run Tinker cannot do
        assert result["tinker.total"] == pytest.approx(sum(x.usd for x in tinker.values()))
    if _unpriced(result):  # no bill; a model without figures keeps the lines needing none
        assert own == {} or result["mem.shape_known"] is None
    else:
        assert result["self.total"] == pytest.approx(sum(x.usd for x in own.values()))
    terms = [v for k, v in result.values.items() if k.startswith("vram.") and v is not None
             and k not in ("vram.total", "vram.min_gpus") and not k.startswith("vram.value.")]
    assert result["vram.total"] == pytest.approx(sum(terms))
    assert result["vram.min_gpus"] * result["hw.memory_gb"] * 1e9 >= result["vram.total"]
