"""The calculator's Python reference: hand-computed cases, with the arithmetic written out.

Toy entries (tests/helpers_calc.py) give round numbers: Toy-1B (1e9 parameters, d_model 1,000),
prices $1 prefill / $2 sample / $3 train per 1M tokens (50% cached discount, $0.10 per
GB-month), a 1,000 TFLOP/s GPU with 10 GB at $2 per hour. Formulas are the real catalog's.
"""

from __future__ import annotations

import math

import pytest
from helpers_calc import TOY_GPU, TOY_MODEL, TOY_PRICES, real_catalog, with_toys

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import calc, calcinputs


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return real_catalog()


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_toys(catalog)


def toy_query(**extra: str) -> dict[str, str]:
    """GRPO on Toy-1B: 90 steps × 100 prompts × G=100, 1,000 + 1,000 tokens, K = 1.

    Utilisation fixed at 50% (train, prefill) and 10% (decode) so hours come out round.
    """
    query = {"m": TOY_MODEL, "p": TOY_PRICES, "hw": TOY_GPU, "a": "grpo", "steps": "90",
             "n": "100", "G": "100", "K": "1", "in": "1000", "out": "1000", "mt": "50",
             "mp": "50", "md": "10"}
    query.update(extra)
    return query


def run(catalog: Catalog, **extra: str) -> calc.Result:
    return calc.calculate(catalog, calcinputs.inputs_from_query(catalog, toy_query(**extra)))


def test_tokens_single_turn(toy: Catalog) -> None:
    t = run(toy).tokens
    assert t.episodes == 90 * 100 * 100 == 900_000
    assert t.prefill == 900_000 * 1000 == 9e8
    assert t.sample == 900_000 * 1000 == 9e8
    assert t.sequence == 900_000 * (1000 + 1000) == 1.8e9
    assert t.train == 1.8e9 * 1  # K = 1
    assert run(toy, K="3").tokens.train == 1.8e9 * 3


def test_tinker_bill_by_hand(toy: Catalog) -> None:
    bill = run(toy).tinker
    usd = {line.key: line.usd for line in bill.lines}
    assert usd["prefill"] == pytest.approx(9e8 * 1.0 / 1e6)  # $900
    assert usd["prefill_cached"] == 0  # no prefix cache asked for
    assert usd["sample"] == pytest.approx(9e8 * 2.0 / 1e6)  # $1,800
    # GRPO keeps a reference: its log-probs over the trajectories are billed as prefill
    assert usd["reference"] == pytest.approx(1.8e9 * 1.0 / 1e6)  # $1,800
    assert usd["train"] == pytest.approx(1.8e9 * 3.0 / 1e6)  # $5,400
    # storage: 1 checkpoint × 0.5 GB (the LoRA formula's lora_overhead example) × 1 month × $0.10
    assert usd["storage"] == pytest.approx(1 * 0.5 * 1 * 0.10)
    assert bill.total == pytest.approx(900 + 1800 + 1800 + 5400 + 0.05)
    assert bill.available and bill.not_covered == ()


def test_self_hosted_by_hand(toy: Catalog) -> None:
    own = run(toy).self_hosted
    lines = {line.key: line for line in own.lines}
    # rollout, 2 FLOPs per parameter per token: 9e8 tokens × 2e9 = 1.8e18 FLOP
    assert lines["prefill"].flops == pytest.approx(1.8e18)
    # at 1,000 TFLOP/s × 50% = 5e14 FLOP/s: 3,600 s = 1 GPU-hour, $2
    assert lines["prefill"].gpu_hours == pytest.approx(1.0)
    assert lines["prefill"].usd == pytest.approx(2.0)
    # decode at 10%: 1.8e18 / 1e14 = 18,000 s = 5 GPU-hours, $10
    assert lines["decode"].gpu_hours == pytest.approx(5.0)
    # reference log-probs: 1.8e9 tokens × 2e9 = 3.6e18 at 50% -> 2 GPU-hours
    assert lines["reference"].gpu_hours == pytest.approx(2.0)
    # LoRA, sourced accounting (the default): forward 2·P + backward through the frozen base
    # 2·P = 4e9 FLOP per token; 1.8e9 tokens × 4e9 = 7.2e18 at 5e14 FLOP/s -> 4 GPU-hours
    assert lines["train"].formula == "flops_lora_training_sourced"
    assert lines["train"].flops_per_token == pytest.approx(4e9)
    assert lines["train"].gpu_hours == pytest.approx(4.0)
    assert own.gpu_hours == pytest.approx(1 + 5 + 2 + 4)
    assert own.total == pytest.approx((1 + 5 + 2 + 4) * 2.0)


