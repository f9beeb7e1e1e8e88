"""A model's parameter count recounted from its architecture figures (pipeline step 3, used by
the model rules in ``physics_models``).

The recount is the arithmetic of a decoder-only transformer, written out so a contributor can
redo it by hand (d = hidden size, V = vocabulary, L = layers):

- embeddings: V × d, twice unless the output layer shares the input embedding (``tied``);
- attention, per layer: d × heads × head_dim (query) + 2 × d × kv_heads × head_dim (key and
  value) + heads × head_dim × d (output);
- MLP: 3 × d × width (gate, up, down) in every layer of a dense model; in a mixture of experts,
  ``experts`` experts of width ``expert_mlp_size`` and a router (d × experts) in every layer;
- norms: 2 × d per layer and one final d.

Where the figures cannot pin a part down, the recount is a range rather than a guess (each
bound from the architectures the catalog holds):

- multi-head latent attention (``kv_latent_dim``) gives no head sizes: d² to 4 × d² a layer
  (Kimi K2 ≈ 2 d², DeepSeek-V3 ≈ 3.6 d²);
- layers without a KV cache (``fixed_state_layers``: linear attention, Mamba) weigh 1 to 2
  times an attention layer of the same heads (Gated DeltaNet ≈ 1.8, Mamba-2 ≈ 1.7). When
  ``kv_layers`` and ``fixed_state_layers`` add up to fewer than ``layers``, the other layers
  are MLP-only blocks (hybrids that alternate mixer and MLP blocks), whose MLP may be gated
  (3 matrices) or not (2, squared ReLU);
- a mixture of experts may have a shared expert the figures do not list: 0 to 2 experts' width
  a layer, active for every token.

Active parameters are what a token passes through: everything but the routed experts it is not
sent to, and without the input embedding (a table lookup, not a product: the convention of
DeepSeek-V3's 37B and gpt-oss's model cards). Tied embeddings are counted once, as the output.
Figures a model does not give make the recount ``None``: no guess replaces a missing figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog.partial import field_or_none, figure_value

BILLION = 1e9
LATENT_ATTENTION = (1.0, 4.0)
"""Multi-head latent attention, a layer, in units of d²."""
FIXED_STATE_LAYER = (1.0, 2.0)
"""A layer without a KV cache, in units of an attention layer with the same heads."""
SHARED_EXPERTS = (0.0, 2.0)
"""Shared experts a layer the figures may not list, in experts' widths."""
HYBRID_MLP_MATRICES = (2.0, 3.0)
"""MLP matrices of an MLP-only block in a hybrid (plain squared-ReLU or gated)."""
GATED_MLP_MATRICES = 3.0


@dataclass(frozen=True)
class Recount:
    """Total and active parameters (billions), each as a (low, high) range."""

    total: tuple[float, float]
    active: tuple[float, float]


def _attention(d: float, shape: Any, bound: int) -> float | None:
    """Attention weights of one layer."""
    if figure_value(shape, "kv_latent_dim") is not None:
        return LATENT_ATTENTION[bound] * d * d
    heads, kv, head = (figure_value(shape, n) for n in ("attention_heads", "kv_heads", "head_dim"))
    if heads is None or head is None:
        return None
    kv = heads if kv is None else kv
    return 2 * d * heads * head + 2 * d * kv * head


def _mixers(shape: Any, layers: float, attention: float, bound: int) -> tuple[float, float]:
    """(weights of the attention-like layers, how many layers also hold an MLP)."""
    kv, fixed = figure_value(shape, "kv_layers"), figure_value(shape, "fixed_state_layers")
    if kv is None or fixed is None:
        return layers * attention, layers
    mixers = min(layers, kv + fixed)
    weights = kv * attention + fixed * attention * FIXED_STATE_LAYER[bound]
    return weights, (layers - mixers if mixers < layers else layers)


def _mlp(d: float, shape: Any, moe: bool, layers: float, matrices: float,
         bound: int) -> tuple[float, float] | None:
    """(all, active) MLP and expert weights over ``layers``."""
    if not moe:
        width = figure_value(shape, "mlp_size")
        return None if width is None else (layers * matrices * d * width,) * 2
    experts, active, width = (figure_value(shape, n)
                              for n in ("experts", "experts_active", "expert_mlp_size"))
    if experts is None or active is None or width is None:
        return None
    one = matrices * d * width
    always = SHARED_EXPERTS[bound] * one + d * experts
    return layers * (experts * one + always), layers * (active * one + always)


def _bound(model: Any, shape: Any, d: float, layers: float, vocab: float,
           bound: int) -> tuple[float, float] | None:
    attention = _attention(d, shape, bound)
    if attention is None:
        return None
    mixer_weights, mlp_layers = _mixers(shape, layers, attention, bound)
    hybrid = mlp_layers < layers
    matrices = HYBRID_MLP_MATRICES[bound] if hybrid else GATED_MLP_MATRICES
    moe = str(field_or_none(model, "architecture")) == "moe"
    mlp = _mlp(d, shape, moe, mlp_layers, matrices, bound)
    if mlp is None:
        return None
    tied = figure_value(shape, "tied_embeddings") == 1
    common = mixer_weights + 2 * d * layers + d
    return (common + mlp[0] + vocab * d * (1 if tied else 2)) / BILLION, \
        (common + mlp[1] + vocab * d) / BILLION


def recount(model: Any) -> Recount | None:
    """The model's total and active parameters from its shape, or None when figures are missing."""
    shape = field_or_none(model, "shape")
    d = figure_value(model, "d_model")
    layers, vocab = figure_value(shape, "layers"), figure_value(shape, "vocab_size")
    if shape is None or d is None or layers is None or vocab is None:
        return None
    low = _bound(model, shape, float(d), layers, vocab, 0)
    high = _bound(model, shape, float(d), layers, vocab, 1)
    if low is None or high is None:
        return None
    return Recount((low[0], high[0]), (low[1], high[1]))
