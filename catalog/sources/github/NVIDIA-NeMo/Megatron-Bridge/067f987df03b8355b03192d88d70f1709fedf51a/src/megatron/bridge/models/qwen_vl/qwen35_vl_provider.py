# Copyright (c) 2026, NVIDIA CORPORATION.  All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Qwen3.5 and Qwen3.6 VL model-provider configurations for Megatron-Core.

Qwen3.5 and Qwen3.6 share a vision-language architecture that combines:
- A hybrid Gated DeltaNet (GDN) + Gated Attention language model (like Qwen3-Next)
- A vision encoder (similar to Qwen3-VL)
- Dense MLP or Mixture of Experts (MoE) with shared experts

This module provides three model providers:

- ``Qwen35VLModelProvider``: Dense variant (e.g., Qwen3.5-27B)
  Reference: https://huggingface.co/Qwen/Qwen3.5-27B

- ``Qwen35TokenClassificationModelProvider``: Dense token-classification variant

- ``Qwen35VLMoEModelProvider``: Qwen3.5/Qwen3.6 MoE variants
  Reference: https://huggingface.co/Qwen/Qwen3.5-397B-A17B
  Reference: https://huggingface.co/Qwen/Qwen3.6-35B-A3B
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, List, Optional, cast

import transformers
from megatron.core.models.gpt import GPTModel as MCoreGPTModel
from megatron.core.models.gpt.experimental_attention_variant_module_specs import (
    get_transformer_block_with_experimental_attention_variant_spec,
)
from megatron.core.transformer.spec_utils import ModuleSpec
from megatron.core.transformer.transformer_block import TransformerBlockSubmodules
from packaging.version import Version as PkgVersion


_TRANSFORMERS_HAS_QWEN3_5_MOE = PkgVersion(transformers.__version__) >= PkgVersion("5.2.0")

if _TRANSFORMERS_HAS_QWEN3_5_MOE:
    from transformers.models.qwen3_5_moe.configuration_qwen3_5_moe import Qwen3_5MoeVisionConfig
else:
    Qwen3_5MoeVisionConfig = None  # type: ignore[assignment,misc]

try:
    from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5VisionConfig

    _TRANSFORMERS_HAS_QWEN3_5 = True
except ImportError:
    _TRANSFORMERS_HAS_QWEN3_5 = False
    Qwen3_5VisionConfig = None  # type: ignore[assignment,misc]

try:
    from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5ForTokenClassification  # noqa: F401

    _TRANSFORMERS_HAS_QWEN3_5_TOKEN_CLASSIFICATION = True
except ImportError:
    _TRANSFORMERS_HAS_QWEN3_5_TOKEN_CLASSIFICATION = False

from megatron.core.extensions.transformer_engine import (
    TEColumnParallelLinear,
    TENorm,
    TERowParallelLinear,
)
from megatron.core.models.vision.vit_layer_specs import get_vit_layer_with_transformer_engine_spec

from megatron.bridge.models.common.heads import LinearForLastLayer
from megatron.bridge.models.gpt_provider import GPTModelProvider
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.attention import Qwen3VLSelfAttention
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.model import Qwen3VLModel
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.text_model import Qwen3VLGPTModel
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.token_classification import Qwen3VLForTokenClassification
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.transformer_config import get_vision_model_config
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.utils import PatchMergerSubmodules
from megatron.bridge.models.qwen_vl.modelling_qwen3_vl.vision_model import Qwen3VLVisionModel


_QWEN_VISUAL_ENCODER_KEY = "qwen_visual"
_IMAGES_MODALITY_KEY = "images"


def _check_qwen3_5_available() -> None:
    """Raise a clear error if transformers doesn't have qwen3_5 (dense) support."""
    if not _TRANSFORMERS_HAS_QWEN3_5:
        raise ImportError(
            f"Qwen3.5 VL (dense) requires transformers with qwen3_5 model support, "
            f"but found {transformers.__version__}. "
            "Please upgrade: pip install --upgrade transformers"
        )


def _check_qwen3_5_moe_available() -> None:
    """Raise a clear error if transformers doesn't have qwen3_5_moe support."""
    if not _TRANSFORMERS_HAS_QWEN3_5_MOE:
        raise ImportError(
            f"Qwen3.5/3.6 VL (MoE) requires transformers with qwen3_5_moe support, "
            f"but found {transformers.__version__}. "
            "Please upgrade: pip install --upgrade transformers"
        )