def test_self_hosted_site_accounting_by_hand(toy: Catalog) -> None:
    own = run(toy, lf="site").self_hosted
    train = {line.key: line for line in own.lines}["train"]
    # the original site's expression (R = 32 by default, D = 1,000):
    # 2e9 + 6e9 × 32 / 1000 = 2.192e9 FLOP per token
    assert train.formula == "flops_lora_training"
    assert train.flops_per_token == pytest.approx(2e9 + 6e9 * 32 / 1000)
    assert train.gpu_hours == pytest.approx(1.8e9 * 2.192e9 / 5e14 / 3600)  # 2.192 h
    assert own.gpu_hours == pytest.approx(1 + 5 + 2 + 2.192)
    assert own.total == pytest.approx((1 + 5 + 2 + 2.192) * 2.0)
    # rank and hidden size move only this accounting: R = 64, D = 2,000 -> 2e9 + 6e9 × 0.032
    site = {x.key: x for x in run(toy, lf="site", r="64", D="2000").self_hosted.lines}["train"]
    assert site.flops_per_token == pytest.approx(2e9 + 6e9 * 64 / 2000)
    sourced = {x.key: x for x in run(toy, r="64", D="2000").self_hosted.lines}["train"]
    assert sourced.flops_per_token == pytest.approx(4e9)


def test_lora_accounting_does_not_touch_the_rest(toy: Catalog) -> None:
    sourced, site = calc.numbers(run(toy)), calc.numbers(run(toy, lf="site"))
    changed = {k for k in sourced if sourced[k] != site[k]}
    # training lines and what sums them; the Tinker bill, tokens and memory stay put
    assert "self.train.flops" in changed and "tinker.total" not in changed
    assert all(k.startswith(("self.", "breakeven.", "wall_clock")) for k in changed), changed
    # full fine-tuning ignores the setting
    assert calc.numbers(run(toy, ft="full")) == calc.numbers(run(toy, ft="full", lf="site"))


def test_full_fine_tuning_uses_six_p(toy: Catalog) -> None:
    train = {x.key: x for x in run(toy, ft="full").self_hosted.lines}["train"]
    assert train.formula == "flops_training"
    assert train.flops_per_token == pytest.approx(6e9)
    assert train.gpu_hours == pytest.approx(1.8e9 * 6e9 / 5e14 / 3600)  # 6 GPU-hours


@pytest.mark.parametrize(("accounting", "hours"), [
    ("sourced", 1 + 5 + 2 + 4.0),  # LoRA training at 4·P: 4 GPU-hours
    ("site", 1 + 5 + 2 + 2.192),  # the original site's 2·P + 6·P·R/D: 2.192 GPU-hours
])
def test_break_even_by_hand(toy: Catalog, accounting: str, hours: float) -> None:
    result = run(toy, lf=accounting)
    tinker, own = 9900.05, hours * 2.0
    be = result.break_even
    assert be.gpu_price == pytest.approx(tinker / hours)  # $/GPU-hour where the bills meet
    assert be.ratio == pytest.approx(tinker / own)
    setup = toy.platform.setup_cost.total.value  # the catalog's cost of building the stack
    assert be.setup_usd == setup
    assert be.runs_to_repay_setup == pytest.approx(setup / (tinker - own))


def test_memory_grpo_lora_by_hand(toy: Catalog) -> None:
    mem = run(toy).memory
    terms = {t.variable: t.bytes for t in mem.terms}
    assert mem.formula == "vram_grpo_lora"
    assert terms["P_total"] == 1e9 * 2  # frozen bf16 base
    assert terms["P_ref"] == 1e9 * 2  # frozen reference
    # adapter state, KV cache and activations default to the formula's example values
    assert mem.total_bytes == 2e9 + 2e9 + 0.5e9 + 4e9 + 4e9  # 12.5 GB
    assert mem.min_gpus == math.ceil(12.5 / 10) == 2
    assert run(toy, kv_cache="20").memory.total_bytes == 2e9 + 2e9 + 0.5e9 + 20e9 + 4e9


def test_memory_ppo_full_by_hand(toy: Catalog) -> None:
    mem = run(toy, a="ppo", ft="full").memory
    terms = {t.variable: t.bytes for t in mem.terms}
    # policy and critic 16 bytes/param, reference and reward model 2 bytes/param (ZeRO)
    assert terms == {"P_total": 16e9, "P_critic": 16e9, "P_ref": 2e9, "P_RM": 2e9}
    assert mem.total_bytes == 36e9
    assert mem.min_gpus == 4  # 36 GB on 10 GB GPUs


