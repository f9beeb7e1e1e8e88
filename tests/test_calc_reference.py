"""The calculator's Python reference: hand-computed cases, with the arithmetic written out.

Toy entries (tests/helpers_calc.py) give round numbers: Toy-1B (1e9 parameters, d_model 1,000),
prices $1 prefill / $2 sample / $3 train per 1M tokens (50% cached discount, $0.10 per
GB-month), a 1,000 TFLOP/s GPU with 10 GB and 1 TB/s at $2 per hour, a 4B teacher ($1.50
prefill) and an MoE (100B, 1B active). Formulas are the real catalog's; what a test reads of the
real catalog (a GPU's peak, the default run) it reads from the entry, never as a literal.
"""

from __future__ import annotations

import math

import helpers_figures
import pytest
from helpers_calc import (
    TOY_ENTRIES,
    TOY_GPU,
    TOY_MODEL,
    TOY_MOE,
    TOY_PRICES,
    TOY_TEACHER,
    cost_lines,
    with_toys,
)

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.hardware import default_rental
from tinkernomics.derived.calculator import assumptions, figures, ids, inputs, offline, timing
from tinkernomics.derived.calculator.estimate import Estimate, estimate, graph_for


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_toys(catalog)


def toy_query(**extra: str) -> dict[str, str]:
    """GRPO on Toy-1B: 90 steps × 100 prompts × G=100, 1,000 + 1,000 tokens, K = 1.

    Utilisation fixed at 50% (train, prefill) and 10% (decode) so hours come out round; one
    GPU (the toy model gives its attention shape, to time the run, but not its vocabulary or
    MLP width, to size its memory from).
    """
    query = {"m": TOY_MODEL, "p": TOY_PRICES, "hw": TOY_GPU, "a": "grpo", "steps": "90",
             "n": "100", "G": "100", "K": "1", "in": "1000", "out": "1000", "mt": "50",
             "mp": "50", "md": "10", "gpus": "1"}
    query.update(extra)
    return query


def run(catalog: Catalog, **extra: str) -> Estimate:
    return estimate(catalog, toy_query(**extra))


ATTENTION = 6 * 10 * (10 * 100) * 2000
"""Attention's training FLOPs a token (6 · layers · width · sequence, causal; a forward is a
third): 10 layers of 10 heads of 100 over 1,000 + 1,000 tokens. The reference's forward
(2·P and a third of attention) over 1.8e9 tokens at 50% of 1,000 TFLOP/s: 2.04 GPU-hours."""
REFERENCE_HOURS = 1.8e9 * (2e9 + ATTENTION / 3) / 5e14 / 3600


def train_hours(flops_per_token: float, critic: bool = False, k: int = 1) -> float:
    """The time model's policy training at 50%: K passes of the formula and attention × 4/3
    (full recomputation, the default) plus one old-policy forward (2·P and a third of
    attention), over 1.8e9 trained tokens (per K)."""
    per_token = k * (flops_per_token + ATTENTION) * 4 / 3 + 2e9 + ATTENTION / 3
    return 1.8e9 * per_token / 5e14 / 3600


def overhead_hours(e: Estimate) -> float:
    """Refit (2 GB of weights at the refit rate), the optimizer step and the sampler's wake-up
    (timed from physics: test_step_work.py) and the fixed seconds a step (the time model's
    constants), 90 steps, on the run's GPUs."""
    c = {k.key: k.value for k in timing.CONSTANTS}
    per_step = (2e9 / (c["refit_gb_s"] * 1e9) + e["time.optimizer_s"] + e["time.wake_s"]
                + c["step_seconds"])
    assert e["self.overhead.gpu_hours"] == pytest.approx(90 * per_step * e["time.gpus"] / 3600)
    return e["self.overhead.gpu_hours"]


def with_run_overhead(e: Estimate, hours: float) -> float:
    """The run's GPU-hours: the steps' ``hours`` plus the time model's evaluation, checkpoint
    and restart overhead, a fraction of them (its own line, in no phase's hours)."""
    share = {c.key: c.value for c in timing.CONSTANTS}["run_overhead"]
    assert e["self.run_overhead.gpu_hours"] == pytest.approx(hours * share)
    return hours * (1 + share)