@dataclass
class Qwen35VLModelProvider(GPTModelProvider):
    """
    Model provider for Qwen3.5 VL Dense (Vision-Language) Models.

    Qwen3.5 dense combines a hybrid GDN (Gated DeltaNet) + Gated Attention language
    model architecture with a vision encoder (similar to Qwen3-VL) and a standard
    dense MLP (no Mixture of Experts).

    Key Architecture Details (27B):
    - 64 layers: 16 groups x (3 GDN + 1 Attention)
    - Hidden dim: 5120, Intermediate dim: 17408
    - GDN: 16 QK heads, 48 V heads, head_dim=128
    - Gated Attention: 24 Q heads, 4 KV heads, head_dim=256
    - Vision: depth=27, hidden=1152, no deepstack
    - mRoPE with sections [11, 11, 10], rope_theta=10,000,000
    - partial_rotary_factor=0.25
    """

    modality_keys: ClassVar[dict[str, str]] = {_IMAGES_MODALITY_KEY: _QWEN_VISUAL_ENCODER_KEY}
    MODEL_CLASS: ClassVar[type[Qwen3VLModel] | None] = None

    # =========================================================================
    # Hybrid Architecture (Qwen3-Next style)
    # =========================================================================
    transformer_layer_spec: ModuleSpec | Callable[["GPTModelProvider"], ModuleSpec] = (
        get_transformer_block_with_experimental_attention_variant_spec
    )
    layernorm_zero_centered_gamma: bool = True
    attention_output_gate: bool = True
    experimental_attention_variant: str = "gated_delta_net"
    linear_attention_freq: int | list[int] = 4

    # --- Gated DeltaNet (GDN) parameters ---
    linear_conv_kernel_dim: int = 4
    linear_key_head_dim: int = 128
    linear_value_head_dim: int = 128
    linear_num_key_heads: int = 16
    linear_num_value_heads: int = 48

    # =========================================================================
    # Common LLM parameters
    # =========================================================================
    normalization: str = "RMSNorm"
    gated_linear_unit: bool = True
    add_bias_linear: bool = False
    add_qkv_bias: bool = False
    qk_layernorm: bool = True
    kv_channels: int | None = 256
    num_query_groups: int = 4
    hidden_dropout: float = 0.0
    attention_dropout: float = 0.0
    attention_softmax_in_fp32: bool = True
    rotary_base: float = 10000000.0
    rotary_percent: float = 0.25
    seq_length: int = 262144

    # =========================================================================
    # VL-specific parameters
    # =========================================================================
    vision_config: Any = field(default=None)
    position_embedding_type: str = "mrope"
    mrope_section: List[int] = field(default_factory=lambda: [11, 11, 10])
    apply_rotary_pos_emb_in_fp32: bool = False

    image_token_id: int = 248056
    video_token_id: int = 248057
    vision_start_token_id: int = 248053
    vision_end_token_id: int = 248054
    bos_token_id: int = 248045
    eos_token_id: int = 248044

    spatial_merge_size: int = 2
    temporal_patch_size: int = 2
    patch_size: int = 16
    language_max_sequence_length: int = 2048
    scatter_embedding_sequence_parallel: bool = False

    # =========================================================================
    # Freeze options for fine-tuning
    # =========================================================================
    freeze_language_model: bool = False
    freeze_vision_model: bool = False
    freeze_vision_projection: bool = False

    # =========================================================================
    # Performance
    # =========================================================================
    bias_activation_fusion: bool = True
    use_hf_vision_model: bool = False
    vision_dp_when_cp: bool = False
    hetereogenous_dist_checkpoint: bool = True

    mtp_num_layers: Optional[int] = None

    @property
    def special_token_ids(self) -> dict[str, int]:
        """Return modality token ids."""
        return {_IMAGES_MODALITY_KEY: self.image_token_id}

    def __post_init__(self):
        _check_qwen3_5_available()
        if self.vision_config is None:
            self.vision_config = Qwen3_5VisionConfig()
        super().__post_init__()

    def finalize(self) -> None:
        if (self.context_parallel_size or 1) > 1:
            self.calculate_per_token_loss = True
        super().finalize()

    def build_language_spec(
        self, vp_stage: Optional[int] = None, pp_rank: Optional[int] = None
    ) -> TransformerBlockSubmodules | ModuleSpec:
        """Build the language transformer-block spec."""
        return _qwen35_build_language_block_spec(self, vp_stage, pp_rank)

    def build_mtp_spec(self, vp_stage: Optional[int] = None) -> Optional[TransformerBlockSubmodules | ModuleSpec]:
        """Build the MTP block spec."""
        return _qwen35_build_mtp_block_spec(self, vp_stage)

    def build_vision_encoder_spec(self) -> ModuleSpec:
        """Build the vision encoder spec."""
        return _qwen35_build_vision_encoder_spec(self)

    def build_language_model_spec(self, pp_rank: Optional[int] = 0) -> ModuleSpec:
        """Build the language model spec."""
        return _qwen35_build_language_model_spec(self, pp_rank=pp_rank)

    def provide(self, pre_process=None, post_process=None, vp_stage=None) -> Qwen3VLModel:
        """Provide a Qwen3.5 VL dense model instance with vision and language components."""
        language_transformer_config = self
        hf_vision_config = self.vision_config
        hf_vision_config.torch_dtype = self.params_dtype

        block_spec = self.build_language_spec(vp_stage=vp_stage)
        mtp_spec = self.build_mtp_spec(vp_stage=vp_stage)

        model_class = self.MODEL_CLASS or Qwen3VLModel
        model = model_class(
            language_transformer_config=language_transformer_config,
            language_transformer_layer_spec=block_spec,
            vision_transformer_config=hf_vision_config,
            pre_process=pre_process,
            post_process=post_process,
            pg_collection=self._pg_collection,
            mtp_block_spec=mtp_spec,
            vp_stage=vp_stage,
        )

        if self.freeze_language_model or self.freeze_vision_model or self.freeze_vision_projection:
            model.freeze(
                freeze_language_model=self.freeze_language_model,
                freeze_vision_model=self.freeze_vision_model,
                freeze_vision_projection=self.freeze_vision_projection,
            )

        return model

    def provide_language_model(self, pre_process=None, post_process=None, vp_stage=None) -> MCoreGPTModel:
        """Provide just the language model component without vision."""
        return GPTModelProvider.provide(self, pre_process=pre_process, post_process=post_process, vp_stage=vp_stage)