def test_ppo_adds_critic_and_reward_model(toy: Catalog) -> None:
    result = run(toy, a="ppo", K="2")
    keys = [line.key for line in result.self_hosted.lines]
    assert keys == ["prefill", "decode", "reference", "reward_model", "train", "critic"]
    lines = {line.key: line for line in result.self_hosted.lines}
    assert lines["critic"].flops == lines["train"].flops  # same size, same mode, K passes
    assert result.tinker.not_covered == ("critic", "reward_model")


def test_reference_can_be_switched_off(toy: Catalog) -> None:
    result = run(toy, ref="0")
    assert "reference" not in [line.key for line in result.tinker.lines]
    assert "reference" not in [line.key for line in result.self_hosted.lines]
    assert {t.variable: t.bytes for t in result.memory.terms}["P_ref"] == 0


def test_teacher_uses_its_own_size_and_price(catalog: Catalog) -> None:
    query = {"a": "opd", "m": "qwen3-8b", "tm": "qwen3-32b", "p": "2026-01-05", "G": "4"}
    result = calc.calculate(catalog, calcinputs.inputs_from_query(catalog, query))
    teacher = {line.key: line for line in result.self_hosted.lines}["teacher"]
    assert teacher.flops_per_token == 2 * 32e9  # forward pass of the 32B teacher
    bill = {line.key: line for line in result.tinker.lines}["teacher"]
    assert bill.rate == 0.49  # Qwen3-32B prefill in the 2026-01-05 list
    assert {t.variable: t.value for t in result.memory.terms}["P_ref"] == 32e9


def test_offline_algorithm_samples_nothing(toy: Catalog) -> None:
    t = run(toy, a="dpo", G="2").tokens
    assert t.prefill == t.sample == 0
    assert t.sequence == 90 * 100 * 2 * 2000  # chosen + rejected, 1,000 + 1,000 tokens each


def test_default_training_mfu_from_deepseek_v3(catalog: Catalog) -> None:
    # 6 × 37e9 × 14.8e12 = 3.2856e24 FLOP over 2.788e6 h × 3,600 s × 989.4e12 FLOP/s
    mfu = calc.training_mfu(catalog)
    assert mfu.value == pytest.approx(3.2856e24 / (2.788e6 * 3600 * 989.4e12))
    assert 0.33 < mfu.value < 0.332
    assert mfu.source == "deepseek_v3"


def test_default_decode_mfu_is_the_roofline(catalog: Catalog) -> None:
    h100, dense = catalog.hardware["h100"], catalog.models["qwen3-8b"]
    # dense: 32 sequences × 2 FLOP × 8e9 ÷ (2 bytes × min(8e9, 32 × 8e9)) × 3.35 TB/s ÷ 989.4
    # TFLOP/s = 32 × 3.35 / 989.4 ≈ 10.8%
    mfu = calc.decode_mfu(catalog, h100, dense)
    assert mfu.value == pytest.approx(32 * 3.35e12 / 989.4e12)
    assert mfu.status == "unverified"
    # MoE (Kimi K2.6, 1,000B total, 32B active): a batch of 32 reads min(1e12, 32 × 32e9) bytes/2
    # = all 1e12 parameters for 32 × 32e9 tokens' worth of work: 1.024 × 3.35 / 989.4 ≈ 0.35%
    moe = calc.decode_mfu(catalog, h100, catalog.models["kimi-k2.6"]).value
    assert moe == pytest.approx(32 * 2 * 32e9 / (2 * 1e12) * 3.35e12 / 989.4e12)
    assert moe < mfu.value / 25


def test_convergence_matches_derive(catalog: Catalog) -> None:
    from tinkernomics.derived import derive

    result = calcinputs.estimate(catalog, {"a": "grpo", "tf": "50"})
    conv = result.convergence
    assert conv is not None
    # at half the gain, C = C_mid (GRPO's fit: 4,000 GB200-hours)
    c_mid = catalog.algorithms["grpo"].scalerl.C_mid.value
    assert conv.gb200_hours == pytest.approx(c_mid)
    factor = derive.conversion_factor(catalog).value
    assert conv.h100_hours == pytest.approx(c_mid * factor)
    assert conv.chosen_hours == pytest.approx(c_mid * factor)  # chosen GPU is the H100
    assert conv.usd == pytest.approx(c_mid * factor * result.resolved.gpu_price)


def test_no_convergence_without_fit(catalog: Catalog) -> None:
    result = calc.calculate(catalog, calcinputs.inputs_from_query(catalog, {"a": "ppo"}))
    assert result.convergence is None


