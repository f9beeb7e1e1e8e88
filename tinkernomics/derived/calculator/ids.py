"""Catalog ids and constants the calculator's model names (pipeline step 5)."""

from __future__ import annotations

from tinkernomics.catalog import models as m

FLOPS_ROLLOUT = "flops_rollout"
FLOPS_REFERENCE = "flops_ref_logprobs"
FLOPS_FULL = "flops_training"
FLOPS_LORA = "flops_lora_training"
"""The original site's LoRA expression (unverified): 2·P + 6·P·R/D."""
FLOPS_LORA_SOURCED = "flops_lora_training_sourced"
"""LoRA as transformer_math and lora_without_regret count it: about 4·P."""
VRAM_LORA = "vram_grpo_lora"
VRAM_FULL = "vram_ppo_full"
MEM_KV = "mem_kv_cache"
MEM_ZERO = "mem_weights_optimiser"
MEM_ACTIVATIONS = "mem_activations"
"""The run model's memory formulas (``memory.py``)."""
FORMULA_IDS = (FLOPS_ROLLOUT, FLOPS_REFERENCE, FLOPS_FULL, FLOPS_LORA_SOURCED, FLOPS_LORA,
               VRAM_LORA, VRAM_FULL, MEM_KV, MEM_ZERO, MEM_ACTIVATIONS)
VAR_RANK = "R"
VAR_DMODEL = "D"
VAR_LORA_STATE = "lora_overhead"
"""Adapter weights and optimiser state; also the size of one Tinker checkpoint here."""

LORA_FLOP_FORMULAS: dict[str, str] = {
    # The "LoRA FLOP accounting" setting (query key ``lf``): choice -> catalog formula id.
    "sourced": FLOPS_LORA_SOURCED,
    "site": FLOPS_LORA,
}
LORA_FLOP_LABELS: dict[str, str] = {
    "sourced": "Sourced (Transformer Math, LoRA Without Regret)",
    "site": "Original site's formula",
}

ROLE_VARIABLES: dict[str, dict[m.ModelRole, str]] = {
    # Which parameter variable of each VRAM formula holds a model of each role. Frozen models
    # (reference, teacher, reward model) go where the formula keeps frozen bf16 weights; under
    # LoRA a critic is another frozen base with its own adapter, so it joins P_total.
    VRAM_LORA: {
        m.ModelRole.policy: "P_total", m.ModelRole.critic: "P_total",
        m.ModelRole.reference: "P_ref", m.ModelRole.teacher: "P_ref",
        m.ModelRole.reward_model: "P_ref",
    },
    VRAM_FULL: {
        m.ModelRole.policy: "P_total", m.ModelRole.critic: "P_critic",
        m.ModelRole.reference: "P_ref", m.ModelRole.teacher: "P_ref",
        m.ModelRole.reward_model: "P_RM",
    },
}

BYTES_PER_GB = 1e9
"""Decimal gigabytes, as GPU memory is quoted (glennklockwood_h100: 80 GB)."""

DEEPSEEK_V3_ACTIVE_PARAMS = 37e9
"""deepseek_v3: 37B active parameters of 671B."""
DEEPSEEK_V3_TOKENS = 14.8e12
"""deepseek_v3: 14.8T training tokens."""
DEEPSEEK_V3_GPU_HOURS = 2.788e6
"""deepseek_v3: 2.788M H800 GPU-hours for the whole run."""
H800_PEAK_HARDWARE = "h100"
"""The H800 is the H100 die with cut interconnect: same dense BF16 peak (facts §8 uses 989)."""
DECODE_SEQUENCES_PER_GPU = 32.0
"""KV cache the memory sizing reserves per decoding GPU, in sequences (not the decode batch:
the time model's sampler decodes as many as its free memory holds); an assumption (no source)."""

COOKBOOK_PIN = "tinker_cookbook"
"""Id of the tinker-cookbook pin (``catalog/cookbook/``): its model names and recipes
(``derived/recipe.py``; the estimate's ``model.cookbook`` flag)."""

SCALERL_RUN = "scalerl-8b-first-epoch"
"""The published run (``catalog/runs/``) of ScaleRL's 8B recipe at the paper's default batch
(its first epoch, appendix A.6: the batch its sigmoid fits were made at): the Back-test page and
the convergence block set its back-test ratio beside the measured GB200-hours (one basis,
stated)."""