@dataclass
class Qwen35TokenClassificationModelProvider(Qwen35VLModelProvider):
    """Serializable provider for Qwen3.5 VL token-classification models."""

    MODEL_CLASS: ClassVar[type[Qwen3VLModel]] = Qwen3VLForTokenClassification

    num_labels: int | None = None
    classifier_dropout: float = 0.1
    mtp_num_layers: int | None = 0
    mtp_enabled: bool = False
    share_embeddings_and_output_weights: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()

    def provide(
        self,
        pre_process: bool | None = None,
        post_process: bool | None = None,
        vp_stage: int | None = None,
    ) -> Qwen3VLForTokenClassification:
        """Build a Qwen3.5 VL model with a persistent replicated classifier head.

        Args:
            pre_process: Whether this pipeline stage owns input preprocessing.
            post_process: Whether this pipeline stage owns output postprocessing.
            vp_stage: Virtual-pipeline stage index, when virtual pipelining is enabled.

        Returns:
            The Megatron Qwen3.5 VL token-classification model for this stage.

        Raises:
            ValueError: If ``num_labels`` is not positive or ``logit_dtype`` is configured.
        """
        if self.num_labels is None or self.num_labels <= 0:
            raise ValueError(f"num_labels must be a positive integer, got {self.num_labels!r}.")
        if self.logit_dtype is not None:
            raise ValueError(
                "Qwen3.5 token classification replaces the language-model output layer with a replicated "
                "classification head, which does not support true mixed-precision output GEMMs. "
                "Set logit_dtype=None."
            )

        model = cast(
            Qwen3VLForTokenClassification,
            super().provide(pre_process=pre_process, post_process=post_process, vp_stage=vp_stage),
        )
        if model.language_model is not None and model.language_model.post_process:
            model.language_model.output_layer = LinearForLastLayer(
                input_size=self.hidden_size,
                output_size=self.num_labels,
                sequence_parallel=self.sequence_parallel,
                bias=True,
                dropout=self.classifier_dropout,
                output_in_fp32=False,
                tp_group=getattr(getattr(model, "pg_collection", None), "tp", None),
                init_method=self.init_method,
                perform_initialization=self.perform_initialization,
            )
        return model