def test_defaults_come_from_the_catalog(catalog: Catalog) -> None:
    inputs = calcinputs.inputs_from_query(catalog, {"a": "ppo"})
    ppo = catalog.algorithms["ppo"]
    assert inputs.shape.group_size == ppo.typical_g.values[len(ppo.typical_g.values) // 2]
    assert inputs.shape.passes == ppo.typical_k.values[len(ppo.typical_k.values) // 2]
    assert inputs.price_list == max(catalog.price_lists.values(), key=lambda p: p.effective).id
    resolved = calc.resolve(catalog, inputs)
    assert resolved.gpu_price == catalog.hardware["h100"].rental_prices[0].price.value


def test_unverified_inputs_are_listed(catalog: Catalog) -> None:
    result = calcinputs.estimate(catalog, {})
    figures = calcinputs.input_figures(catalog, result.resolved)
    flagged = {f.key for f in figures if f.unverified}
    # by default LoRA is priced by the sourced formula (derived), without rank or hidden size
    keys = {f.key for f in figures}
    assert "formula:flops_lora_training_sourced" in keys - flagged
    assert "formula:flops_lora_training" not in keys
    assert "model:qwen3-8b:d_model" not in keys
    # GRPO's ScaleRL parameters are unverified in the catalog
    assert "algorithm:grpo:C_mid" in flagged
    assert "assumption:mfu_decode:h100" in flagged
    assert "hardware:h100:tflops" in {f.key for f in figures} - flagged
    # every key the estimate names exists in the registry
    assert len(figures) == len(calcinputs.figure_keys(result.resolved))


def test_site_accounting_is_flagged_unverified(catalog: Catalog) -> None:
    result = calcinputs.estimate(catalog, {"lf": "site"})
    figures = calcinputs.input_figures(catalog, result.resolved)
    flagged = {f.key for f in figures if f.unverified}
    # the original site's LoRA expression is unverified, and it reads the model's hidden size
    assert "formula:flops_lora_training" in flagged
    assert "model:qwen3-8b:d_model" in {f.key for f in figures}
    assert "formula:flops_lora_training_sourced" not in {f.key for f in figures}


def test_overridden_assumptions_are_not_listed(catalog: Catalog) -> None:
    result = calcinputs.estimate(catalog, {"mt": "40", "md": "5", "gp": "3"})
    keys = calcinputs.figure_keys(result.resolved)
    assert "assumption:mfu_train" not in keys
    assert "assumption:mfu_decode:h100" not in keys
    assert "hardware:h100:price" not in keys
    assert "assumption:mfu_prefill" in keys


@pytest.mark.parametrize(("query", "field", "expected"), [
    ({"steps": "abc"}, "steps", 100.0),  # invalid -> default
    ({"steps": "-5"}, "steps", 100.0),  # signs are not accepted
    ({"steps": "99999999999"}, "steps", 1e7),  # clamped to the highest allowed
    ({"G": "0"}, "group_size", 1.0),  # clamped to the lowest allowed
    ({"T": "3"}, "turns", 3.0),
    ({"in": "1.5"}, "prompt_tokens", 512.0),  # token counts are whole numbers
])
def test_query_parsing(catalog: Catalog, query: dict[str, str], field: str,
                       expected: float) -> None:
    shape = calcinputs.inputs_from_query(catalog, query).shape
    assert getattr(shape, field) == expected


@pytest.mark.parametrize(("lf", "lora_flops"), [
    (None, "sourced"), ("sourced", "sourced"), ("site", "site"), ("SITE", "sourced"),
    ("", "sourced"), ("bogus", "sourced"),
])
def test_query_lora_accounting(catalog: Catalog, lf: str | None, lora_flops: str) -> None:
    query = {} if lf is None else {"lf": lf}
    assert calcinputs.inputs_from_query(catalog, query).lora_flops == lora_flops


def test_query_unknown_ids_fall_back(catalog: Catalog) -> None:
    inputs = calcinputs.inputs_from_query(catalog, {"m": "nope", "a": "nope", "hw": "nope"})
    assert (inputs.model, inputs.algorithm, inputs.hardware) == ("qwen3-8b", "grpo", "h100")


def test_model_without_price_row(catalog: Catalog) -> None:
    # Llama-3.1-8B is in the 2026-01-05 list only
    query = {"m": "llama-3.1-8b", "p": "2026-07-17"}
    result = calc.calculate(catalog, calcinputs.inputs_from_query(catalog, query))
    assert not result.tinker.available
    assert calc.numbers(result)["tinker.total"] is None
    assert result.break_even.gpu_price is None
