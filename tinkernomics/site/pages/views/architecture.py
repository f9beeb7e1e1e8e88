"""Model architecture views (pipeline step 6, the Tinker page): each model's shape figures.

A model's ``shape`` (``catalog/models/shape.py``) holds the figures memory is computed from,
each with its source and locator. The view lists every field in one fixed order, the figure
(value, badge, citation) and where in the source it is read, or "unknown" when no source gives
it; an unverified figure carries the ``uv-model-<id>-shape-<field>`` id the Data quality page
links to.
"""

from __future__ import annotations

from dataclasses import dataclass

from tinkernomics.catalog import models as m
from tinkernomics.site.pages.views.core import Links, Origin, Shown, SiteIndex, slug

SHAPE_FIELDS: tuple[tuple[str, str], ...] = (
    ("layers", "Layers"),
    ("attention_heads", "Attention heads"),
    ("kv_heads", "KV heads"),
    ("head_dim", "Head size"),
    ("kv_latent_dim", "Latent KV width (MLA)"),
    ("kv_layers", "Layers with a KV cache"),
    ("fixed_state_layers", "Fixed-state layers"),
    ("fixed_state_size", "Fixed state a layer and sequence"),
    ("sliding_window", "Sliding window"),
    ("sliding_layers", "Sliding-window layers"),
    ("mlp_size", "MLP size"),
    ("expert_mlp_size", "Expert MLP size"),
    ("experts", "Experts"),
    ("experts_active", "Experts per token"),
    ("vocab_size", "Vocabulary"),
    ("tied_embeddings", "Tied embeddings (1 yes, 0 no)"),
    ("context_limit", "Context limit"),
)
"""Shape fields in the order the page lists them, with their labels."""


@dataclass(frozen=True)
class ShapeRow:
    label: str
    field: str
    value: Shown | None
    """None: no source gives it (shown as unknown)."""
    locator: str


@dataclass(frozen=True)
class ArchitectureView:
    id: str
    anchor: str
    name: str
    rows: list[ShapeRow]
    known: int

    @property
    def has_unverified(self) -> bool:
        """Open by default: a Data quality link lands on an unverified figure in view."""
        return any(r.value is not None and r.value.unverified for r in self.rows)


def shape_rows(index: SiteIndex, lm: m.LanguageModel, links: Links) -> list[ShapeRow]:
    """Every shape field of ``lm``: its figure with provenance and locator, or unknown."""
    rows = []
    for name, label in SHAPE_FIELDS:
        fig = getattr(lm.shape, name, None) if lm.shape is not None else None
        if fig is None:
            rows.append(ShapeRow(label, name, None, ""))
            continue
        shown = index.figure(fig, links, Origin("model", lm.id, ("shape", name)))
        # the table prints the locator in a column of its own
        rows.append(ShapeRow(label, name, shown.without_locator(), fig.locator))
    return rows


def architecture_views(index: SiteIndex, models: list[m.LanguageModel],
                       links: Links) -> list[ArchitectureView]:
    """One block per model, in the order of the models table."""
    views = []
    for lm in models:
        rows = shape_rows(index, lm, links)
        views.append(ArchitectureView(lm.id, f"arch-{slug(lm.id)}", lm.name, rows,
                                      sum(1 for r in rows if r.value is not None)))
    return views