@dataclass
class Qwen35VLMoEModelProvider(GPTModelProvider):
    """
    Model provider for Qwen3.5 and Qwen3.6 VL MoE models.

    Qwen3.5 and Qwen3.6 combine a hybrid GDN (Gated DeltaNet) + Gated
    Attention language architecture (like Qwen3-Next) with a vision encoder
    (similar to Qwen3-VL) and Mixture of Experts (MoE) with shared experts.
    Model-specific dimensions and MoE geometry are populated from the
    Hugging Face config.

    Default Architecture Details (Qwen3.5-397B-A17B):
    - 60 layers: 15 groups × (3 GDN-MoE + 1 Attention-MoE)
    - Hidden dim: 4096, Token Embedding: 248320
    - GDN: 16 QK heads, 64 V heads, head_dim=128
    - Gated Attention: 32 Q heads, 2 KV heads, head_dim=256
    - MoE: 512 experts, 10 routed + 1 shared, expert dim=1024
    - mRoPE with sections [11, 11, 10], rope_theta=10,000,000
    - partial_rotary_factor=0.25

    Note: num_query_groups corresponds to num_key_value_heads in HF config (for
    standard Gated Attention layers). GDN layers have separate head counts.
    """

    modality_keys: ClassVar[dict[str, str]] = {_IMAGES_MODALITY_KEY: _QWEN_VISUAL_ENCODER_KEY}

    # =========================================================================
    # Hybrid Architecture (Qwen3-Next style)
    # =========================================================================
    transformer_layer_spec: ModuleSpec | Callable[["GPTModelProvider"], ModuleSpec] = (
        get_transformer_block_with_experimental_attention_variant_spec
    )
    layernorm_zero_centered_gamma: bool = True
    attention_output_gate: bool = True
    experimental_attention_variant: str = "gated_delta_net"
    linear_attention_freq: int | list[int] = 4  # 1 standard attention per 4 layers

    # --- Gated DeltaNet (GDN) parameters ---
    linear_conv_kernel_dim: int = 4
    linear_key_head_dim: int = 128
    linear_value_head_dim: int = 128
    linear_num_key_heads: int = 16
    linear_num_value_heads: int = 64  # 64 V heads for GDN in 397B model

    # =========================================================================
    # MoE parameters
    # =========================================================================
    num_moe_experts: int = 512
    moe_router_topk: int = 10  # 10 routed experts per token
    moe_shared_expert_gate: bool = True
    moe_router_dtype: str = "fp32"
    moe_router_load_balancing_type: str = "global_aux_loss"
    moe_router_pre_softmax: bool = False
    moe_grouped_gemm: bool = True
    moe_token_dispatcher_type: str = "alltoall"
    moe_permute_fusion: bool = True
    moe_aux_loss_coeff: float = 1e-3

    # =========================================================================
    # Common LLM parameters
    # =========================================================================
    normalization: str = "RMSNorm"
    gated_linear_unit: bool = True
    add_bias_linear: bool = False
    add_qkv_bias: bool = False
    qk_layernorm: bool = True
    kv_channels: int | None = 256  # head_dim for standard Gated Attention
    num_query_groups: int = 2  # KV heads for standard Gated Attention
    hidden_dropout: float = 0.0
    attention_dropout: float = 0.0
    attention_softmax_in_fp32: bool = True
    rotary_base: float = 10000000.0  # rope_theta from HF config
    rotary_percent: float = 0.25  # partial_rotary_factor from HF config
    seq_length: int = 262144  # 262K native context length

    # =========================================================================
    # VL-specific parameters
    # =========================================================================

    vision_config: Any = field(default=None)

    # Position embedding: Qwen3.5/3.6 use multimodal rope (mRoPE).
    position_embedding_type: str = "mrope"
    # Qwen3.5/3.6 mRoPE is [11, 11, 10] (Qwen3-VL uses [24, 20, 20]).
    # because partial_rotary_factor=0.25, so RoPE dim = 256*0.25 = 64, with sections [11,11,10]
    # for [temporal, height, width] summing to 32 (half of 64 rotary dim).
    mrope_section: List[int] = field(default_factory=lambda: [11, 11, 10])
    apply_rotary_pos_emb_in_fp32: bool = False

    # Vision-Language token IDs
    image_token_id: int = 248056
    video_token_id: int = 248057
    vision_start_token_id: int = 248053
    vision_end_token_id: int = 248054
    bos_token_id: int = 248045
    eos_token_id: int = 248046

    # Vision model settings
    spatial_merge_size: int = 2
    temporal_patch_size: int = 2
    patch_size: int = 16
    language_max_sequence_length: int = 2048

    scatter_embedding_sequence_parallel: bool = False

    # =========================================================================
    # Freeze options for fine-tuning
    # =========================================================================
    freeze_language_model: bool = False
    freeze_vision_model: bool = False
    freeze_vision_projection: bool = False

    # =========================================================================
    # Performance
    # =========================================================================
    bias_activation_fusion: bool = True
    use_hf_vision_model: bool = False
    vision_dp_when_cp: bool = False

    # Vision encoder CUDA graph settings
    vision_cuda_graph_impl: str = "none"
    vision_cuda_graph_scope: List[str] = field(default_factory=list)
    max_vision_cuda_graph_seq_length: Optional[int] = None

    # Heterogeneous dist checkpoint (needed for hybrid architecture)
    hetereogenous_dist_checkpoint: bool = True

    mtp_num_layers: Optional[int] = None

    @property
    def special_token_ids(self) -> dict[str, int]:
        """Return modality token ids."""
        return {_IMAGES_MODALITY_KEY: self.image_token_id}

    def __post_init__(self):
        _check_qwen3_5_moe_available()
        if self.vision_config is None:
            self.vision_config = Qwen3_5MoeVisionConfig()
        super().__post_init__()

    def finalize(self) -> None:
        if (self.context_parallel_size or 1) > 1:
            self.calculate_per_token_loss = True
        super().finalize()

    def build_language_spec(
        self, vp_stage: Optional[int] = None, pp_rank: Optional[int] = None
    ) -> TransformerBlockSubmodules | ModuleSpec:
        """Build the language transformer-block spec."""
        return _qwen35_build_language_block_spec(self, vp_stage, pp_rank)

    def build_mtp_spec(self, vp_stage: Optional[int] = None) -> Optional[TransformerBlockSubmodules | ModuleSpec]:
        """Build the MTP block spec (or ``None`` when MTP is disabled)."""
        return _qwen35_build_mtp_block_spec(self, vp_stage)

    def build_vision_encoder_spec(self) -> ModuleSpec:
        """Build the vision encoder spec."""
        return _qwen35_build_vision_encoder_spec(self)

    def build_language_model_spec(self, pp_rank: Optional[int] = 0) -> ModuleSpec:
        """Build the language model spec."""
        return _qwen35_build_language_model_spec(self, pp_rank=pp_rank)

    def provide(self, pre_process=None, post_process=None, vp_stage=None) -> Qwen3VLModel:
        """Provide a Qwen3.5 or Qwen3.6 VL model with vision and language components."""
        language_transformer_config = self
        hf_vision_config = self.vision_config
        hf_vision_config.torch_dtype = self.params_dtype

        block_spec = self.build_language_spec(vp_stage=vp_stage)
        mtp_spec = self.build_mtp_spec(vp_stage=vp_stage)

        model = Qwen3VLModel(
            language_transformer_config=language_transformer_config,
            language_transformer_layer_spec=block_spec,
            vision_transformer_config=hf_vision_config,
            pre_process=pre_process,
            post_process=post_process,
            pg_collection=self._pg_collection,
            mtp_block_spec=mtp_spec,
            vp_stage=vp_stage,
        )

        # Apply freeze options if any are enabled for fine-tuning
        if self.freeze_language_model or self.freeze_vision_model or self.freeze_vision_projection:
            model.freeze(
                freeze_language_model=self.freeze_language_model,
                freeze_vision_model=self.freeze_vision_model,
                freeze_vision_projection=self.freeze_vision_projection,
            )

        return model

    def provide_language_model(self, pre_process=None, post_process=None, vp_stage=None) -> MCoreGPTModel:
        """Provide just the language model component without vision."""
        return GPTModelProvider.provide(self, pre_process=pre_process, post_process=post_process, vp_stage=vp_stage)