def test_tokens_single_turn(toy: Catalog) -> None:
    t = run(toy)
    assert t["tokens.episodes"] == 90 * 100 * 100 == 900_000
    assert t["tokens.prefill"] == 900_000 * 1000 == 9e8
    assert t["tokens.sample"] == 900_000 * 1000 == 9e8
    assert t["tokens.sequence"] == 900_000 * (1000 + 1000) == 1.8e9
    assert t["tokens.train"] == 1.8e9 * 1  # K = 1
    assert run(toy, K="3")["tokens.train"] == 1.8e9 * 3


def test_tinker_bill_by_hand(toy: Catalog) -> None:
    bill = run(toy)
    usd = {k.removeprefix("tinker."): v for k, v in bill.numbers.items()
           if k.startswith("tinker.") and v is not None}
    assert usd["prefill"] == pytest.approx(9e8 * 1.0 / 1e6)  # $900
    assert usd["prefill_cached"] == 0  # no prefix cache asked for
    assert usd["sample"] == pytest.approx(9e8 * 2.0 / 1e6)  # $1,800
    # GRPO keeps a reference: its log-probs over the trajectories are billed as prefill
    assert usd["reference"] == pytest.approx(1.8e9 * 1.0 / 1e6)  # $1,800
    assert usd["train"] == pytest.approx(1.8e9 * 3.0 / 1e6)  # $5,400
    # storage: 1 checkpoint × 0.5 GB (the LoRA formula's lora_overhead example) × 1 month × $0.10
    assert usd["storage"] == pytest.approx(1 * 0.5 * 1 * 0.10)
    assert bill["tinker.total"] == pytest.approx(900 + 1800 + 1800 + 5400 + 0.05)
    assert bill["tinker.teacher"] is None and bill.resolved.names["not_covered"] == ""


def test_self_hosted_by_hand(toy: Catalog) -> None:
    own = run(toy)
    lines = cost_lines(toy, own, "self")
    # rollout, 2 FLOPs per parameter per token: 9e8 tokens × 2e9 = 1.8e18 FLOP
    assert lines["prefill"].flops == pytest.approx(1.8e18)
    # at 1,000 TFLOP/s × 50% = 5e14 FLOP/s: 3,600 s = 1 GPU-hour, $2
    assert lines["prefill"].gpu_hours == pytest.approx(1.0)
    assert lines["prefill"].usd == pytest.approx(2.0)
    # decode at 10%: 1.8e18 / 1e14 = 18,000 s = 5 GPU-hours, $10
    assert lines["decode"].gpu_hours == pytest.approx(5.0)
    # reference log-probs: 1.8e9 tokens × (2e9 + 4e7 of attention) = 3.67e18 at 50% -> 2.04
    assert lines["reference"].gpu_hours == pytest.approx(REFERENCE_HOURS) == 2.04
    # LoRA, sourced accounting (the default): forward 2·P + backward through the frozen base
    # 2·P = 4e9 FLOP per token; the time model adds attention (1.2e8), full recomputation
    # (× 4/3) and the old-policy forward (2·P + 4e7): 1.8e9 × (5.49e9 + 2.04e9) at 5e14
    # FLOP/s -> 7.53 GPU-hours
    assert train_hours(4e9) == pytest.approx(7.5333, rel=1e-4)
    assert lines["train"].formula == "flops_lora_training_sourced"
    assert lines["train"].flops_per_token == pytest.approx(4e9)
    assert lines["train"].gpu_hours == pytest.approx(train_hours(4e9))
    hours = with_run_overhead(own, 6 + REFERENCE_HOURS + train_hours(4e9) + overhead_hours(own))
    assert own["self.gpu_hours"] == pytest.approx(hours)
    assert own["self.total"] == pytest.approx(hours * 2.0)


