"""Multi-turn episodes: the Fireworks default episode at the Tinker rates Fireworks states.

Fireworks' "Price comparison vs Tinker" (reference fireworks_cost_comparison; facts.md §3c):
1,000 episodes, T = 8 turns, C0 = 8,000-token initial context, Δ = 12,000 tokens added per turn,
2,000 tokens decoded per turn; Tinker for Kimi K2.6 (128K) at $5.15 prefill and $12.81 sample per
1M tokens. Their prefill formula with re-prefill every turn is T·C0 + Δ·T(T−1)/2 per episode.

The rates are the ones Fireworks states, put on a fixture price row (the ``fw`` fixture): the
arithmetic is tested, not today's catalog prices.

Assumption (as Fireworks defines it): Δ is everything added to the context per turn, the model's
reply included, so the 2,000 decoded tokens reach the next turn's context through Δ and are not
added a second time.
"""

from __future__ import annotations

import pytest
from helpers_calc import TOY_MODEL, TOY_PRICES, with_toys

from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.derived.calculator.estimate import Estimate, estimate

FIREWORKS_EPISODE = {
    # steps × prompts × G = 1 × 1,000 × 1 = 1,000 episodes
    "steps": "1", "n": "1000", "G": "1", "K": "1",
    "T": "8", "in": "8000", "d": "12000", "out": "2000",
    "m": TOY_MODEL, "p": TOY_PRICES, "a": "grpo", "ref": "0",
}
FIREWORKS_TINKER_PREFILL = 5.15
"""USD per 1M prefill tokens Fireworks states for Tinker's Kimi K2.6 (128K)."""
FIREWORKS_TINKER_SAMPLE = 12.81
"""USD per 1M sampled tokens Fireworks states for Tinker's Kimi K2.6 (128K)."""
CACHED_DISCOUNT = 80.0
"""Percent off cached prefill on the fixture row."""


@pytest.fixture(scope="module")
def fw(catalog: Catalog) -> Catalog:
    """The real catalog's formulas and algorithms, plus a toy model priced at Fireworks' rates."""
    toy = with_toys(catalog)
    plist = toy.price_lists[TOY_PRICES]
    row = plist.rows[0].model_copy(update={"prefill": FIREWORKS_TINKER_PREFILL,
                                           "sample": FIREWORKS_TINKER_SAMPLE})
    discount = plist.cached_prefill_discount.model_copy(update={"value": CACHED_DISCOUNT})
    changed = plist.model_copy(update={"rows": [row], "cached_prefill_discount": discount})
    toy.entries["price_list"] = {**toy.entries["price_list"], TOY_PRICES: Entry(
        KINDS_BY_NAME["price_list"], TOY_PRICES, changed, YamlDoc(path="toy/fireworks"))}
    return toy


def fireworks(catalog: Catalog, **extra: str) -> Estimate:
    return estimate(catalog, {**FIREWORKS_EPISODE, **extra})


def test_fireworks_episode_tokens(fw: Catalog) -> None:
    t = fireworks(fw)
    # per episode: T·C0 + Δ·T(T−1)/2 = 8 × 8,000 + 12,000 × 8 × 7 / 2 = 64,000 + 336,000
    assert t["tokens.prefill_per_episode"] == 8 * 8_000 + 12_000 * 8 * 7 / 2 == 400_000
    # decoded: T × 2,000 = 16,000 per episode
    assert t["tokens.sample_per_episode"] == 8 * 2_000 == 16_000
    # × 1,000 episodes
    assert t["tokens.episodes"] == 1_000
    assert t["tokens.prefill"] == 400_000_000
    assert t["tokens.sample"] == 16_000_000


def test_fireworks_episode_tinker_bill(fw: Catalog) -> None:
    e = fireworks(fw)
    usd = {k: e[f"tinker.{k}"] for k in ("prefill", "sample", "prefill_cached")}
    # 400M prefill tokens × $5.15 / 1M = $2,060; 16M sampled × $12.81 / 1M = $204.96
    assert usd["prefill"] == pytest.approx(400 * 5.15) == 2_060
    assert usd["sample"] == pytest.approx(16 * 12.81) == 204.96
    assert usd["prefill"] + usd["sample"] == pytest.approx(2_264.96)
    assert usd["prefill_cached"] == 0  # re-prefill every turn: nothing is cached


def test_prefill_is_quadratic_in_turns(fw: Catalog) -> None:
    per_episode = [fireworks(fw, T=str(t))["tokens.prefill_per_episode"]
                   for t in (1, 2, 4, 8)]
    # 8,000; 2·8,000 + 12,000; 4·8,000 + 6·12,000; 8·8,000 + 28·12,000
    assert per_episode == [8_000, 28_000, 104_000, 400_000]


def test_prefix_cache_serves_the_old_context(fw: Catalog) -> None:
    t = fireworks(fw, cache="1")
    # each turn t ≥ 1 finds the previous context cached: Σ_{t=1..7} (C0 + Δ(t−1))
    #   = 7 × 8,000 + 12,000 × 7 × 6 / 2 = 56,000 + 252,000 = 308,000 per episode
    assert t["tokens.cached_per_episode"] == 308_000
    # only C0 + Δ(T−1) = 8,000 + 84,000 = 92,000 tokens per episode are new
    assert t["tokens.prefill_per_episode"] - t["tokens.cached_per_episode"] == 8_000 + 7 * 12_000
    # 308,000 / 400,000 = 77%: the cache-hit rate Fireworks quotes for 8 turns
    assert t["tokens.cached_per_episode"] / t["tokens.prefill_per_episode"] == pytest.approx(0.77)


def test_prefix_cache_discount_on_tinker(fw: Catalog) -> None:
    e = fireworks(fw, cache="1")
    usd = {k: e[f"tinker.{k}"] for k in ("prefill", "prefill_cached")}
    discount = CACHED_DISCOUNT
    # uncached 92M × $5.15 / 1M; cached 308M × $5.15 × (1 − 0.8) / 1M
    assert usd["prefill"] == pytest.approx(92 * 5.15)
    assert usd["prefill_cached"] == pytest.approx(308 * 5.15 * (1 - discount / 100))


def test_trajectory_length(fw: Catalog) -> None:
    t = fireworks(fw)
    # the finished trajectory: C0 + Δ(T−1) + last reply = 8,000 + 84,000 + 2,000
    assert t["tokens.sequence_per_episode"] == 94_000