def _qwen35_build_language_block_spec(
    provider: GPTModelProvider,
    vp_stage: Optional[int],
    pp_rank: Optional[int] = None,
) -> TransformerBlockSubmodules | ModuleSpec:
    """Build the language transformer-block spec."""
    block_spec = get_transformer_block_with_experimental_attention_variant_spec(
        provider,
        vp_stage=vp_stage,
        pp_rank=pp_rank,
    )
    _patch_standard_attention_specs(block_spec, Qwen3VLSelfAttention)
    return block_spec


def _qwen35_build_mtp_block_spec(
    provider: GPTModelProvider,
    vp_stage: Optional[int],
) -> Optional[TransformerBlockSubmodules | ModuleSpec]:
    """Build the MTP block spec."""
    from megatron.bridge.models.gpt_provider import mtp_block_spec

    mtp_spec = mtp_block_spec(provider, vp_stage=vp_stage)
    _patch_standard_attention_specs(mtp_spec, Qwen3VLSelfAttention)
    return mtp_spec


def _qwen35_build_language_model_spec(provider: GPTModelProvider, pp_rank: Optional[int] = 0) -> ModuleSpec:
    """Build the Qwen3VL language model spec."""
    return ModuleSpec(
        module=Qwen3VLGPTModel,
        params={
            "config": provider,
            "transformer_layer_spec": provider.build_language_spec(pp_rank=pp_rank),
            "vocab_size": provider.vocab_size,
            "max_sequence_length": provider.language_max_sequence_length,
            "fp16_lm_cross_entropy": provider.fp16_lm_cross_entropy,
            "logit_dtype": provider.logit_dtype,
            "parallel_output": True,
            "share_embeddings_and_output_weights": provider.share_embeddings_and_output_weights,
            "position_embedding_type": "mrope",
            "rotary_percent": provider.rotary_percent,
            "rotary_base": provider.rotary_base,
            "scatter_embedding_sequence_parallel": False,
            "mtp_block_spec": None,
        },
    )