def test_self_hosted_site_accounting_by_hand(toy: Catalog) -> None:
    own = run(toy, lf="site")
    train = cost_lines(toy, own, "self")["train"]
    # the original site's expression (R = 32 by default, D = 1,000):
    # 2e9 + 6e9 × 32 / 1000 = 2.192e9 FLOP per token
    assert train.formula == "flops_lora_training"
    assert train.flops_per_token == pytest.approx(2e9 + 6e9 * 32 / 1000)
    assert train.gpu_hours == pytest.approx(train_hours(2.192e9))
    hours = with_run_overhead(own, 1 + 5 + REFERENCE_HOURS + train_hours(2.192e9)
                              + overhead_hours(own))
    assert own["self.gpu_hours"] == pytest.approx(hours)
    assert own["self.total"] == pytest.approx(hours * 2.0)
    # rank and hidden size move only this accounting: R = 64, D = 2,000 -> 2e9 + 6e9 × 0.032
    site = cost_lines(toy, run(toy, lf="site", r="64", D="2000"), "self")["train"]
    assert site.flops_per_token == pytest.approx(2e9 + 6e9 * 64 / 2000)
    sourced = cost_lines(toy, run(toy, r="64", D="2000"), "self")["train"]
    assert sourced.flops_per_token == pytest.approx(4e9)


def test_lora_accounting_does_not_touch_the_rest(toy: Catalog) -> None:
    sourced, site = run(toy).numbers, run(toy, lf="site").numbers
    changed = {k for k in sourced if sourced[k] != site[k]}
    # training lines and what sums them; the Tinker bill, tokens and memory stay put
    assert "self.train.flops" in changed and "tinker.total" not in changed
    assert all(k.startswith(("self.", "breakeven.", "wall_clock", "time.")) for k in changed), \
        changed
    # full fine-tuning ignores the setting
    assert run(toy, ft="full").numbers == run(toy, ft="full", lf="site").numbers


def test_full_fine_tuning_uses_six_p(toy: Catalog) -> None:
    train = cost_lines(toy, run(toy, ft="full"), "self")["train"]
    assert train.formula == "flops_training"
    assert train.flops_per_token == pytest.approx(6e9)
    assert train.gpu_hours == pytest.approx(train_hours(6e9))


@pytest.mark.parametrize(("accounting", "hours"), [
    ("sourced", 1 + 5 + REFERENCE_HOURS + train_hours(4e9)),  # LoRA training at 4·P
    # the original site's 2·P + 6·P·R/D
    ("site", 1 + 5 + REFERENCE_HOURS + train_hours(2.192e9)),
])
def test_break_even_by_hand(toy: Catalog, accounting: str, hours: float) -> None:
    result = run(toy, lf=accounting)
    hours = with_run_overhead(result, hours + overhead_hours(result))
    tinker, own = 9900.05, hours * 2.0
    # $/GPU-hour where the bills meet
    assert result["breakeven.gpu_price"] == pytest.approx(tinker / hours)
    assert result["breakeven.ratio"] == pytest.approx(tinker / own)
    setup = toy.platform.setup_cost.total.value  # the catalog's cost of building the stack
    assert result["const.setup"] == setup
    assert result["breakeven.runs"] == pytest.approx(setup / (tinker - own))


def vram_terms(e: Estimate) -> dict[str, float]:
    """The memory terms that apply, by VRAM variable: bytes (the original site's formula, kept
    as helpers: no longer among the run's shown figures)."""
    return {k.removeprefix("vram."): v for k, v in e.values.items()
            if k.startswith("vram.") and k not in ("vram.total", "vram.min_gpus")
            and not k.startswith("vram.value.") and v is not None}


def test_memory_grpo_lora_by_hand(toy: Catalog) -> None:
    e = run(toy)
    terms = vram_terms(e)
    assert e.resolved.names["vram_formula"] == "vram_grpo_lora"
    assert terms["P_total"] == 1e9 * 2  # frozen bf16 base
    assert terms["P_ref"] == 1e9 * 2  # frozen reference
    # adapter state, KV cache and activations default to the formula's example values
    assert e["vram.total"] == 2e9 + 2e9 + 0.5e9 + 4e9 + 4e9  # 12.5 GB
    assert e["vram.min_gpus"] == math.ceil(12.5 / 10) == 2
    assert run(toy, kv_cache="20")["vram.total"] == 2e9 + 2e9 + 0.5e9 + 20e9 + 4e9


