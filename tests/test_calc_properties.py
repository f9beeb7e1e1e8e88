"""Property tests of the calculator (hypothesis): monotonic costs, zero in -> zero out, LoRA."""

from __future__ import annotations

import pytest
from helpers_calc import real_catalog
from hypothesis import given, settings
from hypothesis import strategies as st

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import calc, calcinputs, derive

CATALOG: Catalog = real_catalog()
ALGORITHMS = sorted(CATALOG.algorithms)
MODELS_PRICED = sorted({row.model for row in CATALOG.price_lists["2026-07-17"].rows})

small = st.integers(min_value=1, max_value=5_000)
queries = st.fixed_dictionaries({
    "a": st.sampled_from(ALGORITHMS),
    "m": st.sampled_from(MODELS_PRICED),
    "p": st.just("2026-07-17"),
    "ft": st.sampled_from(["lora", "full"]),
    "steps": small.map(str), "n": small.map(str),
    "G": st.integers(1, 64).map(str), "K": st.integers(1, 4).map(str),
    "in": small.map(str), "out": small.map(str),
    "T": st.integers(1, 20).map(str), "d": st.integers(0, 20_000).map(str),
    "cache": st.sampled_from(["0", "1"]),
})


def estimate(query: dict[str, str]) -> calc.Result:
    return calc.calculate(CATALOG, calcinputs.inputs_from_query(CATALOG, query))


@settings(max_examples=60, deadline=None)
@given(queries, st.sampled_from(["steps", "n", "G", "in", "out", "T", "d"]))
def test_costs_grow_with_tokens(query: dict[str, str], key: str) -> None:
    before = estimate(query)
    after = estimate({**query, key: str(int(query[key]) * 2)})
    assert after.tinker.total >= before.tinker.total
    assert after.self_hosted.total >= before.self_hosted.total
    assert after.self_hosted.flops >= before.self_hosted.flops
    if key in ("steps", "n", "G", "in"):  # these always add trained tokens
        assert after.tokens.train > before.tokens.train
        assert after.tinker.total > before.tinker.total
        assert after.self_hosted.total > before.self_hosted.total


@settings(max_examples=40, deadline=None)
@given(queries)
def test_zero_tokens_cost_nothing(query: dict[str, str]) -> None:
    result = estimate({**query, "steps": "0", "ck": "0"})  # no steps, no checkpoints kept
    assert result.tokens.train == result.tokens.prefill == result.tokens.sample == 0
    assert result.tinker.total == 0
    assert result.self_hosted.flops == 0
    assert result.self_hosted.total == 0


@pytest.mark.parametrize("accounting", sorted(calc.LORA_FLOP_FORMULAS))
@settings(max_examples=60, deadline=None)
@given(st.floats(1e8, 1e12), st.integers(1024, 16384), st.integers(1, 64))
def test_lora_below_full_when_rank_is_small(accounting: str, p_active: float, d_model: int,
                                            rank: int) -> None:
    values = {"P_active": p_active, "R": rank, "D": d_model}
    formula = CATALOG.formulas[calc.LORA_FLOP_FORMULAS[accounting]]
    lora = derive.evaluate_formula(formula, {v.name: values[v.name] for v in formula.variables})
    full = derive.evaluate_formula(CATALOG.formulas[calc.FLOPS_FULL], {"P_active": p_active})
    assert rank <= d_model / 16  # R << D
    assert lora < full


@pytest.mark.parametrize("accounting", sorted(calc.LORA_FLOP_FORMULAS))
@settings(max_examples=30, deadline=None)
@given(queries, st.integers(1, 64))
def test_lora_run_trains_for_less_than_full(accounting: str, query: dict[str, str],
                                            rank: int) -> None:
    # D is the model's hidden size, or the site formula's example (4,096) where the catalog has
    # none: R <= 64 keeps R << D
    lora = estimate({**query, "ft": "lora", "lf": accounting, "r": str(rank)})
    full = estimate({**query, "ft": "full", "lf": accounting, "r": str(rank)})
    assert lora.resolved.d_model >= 16 * rank
    lora_train = [x for x in lora.self_hosted.lines if x.phase == "training"]
    full_train = [x for x in full.self_hosted.lines if x.phase == "training"]
    assert [x.key for x in lora_train] == [x.key for x in full_train]
    for mine, theirs in zip(lora_train, full_train, strict=True):
        assert mine.formula == calc.LORA_FLOP_FORMULAS[accounting]
        assert mine.flops < theirs.flops
    assert lora.self_hosted.flops <= full.self_hosted.flops


@settings(max_examples=60, deadline=None)
@given(st.floats(1e8, 1e12), st.integers(1024, 16384), st.integers(1, 64))
def test_sourced_lora_is_two_thirds_of_full(p_active: float, d_model: int, rank: int) -> None:
    """The sourced count (transformer_math, lora_without_regret): 4·P of full fine-tuning's 6·P,
    above the original site's expression whenever R < D / 3."""
    sourced = derive.evaluate_formula(CATALOG.formulas[calc.FLOPS_LORA_SOURCED],
                                      {"P_active": p_active})
    site = derive.evaluate_formula(CATALOG.formulas[calc.FLOPS_LORA],
                                   {"P_active": p_active, "R": rank, "D": d_model})
    full = derive.evaluate_formula(CATALOG.formulas[calc.FLOPS_FULL], {"P_active": p_active})
    assert sourced == pytest.approx(full * 2 / 3)
    assert site < sourced


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 50), st.integers(0, 100_000), st.integers(0, 100_000))
def test_closed_form_equals_turn_by_turn_sum(turns: int, c0: int, delta: int) -> None:
    shape = calc.RunShape(1, 1, 1, 1, float(c0), 100.0, float(turns), float(delta), True)
    # turn t (0-based) re-sends C0 + Δ·t; from turn 1 on the previous context is cached
    assert calc.episode_prefill(shape) == sum(c0 + delta * t for t in range(turns))
    assert calc.episode_cached(shape) == sum(c0 + delta * (t - 1) for t in range(1, turns))


@settings(max_examples=30, deadline=None)
@given(queries)
def test_single_turn_is_the_t1_case(query: dict[str, str]) -> None:
    one = estimate({**query, "T": "1"}).tokens
    prompt, out = float(query["in"]), float(query["out"])
    online = CATALOG.algorithms[query["a"]].online
    assert one.prefill_per_episode == (prompt if online else 0)
    assert one.sequence_per_episode == prompt + out
    assert one.prefill_cached == 0


@settings(max_examples=30, deadline=None)
@given(queries)
def test_totals_are_the_sum_of_lines(query: dict[str, str]) -> None:
    result = estimate(query)
    assert result.tinker.total == pytest.approx(sum(x.usd for x in result.tinker.lines))
    assert result.self_hosted.total == pytest.approx(sum(x.usd for x in result.self_hosted.lines))
    mem = result.memory
    assert mem.total_bytes == pytest.approx(sum(t.bytes for t in mem.terms))
    assert mem.min_gpus * mem.gpu_memory_gb * 1e9 >= mem.total_bytes