def _qwen35_build_vision_encoder_spec(provider: GPTModelProvider) -> ModuleSpec:
    """Build the Qwen3VL vision encoder spec."""
    if getattr(provider, "use_hf_vision_model", False):
        raise ValueError("use_hf_vision_model is not supported for Qwen3VLVisionModel")

    vision_transformer_layer_spec = get_vit_layer_with_transformer_engine_spec()
    vision_transformer_layer_spec.submodules.self_attention.module = Qwen3VLSelfAttention

    megatron_vision_transformer_config = get_vision_model_config(provider.vision_config, megatron_config=provider)
    megatron_vision_transformer_config.pipeline_model_parallel_size = 1
    megatron_vision_transformer_config.first_pipeline_num_layers = None

    return ModuleSpec(
        module=Qwen3VLVisionModel,
        params={
            "transformer_config": megatron_vision_transformer_config,
            "transformer_layer_spec": vision_transformer_layer_spec,
            "patch_merger_spec": PatchMergerSubmodules(
                patch_norm=TENorm,
                linear_fc1=TEColumnParallelLinear,
                linear_fc2=TERowParallelLinear,
            ),
            "pre_process": True,
            "post_process": True,
        },
    )


def _patch_standard_attention_specs(
    block_spec: Optional[TransformerBlockSubmodules | ModuleSpec],
    attention_cls,
) -> None:
    """Selectively replace standard self-attention specs with ``attention_cls``.

    This handles both the main decoder block spec and the nested TransformerLayer
    spec stored inside MTP block specs.

    In a hybrid block spec, each layer spec has a different self_attention submodule:
    - Standard attention layers have a ``SelfAttention``-like module.
    - GDN layers have a ``GatedDeltaNet``-like module.

    This function patches only the standard attention layers with *attention_cls*
    (e.g. ``Qwen3VLSelfAttention`` for mRoPE support), leaving GDN layers unchanged.

    Detection heuristic: GDN layer specs have ``GatedDeltaNet`` (or similar) as the
    self_attention module, which does NOT have a ``linear_qkv`` submodule. Standard
    attention specs DO have ``linear_qkv``. We use this to distinguish them.
    """
    from megatron.core.transformer.attention import SelfAttention

    if block_spec is None:
        return

    if hasattr(block_spec, "layer_specs"):
        for layer_spec in block_spec.layer_specs:
            _patch_standard_attention_specs(layer_spec, attention_cls)
        return

    if not isinstance(block_spec, ModuleSpec):
        return

    submodules = getattr(block_spec, "submodules", None)
    if submodules is None:
        return

    if hasattr(submodules, "mtp_model_layer"):
        _patch_standard_attention_specs(submodules.mtp_model_layer, attention_cls)

    if not hasattr(submodules, "self_attention"):
        return

    attn_spec = submodules.self_attention
    # Standard attention specs use SelfAttention (or a subclass) as the module.
    # and have linear_qkv in their submodules. GDN specs use GatedDeltaNet.
    if attn_spec.module is SelfAttention or (
        isinstance(attn_spec.module, type) and issubclass(attn_spec.module, SelfAttention)
    ):
        attn_spec.module = attention_cls