def test_memory_ppo_full_by_hand(toy: Catalog) -> None:
    e = run(toy, a="ppo", ft="full")
    # policy and critic 16 bytes/param, reference and reward model 2 bytes/param (ZeRO)
    assert vram_terms(e) == {"P_total": 16e9, "P_critic": 16e9, "P_ref": 2e9, "P_RM": 2e9}
    assert e["vram.total"] == 36e9
    assert e["vram.min_gpus"] == 4  # 36 GB on 10 GB GPUs


def test_ppo_adds_critic_and_reward_model(toy: Catalog) -> None:
    result = run(toy, a="ppo", K="2")
    lines = cost_lines(toy, result, "self")
    assert list(lines) == ["prefill", "decode", "environment", "reference", "reward_model",
                           "train", "critic", "overhead", "run_overhead"]
    assert lines["critic"].flops == lines["train"].flops  # same size, same mode, K passes
    assert result.resolved.names["not_covered"] == "critic and reward model"


def test_reference_can_be_switched_off(toy: Catalog) -> None:
    result = run(toy, ref="0")
    assert "reference" not in cost_lines(toy, result, "tinker")
    assert "reference" not in cost_lines(toy, result, "self")
    assert vram_terms(result)["P_ref"] == 0


def distilling(catalog: Catalog) -> str:
    """An algorithm run with a teacher, whichever the catalog has."""
    return next(a.id for a in catalog.algorithms.values()
                if a.semantics is not None and a.semantics.teacher is not None)


def test_teacher_uses_its_own_size_and_price(toy: Catalog) -> None:
    result = run(toy, a=distilling(toy), tm=TOY_TEACHER, G="4")
    teacher = cost_lines(toy, result, "self")["teacher"]
    assert teacher.flops_per_token == 2 * 4e9  # forward pass of the 4B teacher, not the 1B
    assert cost_lines(toy, result, "tinker")["teacher"].rate == 1.5  # the teacher's own row
    assert result["vram.value.P_ref"] == 4e9


def test_offline_algorithm_samples_nothing(toy: Catalog) -> None:
    t = run(toy, a="dpo", G="2")
    assert t["tokens.prefill"] == t["tokens.sample"] == 0
    assert t["tokens.sequence"] == 90 * 100 * 2 * 2000  # chosen + rejected, 1,000 + 1,000 each


