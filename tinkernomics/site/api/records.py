"""Public API models of what an entry records beside its headline figures (pipeline step 6).

An algorithm's ScaleRL record (the other fits its source reports, and the values they
superseded), its run-model semantics (KL to a reference, reward, rollouts, teacher,
over-sampling) and a model's architecture figures (``shape``). Each mirrors its authoring model
field for field, figures as public ``Figure`` (with their ``locator``): the records and the shape
are twins read off their authoring models (``api.twins``), the sourced facts are written out
(their public field order differs). ``api.entries`` uses them and ``api.generic`` registers
them so ``convert._convert`` copies them.
"""

from __future__ import annotations

from pydantic import Field

from tinkernomics.catalog import models as m
from tinkernomics.catalog.fields import AssertedBy, Status
from tinkernomics.catalog.models import shape
from tinkernomics.catalog.models.algorithms import ExampleShape, RewardSource
from tinkernomics.site.api.provenance import ASSERTED_BY_API, ApiModel, Figure
from tinkernomics.site.api.twins import Twin


class ScaleRLVariant(Twin, of=m.ScaleRLVariant, described={
    "setting": "Model, data, batch, generation length, compute unit.",
    "A": "Asymptotic pass rate, percent; null if not given.",
    "B": "Scaling exponent; null if not given.",
    "C_mid": "Compute at half the gain, GB200-hours; null if not given.",
    "note": "What the variant changes, and caveats (markdown).",
}):
    """One more fit the source reports: a recipe variant or an ablation (parameters optional)."""


class SupersededFit(Twin, of=m.SupersededFit, described={
    "A": "Its asymptote, percent.",
    "why": "Why these values were superseded (markdown).",
}):
    """Values an earlier source gave for the fit: history, drawn on no chart."""


class ScaleRLRecord(Twin, of=m.ScaleRLRecord, described={
    "summary": "What the source gives and what the chart draws (markdown).",
    "variants": "Other fits the source reports.",
    "superseded": "Earlier values replaced by sourced ones; null if none.",
}):
    """What sources report about an algorithm's ScaleRL scaling beyond the charted fit."""


class _SourcedFact(ApiModel):
    status: Status = Field(description="Provenance status; see Figure.status.")
    source: str = Field(description="Reference id that states it.")
    locator: str | None = Field(description="Where in `source` it is stated (section, table, "
                                "file and line, or the quoted sentence); null if not given.")
    note: str | None = Field(description="Where the source says it, and how (markdown).")
    reported_instead: str | None = Field(description="For unverified facts: what sources say.")
    asserted_by: AssertedBy | None = Field(description=ASSERTED_BY_API)


class SourcedFlag(_SourcedFact):
    """A yes/no fact with its source."""

    value: bool = Field(description="Yes (true) or no (false).")


class SourcedReward(_SourcedFact):
    """Where the reward comes from, with its source."""

    value: RewardSource = Field(description="`reward_model`, `verifier`, `either`, "
                                            "`preferences` or `teacher`.")


class SourcedTeacher(_SourcedFact):
    """The teacher a distillation method is run with in its source."""

    model: str = Field(description="Model id (models/<id>.json) of the teacher.")


class SourcedExamples(_SourcedFact):
    """An offline method's data shape, with its source."""

    value: ExampleShape = Field(description="`pair` (a chosen and a rejected answer) or "
                                            "`single` (one labelled answer).")


class Semantics(ApiModel):
    """What the algorithm does that decides its memory and cost (the run model reads it)."""

    kl_reference: SourcedFlag = Field(description="True if the loss has a KL term to a frozen "
                                                  "reference (a reference copy is held).")
    reward: SourcedReward = Field(description="Where its reward comes from.")
    rollouts: SourcedFlag = Field(description="True if it samples rollouts from the policy.")
    teacher: SourcedTeacher | None = Field(description="Distillation: the teacher; else null.")
    oversampling: Figure | None = Field(
        description="Rollouts sampled per rollout trained on (multiplier); null if none.")
    examples: SourcedExamples | None = Field(
        description="Offline methods: what one training example holds (priced instead of G); "
                    "null if not stated.")


class ModelShape(Twin, of=shape.ModelShape, described={
    "layers": "Transformer layers.",
    "attention_heads": "Query heads.",
    "kv_heads": "Key-value heads.",
    "head_dim": "Size of one attention head.",
    "kv_latent_dim": "Multi-head latent attention: width cached per layer and token.",
    "kv_layers": "Hybrid models: layers that keep a per-token KV cache.",
    "fixed_state_layers": "Hybrid models: layers that keep a fixed-size state per sequence.",
    "fixed_state_size": "Hybrid models: numbers of state one sequence keeps in one such layer.",
    "sliding_window": "Sliding-window attention: tokens a windowed layer attends to and caches.",
    "sliding_layers": "Sliding-window attention: how many layers are windowed.",
    "mlp_size": "Dense MLP width.",
    "expert_mlp_size": "MoE: one expert's MLP width.",
    "experts": "MoE: routed experts per layer.",
    "experts_active": "MoE: experts each token is routed to.",
    "vocab_size": "Vocabulary size.",
    "tied_embeddings": "1 if the output layer shares the input embedding, 0 if not.",
    "context_limit": "Longest context, tokens.",
}):
    """A model's architecture figures, each with its source and locator; null when no source
    gives it (the calculator then shows the quantity as unknown)."""
