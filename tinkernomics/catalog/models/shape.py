"""A language model's architecture figures (pipeline step 2): what memory needs to know.

Each figure is read from a public source (the model's ``config.json`` or its technical report)
and says where (``locator``: file and line, or the report's table). A figure the sources do not
give is left out and shows as unknown: the calculator never guesses a layer count or a head size.

Attention that is not plain multi-head or grouped-query attention is described, not folded into
the plain formula: multi-head latent attention by ``kv_latent_dim``; sliding-window layers by
``sliding_window`` and ``sliding_layers``; hybrid models (linear attention, Mamba) by
``kv_layers`` (the layers that keep a per-token KV cache) and ``fixed_state_layers`` (the others,
whose fixed per-sequence state the estimate does not count and says so, unless
``fixed_state_size`` gives it).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tinkernomics.catalog.fields import ShortText, Unit
from tinkernomics.catalog.models.base import StrictModel
from tinkernomics.catalog.models.provenance import Figure
from tinkernomics.catalog.numbers import FigureRange

LAYERS = FigureRange(ge=1, le=1000, hint="transformer layers, e.g. 36 (allowed 1-1,000)")
HEADS = FigureRange(ge=1, le=10000, hint="a number of attention heads, e.g. 32 (allowed 1-10,000)")
SIZE = FigureRange(ge=1, le=1e7, hint="a width, e.g. 4096 or 12288 (allowed 1 to 1e7)")
VOCAB = FigureRange(ge=1, le=1e8, hint="vocabulary size, e.g. 151936 (allowed 1 to 1e8)")
EXPERTS = FigureRange(ge=1, le=1e5, hint="a number of experts, e.g. 128 (allowed 1-100,000)")
CONTEXT = FigureRange(ge=1, le=1e9, hint="context limit in tokens, e.g. 131072 (allowed 1 to 1e9)")
FLAG = FigureRange(ge=0, le=1, hint="1 (yes) or 0 (no)")


class ShapeFigure(Figure):
    """An architecture figure: a number with its source and where in the source it is read."""

    unit: Unit = Field(default=Unit.count, description="Unit of `value`: `count` unless noted.")
    locator: ShortText = Field(
        description="Where the source gives it: file path and line (config.json line 12), or "
                    "the report's table or section.",
        examples=["config.json line 14 (num_hidden_layers)"])


class ModelShape(StrictModel):
    """Architecture figures of a language model; omit what no source gives (shown as unknown)."""

    layers: Annotated[ShapeFigure, LAYERS] | None = Field(
        default=None, description="Transformer layers (num_hidden_layers).")
    attention_heads: Annotated[ShapeFigure, HEADS] | None = Field(
        default=None, description="Query heads (num_attention_heads).")
    kv_heads: Annotated[ShapeFigure, HEADS] | None = Field(
        default=None, description="Key-value heads (num_key_value_heads; fewer than the query "
                                  "heads under grouped-query attention).")
    head_dim: Annotated[ShapeFigure, SIZE] | None = Field(
        default=None, description="Size of one attention head (head_dim).")
    kv_latent_dim: Annotated[ShapeFigure, SIZE] | None = Field(
        default=None, description="Multi-head latent attention only: the width cached per layer "
                                  "and token (kv_lora_rank + qk_rope_head_dim). When given, the "
                                  "KV cache is layers × this × bytes per token.")
    kv_layers: Annotated[ShapeFigure, LAYERS] | None = Field(
        default=None, description="Hybrid models only: layers that keep a per-token KV cache "
                                  "(full attention), when fewer than `layers`.")
    fixed_state_layers: Annotated[ShapeFigure, LAYERS] | None = Field(
        default=None, description="Hybrid models only: layers that keep a fixed-size state per "
                                  "sequence instead of a KV cache (linear attention, Mamba); "
                                  "not counted, and the estimate says it is approximate.")
    fixed_state_size: Annotated[ShapeFigure, SIZE] | None = Field(
        default=None, description="Hybrid models only: the recurrent state one sequence keeps in "
                                  "one fixed-state layer, in numbers (linear attention: value "
                                  "heads × key head size × value head size); the sampler reads "
                                  "and writes it every decode step.")
    sliding_window: Annotated[ShapeFigure, CONTEXT] | None = Field(
        default=None, description="Sliding-window attention: the tokens a windowed layer "
                                  "attends to and caches (sliding_window), unit `tokens`.")
    sliding_layers: Annotated[ShapeFigure, LAYERS] | None = Field(
        default=None, description="Sliding-window attention: how many layers are windowed "
                                  "(they cache at most `sliding_window` tokens a sequence).")
    mlp_size: Annotated[ShapeFigure, SIZE] | None = Field(
        default=None, description="Dense MLP width (intermediate_size).")
    expert_mlp_size: Annotated[ShapeFigure, SIZE] | None = Field(
        default=None, description="MoE only: one expert's MLP width (moe_intermediate_size).")
    experts: Annotated[ShapeFigure, EXPERTS] | None = Field(
        default=None, description="MoE only: routed experts per layer (num_experts).")
    experts_active: Annotated[ShapeFigure, EXPERTS] | None = Field(
        default=None, description="MoE only: experts each token is routed to "
                                  "(num_experts_per_tok).")
    vocab_size: Annotated[ShapeFigure, VOCAB] | None = Field(
        default=None, description="Vocabulary size (vocab_size): the width of the logits.")
    tied_embeddings: Annotated[ShapeFigure, FLAG] | None = Field(
        default=None, description="1 if the output layer shares the input embedding "
                                  "(tie_word_embeddings: true), 0 if not; unit `dimensionless`.")
    context_limit: Annotated[ShapeFigure, CONTEXT] | None = Field(
        default=None, description="Longest context in tokens (max_position_embeddings, or the "
                                  "limit the report states), unit `tokens`.")
