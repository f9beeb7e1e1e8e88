"""The run model: memory from the run's shape, per role and phase, and what an algorithm's
semantics decide (issue 28). Fixture models carry the shapes of real ones, written out below with
their sources; every number is worked by hand in the test. No real-catalog price is asserted.

Shapes (config.json, as copied in citsjtu2020/LLM-Prof sglang/Model_Config.md, and Meta's
Llama-2-7b-hf config.json):
- fx-gqa, Llama-3.1-8B: 32 layers, hidden 4096, 32 heads, 8 KV heads, head 128, MLP 14336,
  vocabulary 128256 (grouped-query attention).
- fx-mha, Llama-2-7B: 32 layers, hidden 4096, 32 heads, 32 KV heads, head 128, MLP 11008,
  vocabulary 32000 (full multi-head attention).
- fx-moe, Qwen3-30B-A3B: 48 layers, hidden 2048, 32 heads, 4 KV heads, head 128, 128 experts of
  MLP 768 (8 active), vocabulary 151936.
- fx-mla, DeepSeek-V3.1 (deepseek-ai/DeepSeek-V3 inference/configs/config_v3.1.json): 61 layers,
  dim 7168, 128 heads, multi-head latent attention caching kv_lora_rank 512 + qk_rope_head_dim 64
  = 576 values a layer and token (inference/model.py lines 443-444), vocabulary 129280.
- fx-swa, gpt-oss-120b (openai/gpt-oss gpt_oss/torch/model.py): 36 layers, every other one
  windowed to 128 tokens (line 188), hidden 2880, 64 heads, 8 KV heads of 64, vocabulary 201088.
- fx-hybrid, Qwen3.5-35B-A3B (THUDM/slime scripts/models/qwen3.5-35B-A3B.sh; Megatron-Bridge
  qwen35_vl_provider.py linear_attention_freq 4): 40 layers, 10 of full attention with 2 KV heads
  of 256, 30 Gated DeltaNet layers; hidden 2048, vocabulary 248320.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from helpers_calc import TOY_GPU, with_toys

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.models.algorithms import Semantics
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.cli import main
from tinkernomics.derived.calculator.estimate import Estimate, estimate, graph_for
from tinkernomics.site.calculator import layout


def _fig(value: float, unit: str = "count") -> dict[str, Any]:
    return {"value": value, "unit": unit, "status": "reported", "source": "transformer_math"}


def _shape(**values: float) -> dict[str, Any]:
    return {k: {**_fig(v), "locator": "fixture"} for k, v in values.items()}


MODELS = {
    "fx-gqa": (8, None, 4096, _shape(layers=32, attention_heads=32, kv_heads=8, head_dim=128,
                                     mlp_size=14336, vocab_size=128256)),
    "fx-mha": (7, None, 4096, _shape(layers=32, attention_heads=32, kv_heads=32, head_dim=128,
                                     mlp_size=11008, vocab_size=32000)),
    "fx-moe": (30, 3, 2048, _shape(layers=48, attention_heads=32, kv_heads=4, head_dim=128,
                                   expert_mlp_size=768, experts=128, experts_active=8,
                                   vocab_size=151936)),
    "fx-30b-a3b": (30.5, 3.3, 2048, _shape(layers=48, attention_heads=32, kv_heads=4,
                                           head_dim=128, expert_mlp_size=768, experts=128,
                                           experts_active=8, vocab_size=151936)),
    "fx-teacher": (32, None, 5120, _shape(layers=64, attention_heads=64, kv_heads=8,
                                          head_dim=128, mlp_size=25600, vocab_size=151936)),
    "fx-unknown": (8, None, None, {}),
    "fx-mla": (671, 37, 7168, _shape(layers=61, attention_heads=128,
                                     kv_latent_dim=576, mlp_size=18432, expert_mlp_size=2048,
                                     experts=256, experts_active=8, vocab_size=129280)),
    "fx-swa": (117, 5.1, 2880, _shape(layers=36, attention_heads=64,
                                      kv_heads=8, head_dim=64, sliding_window=128,
                                      sliding_layers=18, expert_mlp_size=2880, experts=128,
                                      experts_active=4, vocab_size=201088)),
    "fx-hybrid": (35, 3, 2048, _shape(layers=40, kv_layers=10, fixed_state_layers=30,
                                      attention_heads=16, kv_heads=2,
                                      head_dim=256, expert_mlp_size=512, experts=256,
                                      experts_active=8, vocab_size=248320)),
}


def _model(model_id: str) -> m.LanguageModel:
    total, active, d, shape = MODELS[model_id]
    data: dict[str, Any] = {"id": model_id, "name": model_id, "family": "Fixture",
                            "architecture": "moe" if active else "dense",
                            "total_params": _fig(total, "billion_parameters")}
    if active:
        data["active_params"] = _fig(active, "billion_parameters")
    if d:
        data["d_model"] = _fig(d)
    if shape:
        data["shape"] = shape
    return m.LanguageModel.model_validate_json(json.dumps(data))


def _flag(value: Any) -> dict[str, Any]:
    return {"value": value, "status": "reported", "source": "transformer_math"}


SEMANTICS = {
    # (kl to a reference, reward, rollouts, teacher, over-sampling)
    "fx-grpo": (True, "either", True, None, None),
    "fx-dapo": (False, "verifier", True, None, 3),
    "fx-dpo": (True, "preferences", False, None, None),
    "fx-opd": (False, "teacher", True, "fx-teacher", None),
    "fx-rloo": (True, "either", True, None, None),
}


def _algorithm(base: m.Algorithm, algo_id: str) -> m.Algorithm:
    kl, reward, rollouts, teacher, over = SEMANTICS[algo_id]
    data: dict[str, Any] = {"kl_reference": _flag(kl), "reward": _flag(reward),
                            "rollouts": _flag(rollouts)}
    if teacher:
        data["teacher"] = {"model": teacher, "status": "reported", "source": "transformer_math"}
    if over:
        data["oversampling"] = _fig(over, "multiplier")
    roles = ["policy", "reference"] + (["teacher"] if teacher else [])
    semantics = Semantics.model_validate_json(json.dumps(data))
    return base.model_copy(update={
        "id": algo_id, "name": algo_id, "semantics": semantics,
        "models_in_memory": [m.ModelRole(r) for r in roles], "online": rollouts})


@pytest.fixture(scope="module")
def fx(catalog: Catalog) -> Catalog:
    """The real catalog's formulas and hardware, plus the toy GPU, fixture models, algorithms
    and a price list with a row for each fixture model ($1 / $2 / $3 per 1M tokens)."""
    found = with_toys(catalog)
    found.entries = copy.copy(found.entries)
    add = {"model": {k: _model(k) for k in MODELS},
           "algorithm": {k: _algorithm(catalog.algorithms["grpo"], k) for k in SEMANTICS}}
    plist = next(iter(found.price_lists.values())).model_copy(update={
        "id": "fx-prices", "rows": [m.PriceRow(model=k, prefill=1.0, sample=2.0, train=3.0)
                                    for k in MODELS]})
    add["price_list"] = {"fx-prices": plist}
    for kind, entries in add.items():
        found.entries[kind] = {**found.entries.get(kind, {}), **{
            k: Entry(KINDS_BY_NAME[kind], k, v, YamlDoc(path=f"fixture/{k}"))
            for k, v in entries.items()}}
    return found


def run(fx: Catalog, **q: str) -> Estimate:
    """GRPO-like fixture run: one prompt × G = 4, 512 + 1,536 tokens (2,048 a sequence), LoRA
    rank 32, micro-batch 1, full recomputation, on the 10 GB toy GPU."""
    query = {"a": "fx-grpo", "m": "fx-gqa", "p": "fx-prices", "hw": TOY_GPU, "steps": "10",
             "n": "1", "G": "4", "K": "1", "in": "512", "out": "1536", "r": "32"}
    return estimate(fx, {**query, **q})


def test_gqa_by_hand(fx: Catalog) -> None:
    e = run(fx)
    assert e["mem.kv_per_token"] == 2 * 32 * 8 * 128 * 2 == 131_072
    assert e["mem.decode_sequences"] == 4  # 1 prompt × G = 4, fewer than a decode batch of 32
    assert e["mem.kv_cache"] == 131_072 * 4 * 2048 == 1_073_741_824
    # LoRA on every linear layer: q and o (4096 + 4096), k and v (4096 + 1024), gate, up and
    # down (4096 + 14336): 81,920 per rank and layer; × 32 layers × rank 32
    per_layer = 2 * (4096 + 4096) + 2 * (4096 + 1024) + 3 * (4096 + 14336)
    assert e["mem.lora_params"] == per_layer * 32 * 32 == 83_886_080
    assert e["mem.policy"] == 8e9 * 2
    assert e["mem.reference"] == 0  # the base with the adapter off: no second copy
    assert e["mem.gradients"] == 83_886_080 * 2 and e["mem.optimiser"] == 83_886_080 * 12
    assert e["mem.activations"] == 32 * 2 * 2048 * 1 * 4096  # full recomputation: 2·s·b·h
    assert e["mem.logits"] == 128_256 * 2048 * 4
    rollout = 16e9 + 83_886_080 * 2 + 1_073_741_824
    training = 16e9 + 83_886_080 * (2 + 2 + 12) + 536_870_912 + 1_050_673_152
    assert e["mem.rollout"] == rollout == 17_241_513_984
    assert e["mem.training"] == training == 18_929_721_344
    assert e["mem.peak"] == training and e["mem.min_gpus"] == 2  # 10 GB toy GPUs


def test_mha_activations_by_hand(fx: Catalog) -> None:
    e = run(fx, m="fx-mha", ac="0")
    assert e["mem.kv_per_token"] == 2 * 32 * 32 * 128 * 2 == 524_288  # 0.5 MB a token
    # no recomputation under flash attention: 34·s·b·h per layer; Korthikanti's 5·a·s²·b
    # attention scores (80 here, 2.3x the rest) are never materialised
    assert e["mem.activations"] == 32 * 2048 * 4096 * 34 == 9_126_805_504
    assert run(fx, m="fx-mha", ac="1")["mem.activations"] == 32 * 34 * 2048 * 4096
    assert run(fx, m="fx-mha", ac="2")["mem.activations"] == 32 * 2 * 2048 * 4096


def test_moe_by_hand(fx: Catalog) -> None:
    e = run(fx, m="fx-moe")
    assert e["mem.kv_per_token"] == 2 * 48 * 4 * 128 * 2 == 98_304
    # attention: q, o (2048 + 32·128), k, v (2048 + 4·128); every one of 128 experts' three
    # matrices (2048 + 768)
    per_layer = 2 * (2048 + 4096) + 2 * (2048 + 512) + 3 * 128 * (2048 + 768)
    assert e["mem.lora_params"] == per_layer * 48 * 32 == 1_687_683_072
    assert e["mem.policy"] == 30e9 * 2  # every expert is held, not only the active ones
    full = run(fx, m="fx-moe", ft="full")
    assert full["mem.gradients"] + full["mem.optimiser"] + full["mem.policy"] == 30e9 * 16


def test_memory_rises_with_g_completion_and_micro_batch(fx: Catalog) -> None:
    base = run(fx)
    assert run(fx, G="16")["mem.rollout"] > base["mem.rollout"]
    assert run(fx, G="16")["mem.peak"] >= base["mem.peak"]
    assert run(fx, out="8192")["mem.peak"] > base["mem.peak"]
    assert run(fx, out="8192")["mem.kv_cache"] > base["mem.kv_cache"]
    assert run(fx, mb="4")["mem.training"] > base["mem.training"]
    assert run(fx, mb="4")["mem.peak"] > base["mem.peak"]


def test_grpo_lora_holds_one_copy_of_the_base(fx: Catalog) -> None:
    e = run(fx)
    assert "reference" in e.resolved.roles
    assert e["mem.policy"] + e["mem.frozen"] == 8e9 * 2
    separate = run(fx, rc="1")  # the reader asks for a separate reference copy
    assert separate["mem.reference"] == 8e9 * 2
    assert separate["mem.rollout"] == e["mem.rollout"] + 16e9


def test_full_fine_tuning_8b_needs_128_gb_before_activations(fx: Catalog) -> None:
    e = run(fx, ft="full")
    assert e["mem.policy"] + e["mem.gradients"] + e["mem.optimiser"] >= 128e9
    assert e["mem.policy"] + e["mem.gradients"] + e["mem.optimiser"] == 8e9 * 16
    assert e["mem.reference"] == 8e9 * 2  # under full fine-tuning the reference is a copy
    assert e["mem.training"] > 128e9 + 16e9


def test_dapo_no_reference_and_priced_oversampling(fx: Catalog) -> None:
    grpo, dapo = run(fx), run(fx, a="fx-dapo")
    assert "reference" not in dapo.resolved.roles
    assert dapo["tinker.reference"] is None and dapo["self.reference.usd"] is None
    assert dapo["mem.reference"] is None and grpo["tinker.reference"] is not None
    assert dapo["rollout.oversample"] == 3
    assert dapo["tokens.sample"] == 3 * grpo["tokens.sample"] == 3 * 10 * 4 * 1536
    assert dapo["tinker.sample"] == pytest.approx(3 * grpo["tinker.sample"])
    assert dapo["tokens.train"] == grpo["tokens.train"]  # trains on the groups it keeps
    assert run(fx, a="fx-dapo", ref="1")["tinker.reference"] is not None  # the reader's choice


def test_dpo_has_no_rollout_phase(fx: Catalog) -> None:
    e = run(fx, a="fx-dpo", G="2")
    assert e["mem.rollout"] is None and e["mem.kv_cache"] is None
    assert e["tokens.sample"] == 0 and e["tinker.sample"] == 0
    assert e["mem.peak"] == e["mem.training"]


def test_teacher_is_its_own_model(fx: Catalog) -> None:
    e = run(fx, a="fx-opd")
    assert e.resolved.names["teacher"] == "fx-teacher"  # the algorithm's own teacher
    assert e["mem.teacher"] == 32e9 * 2 and "reference" not in e.resolved.roles
    assert run(fx, a="fx-opd", tm="fx-mha")["mem.teacher"] == 7e9 * 2


def test_either_reward_holds_no_reward_model(fx: Catalog) -> None:
    assert "reward_model" not in run(fx, a="fx-rloo").resolved.roles


def test_unknown_architecture_stays_unknown(fx: Catalog) -> None:
    e = run(fx, m="fx-unknown")
    for key in ("mem.kv_per_token", "mem.kv_cache", "mem.activations", "mem.peak",
                "mem.min_gpus", "wall_clock_hours"):
        assert e[key] is None, key
    assert e["mem.policy"] == 16e9  # what is known is still shown


def test_estimate_json_kv_cache_llama_8b(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--model", "llama-3.1-8b", "--algorithm", "grpo", "--G", "16",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["quantities"]
    assert out["mem.kv_per_token"] == {"value": 131072.0, "unit": "bytes",
                                       "label": "KV cache per token", "shown": True}
    for key in ("mem.policy", "mem.kv_cache", "mem.activations", "mem.logits", "mem.rollout",
                "mem.training", "mem.peak"):
        assert out[key]["unit"] == "bytes" and out[key]["value"] > 0, key
    assert out["tinker.total"]["unit"] == "usd"


def test_estimate_options_are_the_links_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", "--model", "llama-3.1-8b", "--G", "8", "--prompts", "2", "--steps", "3",
            "--prompt-tokens", "100", "--completion-tokens", "200", "--full", "--json"]
    assert main(args) == 0
    q = json.loads(capsys.readouterr().out)["quantities"]
    assert q["tokens.episodes"]["value"] == 3 * 2 * 8
    assert q["mem.optimiser"]["value"] == 8e9 * 12  # full fine-tuning


def test_mla_caches_one_latent_a_layer(fx: Catalog) -> None:
    """DeepSeek-V3.1: 61 layers × 576 values × 2 bytes = 70,272 bytes a token, not the plain
    2 × layers × KV heads × head size × 2 (it has no KV-head count to read)."""
    e = run(fx, m="fx-mla", ft="full")
    assert e["mem.kv_per_token"] == 61 * 576 * 2 == 70_272
    assert e["mem.kv_window_per_sequence"] == 0 and e["mem.uncounted_layers"] == 0
    assert e["mem.kv_cache"] == 70_272 * 4 * 2048
    # activations: full recomputation, 2·s·b·h per layer
    assert e["mem.activations"] == 61 * 2 * 2048 * 1 * 7168
    # LoRA: q and o at the hidden size (no head figures), k and v into the 576-wide latent,
    # and every expert's three matrices: a peak, where the old model had none
    lora = run(fx, m="fx-mla")
    per_layer = 2 * (7168 + 7168) + 2 * (7168 + 576) + 3 * 256 * (7168 + 2048)
    assert lora["mem.lora_params"] == per_layer * 61 * 32
    assert lora["mem.peak"] is not None and lora["mem.peak"] > 671e9 * 2


def test_sliding_window_layers_hold_their_window(fx: Catalog) -> None:
    """gpt-oss-120b: 18 full layers cache every token, 18 windowed layers at most 128 of each
    sequence: 2 × 18 × 8 × 64 × 2 = 36,864 bytes a token, + 36,864 × 128 bytes a sequence."""
    e = run(fx, m="fx-swa")
    assert e["mem.kv_per_token"] == 2 * 18 * 8 * 64 * 2 == 36_864
    assert e["mem.kv_window_per_sequence"] == 2 * 18 * 8 * 64 * 2 * 128 == 4_718_592
    assert e["mem.kv_cache"] == 36_864 * 4 * 2048 + 4_718_592 * 4
    # the plain formula (every layer caching every token) would say twice the per-token bytes
    assert e["mem.kv_cache"] < 2 * 36 * 8 * 64 * 2 * 4 * 2048
    # a sequence shorter than the window: the windowed layers hold all of it
    short = run(fx, m="fx-swa", **{"in": "50", "out": "50"})
    assert short["mem.kv_window_per_sequence"] == 2 * 18 * 8 * 64 * 2 * 100


def test_hybrid_counts_its_attention_layers_and_says_approximate(fx: Catalog) -> None:
    """Qwen3.5-35B-A3B: only the 10 full-attention layers keep a per-token cache:
    2 × 10 × 2 × 256 × 2 = 20,480 bytes a token; the 30 DeltaNet layers' state is not counted,
    and the estimate says so (mem.uncounted_layers, the page's approximate note)."""
    e = run(fx, m="fx-hybrid")
    assert e["mem.kv_per_token"] == 2 * 10 * 2 * 256 * 2 == 20_480
    assert e["mem.uncounted_layers"] == 30
    assert e["mem.kv_cache"] == 20_480 * 4 * 2048
    assert run(fx)["mem.uncounted_layers"] == 0  # a plain transformer: nothing left out
    memory = next(b for b in layout.blocks(fx, graph_for(fx)) if b.get("id") == "calc-memory")
    assert any("Approximate" in case[1] for after in memory["after"] for case in after)


def test_formulas_page_explains_the_per_phase_model(catalog: Catalog) -> None:
    """The VRAM section says how memory is computed now, and that the first two formulas are
    the original site's, kept as it gave them."""
    from pathlib import Path

    from tinkernomics.site.build import SiteContext
    from tinkernomics.site.pages import feature as macros

    page = macros.formulas_page(SiteContext(root=Path(catalog.root).parent, catalog=catalog))
    vram = page[page.index("{#vram}"):]
    assert "**rollout\nphase**" in vram and "**training phase**" in vram and "**peak**" in vram
    assert "the original\nsite gave" in vram and "approximate" in vram
    assert page.index("{#vram}") < page.index("phase by phase") < page.index("GRPO with LoRA")


def test_semantics_facts_take_a_locator(fx: Catalog) -> None:
    """A reported semantics fact says where its source states it; one without is listed."""
    from tinkernomics.catalog.locators import missing_locators

    def listed(catalog: Catalog, algo_id: str) -> set[str]:
        return {x.field for x in missing_locators(catalog) if x.entry.key == algo_id}

    assert "semantics.kl_reference.locator" in listed(fx, "fx-grpo")  # fixture: none given
    algo = fx.algorithms["fx-grpo"]
    assert algo.semantics is not None
    located = algo.semantics.kl_reference.model_copy(update={"locator": "eq. 3"})
    changed = algo.model_copy(update={"semantics": algo.semantics.model_copy(
        update={"kl_reference": located})})
    other = Catalog(root=fx.root, entries=copy.copy(fx.entries))
    other.entries["algorithm"] = {**other.entries["algorithm"], "fx-grpo": Entry(
        KINDS_BY_NAME["algorithm"], "fx-grpo", changed, YamlDoc(path="fixture/fx-grpo"))}
    assert "semantics.kl_reference.locator" not in listed(other, "fx-grpo")
    assert "semantics.rollouts.locator" in listed(other, "fx-grpo")


def test_active_parameters_are_the_cards_figure_not_the_name(fx: Catalog) -> None:
    """A model named '…-A3B' whose card gives 3.3B active (Qwen3-30B-A3B's case) is priced at
    3.3B active and 30.5B held: the figures, never digits read from the name."""
    e = run(fx, m="fx-30b-a3b")
    assert e["p.active"] == pytest.approx(3.3e9) and e["p.total"] == pytest.approx(30.5e9)
    assert e["mem.policy"] == pytest.approx(30.5e9 * 2)