def test_missing_typical_g_is_never_replaced(toy: Catalog,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """DPO's entry gives no typical G: were its data shape unstated (``offline.overrides``
    empty), the estimate says G is missing instead of pricing G = 1, and everything that
    depends on it is missing too, totals included (no partial sums)."""
    assert toy.algorithms["dpo"].typical_g is None
    monkeypatch.setattr(offline, "overrides", lambda algo: {})
    e = estimate(toy, {k: v for k, v in toy_query(a="dpo", steps="91").items() if k != "G"})
    assert e["run.G"] is None
    for key in ("tokens.episodes", "tokens.train", "tinker.train", "tinker.total",
                "self.train.usd", "self.total", "breakeven.gpu_price", "wall_clock_hours"):
        assert e[key] is None, key
    assert e["tinker.storage"] == pytest.approx(0.05)  # needs no G: still priced
    assert e["vram.total"] is not None  # memory does not depend on G
    # once the reader gives G, every number is there
    assert estimate(toy, toy_query(a="dpo", G="2", steps="91"))["tinker.total"] is not None


def test_default_training_mfu_from_deepseek_v3(catalog: Catalog) -> None:
    # 6 × active parameters × tokens FLOP over GPU-hours × 3,600 s × the H800's peak (its
    # entry's: the H100 die) in FLOP/s
    peak = catalog.hardware[ids.H800_PEAK_HARDWARE].bf16_dense_tflops.value * 1e12
    mfu = assumptions.training_mfu(catalog)
    assert mfu == pytest.approx(6 * ids.DEEPSEEK_V3_ACTIVE_PARAMS * ids.DEEPSEEK_V3_TOKENS
                                / (ids.DEEPSEEK_V3_GPU_HOURS * 3600 * peak))
    assert 0 < mfu < 1
    assert helpers_figures.registry(catalog)["assumption:mfu_train"].source == "deepseek_v3"


def test_decode_utilisation_shown_is_the_time_models(toy: Catalog) -> None:
    """No decode roofline beside the time model: the decode utilisation shown is the one the
    time model's decode seconds imply (its FLOPs over its GPU-hours at peak), and a reader's
    decode utilisation is what the time model then runs at."""
    graph = graph_for(toy)
    for gone in ("mfu.decode", "mfu.train", "assumption.mfu_decode"):
        with pytest.raises(KeyError):
            graph.quantity(gone)
    assert graph.quantity("self.decode.mfu").shown
    # a synchronous run on one GPU: decode's GPU-hours are its seconds a step × steps
    e = estimate(toy, {"m": TOY_MODEL, "hw": TOY_GPU, "gpus": "1"})
    peak = TOY_ENTRIES["hardware"]["bf16_dense_tflops"]["value"] * 1e12
    # the evaluation/restart overhead is a line of its own: decode's hours are its seconds
    implied = e["time.decode_flops"] / (e["time.decode_s"] * peak)
    assert e["self.decode.mfu"] == pytest.approx(implied)
    given = estimate(toy, {"m": TOY_MODEL, "hw": TOY_GPU, "gpus": "1", "md": "5"})
    assert given["self.decode.mfu"] == pytest.approx(0.05)
    assert not any(k.startswith("assumption:mfu_decode") for k in helpers_figures.registry(toy))



def fitted(catalog: Catalog) -> str:
    """An algorithm with a ScaleRL fit, whichever the catalog has (none is assumed)."""
    return next(a.id for a in catalog.algorithms.values() if a.scalerl is not None)


def with_fit_status(catalog: Catalog, algo_id: str, status: str) -> Catalog:
    """A copy of ``catalog`` whose ``algo_id`` fit's figures have ``status``."""
    import copy

    from tinkernomics.catalog.entries import KINDS_BY_NAME, Entry
    from tinkernomics.catalog.yamlread import YamlDoc

    algo = catalog.algorithms[algo_id]
    fit = algo.scalerl
    assert fit is not None
    extra = ({"asserted_by": "contributor", "reported_instead": "test"}
             if status == "unverified" else {})
    figs = {name: getattr(fit, name).model_copy(update={"status": status, **extra})
            for name in ("A", "B", "C_mid")}
    changed = algo.model_copy(update={"scalerl": fit.model_copy(update=figs)})
    out = Catalog(root=catalog.root, entries=copy.copy(catalog.entries))
    out.entries["algorithm"] = {**out.entries["algorithm"], algo_id: Entry(
        KINDS_BY_NAME["algorithm"], algo_id, changed, YamlDoc(path=f"test/{algo_id}"))}
    return out


def test_convergence_matches_derive(catalog: Catalog) -> None:
    from tinkernomics.derived import derive

    algo_id = fitted(catalog)
    result = estimate(catalog, {"a": algo_id, "tf": "50"})
    # at half the gain, C = C_mid
    fit = catalog.algorithms[algo_id].scalerl
    assert fit is not None
    c_mid = fit.C_mid.value
    assert result["scalerl.gb200_hours"] == pytest.approx(c_mid)
    factor = derive.conversion_factor(catalog).value
    assert result["scalerl.h100_hours"] == pytest.approx(c_mid * factor)
    assert result["scalerl.chosen_hours"] == pytest.approx(c_mid * factor)  # chosen GPU: H100
    assert result["scalerl.usd"] == pytest.approx(c_mid * factor * result["gpu_price"])
    reward = derive.scalerl_reward(derive.sigmoid_params(fit), c_mid)
    assert result["scalerl.reward"] == pytest.approx(reward)


def test_no_convergence_without_fit(catalog: Catalog) -> None:
    unfitted = next(a.id for a in catalog.algorithms.values() if a.scalerl is None)
    result = estimate(catalog, {"a": unfitted})
    assert all(v is None for k, v in result.numbers.items() if k.startswith("scalerl."))


def test_defaults_come_from_the_catalog(catalog: Catalog) -> None:
    e = estimate(catalog, {"a": "ppo"})
    ppo = catalog.algorithms["ppo"]
    assert e["run.G"] == ppo.typical_g.values[len(ppo.typical_g.values) // 2]
    assert e["run.K"] == ppo.typical_k.values[len(ppo.typical_k.values) // 2]
    latest = max(catalog.price_lists.values(), key=lambda p: p.effective).id
    assert e.choice.price_list == latest
    default = default_rental(catalog.hardware["h100"])  # the stated rule: the median listed
    assert default is not None and e["gpu_price"] == default.price.value


def used(catalog: Catalog, query: dict[str, str]) -> list[figures.InputFigure]:
    return helpers_figures.input_figures(catalog, estimate(catalog, query))


def test_unverified_inputs_are_listed(catalog: Catalog) -> None:
    found = used(catalog, {})
    default = inputs.choose(catalog, {})  # the default run's model and GPU
    flagged = {f.key for f in found if f.unverified}
    # by default LoRA is priced by the sourced formula (derived), without rank or hidden size
    keys = {f.key for f in found}
    assert "formula:flops_lora_training_sourced" in keys - flagged
    assert "formula:flops_lora_training" not in keys
    assert f"model:{default.model}:d_model" not in keys
    # the time model's constants: stated or fitted here, never by a source of their own
    assert "assumption:time:decode_floor" in flagged
    hardware = catalog.hardware[default.hardware].bf16_dense_tflops
    assert (f"hardware:{default.hardware}:tflops" in flagged) == (hardware.status == "unverified")
    assert f"hardware:{default.hardware}:tflops" in keys


@pytest.mark.parametrize("status", ["unverified", "reported"])
def test_an_unverified_fit_is_listed(catalog: Catalog, status: str) -> None:
    algo_id = fitted(catalog)
    found = used(with_fit_status(catalog, algo_id, status), {"a": algo_id})
    flagged = {f.key for f in found if f.unverified}
    assert f"algorithm:{algo_id}:C_mid" in {f.key for f in found}
    assert (f"algorithm:{algo_id}:C_mid" in flagged) == (status == "unverified")


def test_site_accounting_is_flagged_unverified(catalog: Catalog) -> None:
    found = used(catalog, {"lf": "site"})
    flagged = {f.key for f in found if f.unverified}
    # the original site's LoRA expression is unverified, and it reads the model's hidden size
    assert "formula:flops_lora_training" in flagged
    assert f"model:{inputs.choose(catalog, {}).model}:d_model" in {f.key for f in found}
    assert "formula:flops_lora_training_sourced" not in {f.key for f in found}


def test_overridden_assumptions_are_not_listed(catalog: Catalog) -> None:
    keys = [f.key for f in used(catalog, {"mt": "40", "md": "5", "gp": "3"})]
    # the reader's training utilisation replaces the time model's; DeepSeek-V3's figure is
    # still the prefill default, so it stays listed until the prefill utilisation is given
    assert "assumption:time:train_mfu_max" not in keys
    assert "assumption:time:bandwidth_efficiency" not in keys
    assert "hardware:h100:price" not in keys
    assert {"assumption:mfu_prefill", "assumption:mfu_train"} <= set(keys)
    keys = [f.key for f in used(catalog, {"mp": "40"})]
    assert "assumption:mfu_train" not in keys and "assumption:mfu_prefill" not in keys
    assert "assumption:time:train_mfu_max" in keys


def test_typical_g_listed_only_when_used(catalog: Catalog) -> None:
    assert "algorithm:grpo:g" in [f.key for f in used(catalog, {"a": "grpo"})]
    # a link that names no algorithm starts from the default run, which sets G itself
    assert "algorithm:grpo:g" not in [f.key for f in used(catalog, {})]
    assert "algorithm:grpo:g" not in [f.key for f in used(catalog, {"G": "3"})]
    assert "algorithm:dpo:g" not in [f.key for f in used(catalog, {"a": "dpo"})]


@pytest.mark.parametrize(("query", "name", "expected"), [
    ({"steps": "abc"}, "run.steps", 100.0),  # invalid -> default
    ({"steps": "-5"}, "run.steps", 100.0),  # signs are not accepted
    ({"steps": "99999999999"}, "run.steps", 1e7),  # clamped to the highest allowed
    ({"G": "0"}, "run.G", 1.0),  # clamped to the lowest allowed
    ({"T": "3"}, "run.T", 3.0),
    ({"in": "1.5"}, "run.C0", 512.0),  # token counts are whole numbers
])
def test_query_parsing(catalog: Catalog, query: dict[str, str], name: str,
                       expected: float) -> None:
    assert inputs.choose(catalog, query).numbers[name] == expected


@pytest.mark.parametrize(("lf", "lora_flops"), [
    (None, "sourced"), ("sourced", "sourced"), ("site", "site"), ("SITE", "sourced"),
    ("", "sourced"), ("bogus", "sourced"),
])
def test_query_lora_accounting(catalog: Catalog, lf: str | None, lora_flops: str) -> None:
    query = {} if lf is None else {"lf": lf}
    assert inputs.choose(catalog, query).lora_flops == lora_flops


def test_query_unknown_ids_fall_back(catalog: Catalog) -> None:
    c = inputs.choose(catalog, {"m": "nope", "a": "nope", "hw": "nope"})
    default = inputs.choose(catalog, {})
    assert (c.model, c.algorithm, c.hardware) == (default.model, default.algorithm,
                                                  default.hardware)
    assert c.model in catalog.models and c.hardware in catalog.hardware


def test_model_without_price_row(toy: Catalog) -> None:
    # the toy MoE has no row in the toy list
    result = run(toy, m=TOY_MOE)
    assert result["tinker.total"] is None
    assert cost_lines(toy, result, "tinker") == {}
    assert result["breakeven.gpu_price"] is None


def test_every_quantity_names_its_sources(catalog: Catalog) -> None:
    """Provenance: the Tinker bill rests on the price row, the self-hosted bill on the GPU, the
    FLOP formulas and the utilisation assumptions; every source named is in the registry."""
    algo_id = fitted(catalog)  # so the convergence quantities name the fit's figures
    e = estimate(catalog, {"a": algo_id})
    graph, names = graph_for(catalog), e.resolved.names
    registry = helpers_figures.registry(catalog)
    model, plist = names["model"], names["price_list"]
    tinker = helpers_figures.provenance(graph, "tinker.total", names)
    assert f"prices:{plist}:{model}" in tinker and f"prices:{plist}:storage" in tinker
    assert not any(k.startswith("hardware:") for k in tinker)
    own = helpers_figures.provenance(graph, "self.total", names)
    assert {"hardware:h100:tflops", "hardware:h100:price", "formula:flops_rollout",
            "formula:flops_lora_training_sourced", "assumption:mfu_train",
            f"model:{model}:total_params"} <= own
    assert helpers_figures.provenance(graph, "vram.total", names) >= {"formula:vram_grpo_lora"}
    assert helpers_figures.provenance(graph, "scalerl.gb200_hours", names) >= {
        f"algorithm:{algo_id}:C_mid", f"algorithm:{algo_id}:B"}
    for q in graph.quantities:  # the model's own figures (active_params of a dense model,
        sources = helpers_figures.provenance(graph, q.key, names)  # its d_model) may be absent
        assert all(k in registry or k.startswith(f"model:{model}:") for k in sources), q.key


def test_an_estimate_is_evaluated_once_per_catalog_and_query(toy: Catalog) -> None:
    """A build asks for the same run from several pages: it is evaluated once per catalog
    object, and a changed catalog (a new object) gets its own estimate."""
    query = {"a": "grpo", "steps": "7"}
    first = estimate(toy, query)
    assert estimate(toy, dict(reversed(list(query.items())))) is first
    assert estimate(toy, {**query, "steps": "8"}) is not first
    other = with_toys(toy)
    assert estimate(other, query) is not first
    assert estimate(other, query).values == first.values
