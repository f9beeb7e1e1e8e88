"""Algorithm and formula models (pipeline step 2): what an RL algorithm keeps in memory, its
typical settings and ScaleRL fit; FLOP/VRAM formulas with their variables.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from tinkernomics.catalog import numbers as n
from tinkernomics.catalog.fields import (
    ASSERTED_BY_DESCRIPTION,
    AssertedBy,
    Id,
    Latex,
    LossId,
    ModelId,
    Prose,
    ShortText,
    Status,
    Unit,
)
from tinkernomics.catalog.models.base import Identifier, ProvenanceModel, StrictModel
from tinkernomics.catalog.models.provenance import Claim, Figure, FigureList, locator_field
from tinkernomics.catalog.models.scalerl import ScaleRLFit, ScaleRLRecord


class ModelRole(StrEnum):
    """A model an algorithm keeps in memory during training."""

    policy = "policy"
    reference = "reference"
    critic = "critic"
    reward_model = "reward_model"
    teacher = "teacher"


class MemoryProfile(StrEnum):
    """Coarse memory class: low (policy + frozen copy), high (extra trained models)."""

    low = "low"
    medium = "medium"
    high = "high"


class RewardSource(StrEnum):
    """Where an algorithm's learning signal comes from."""

    reward_model = "reward_model"
    """A learned reward model scores each rollout."""
    verifier = "verifier"
    """A programmatic check (answer match, unit tests) scores each rollout."""
    either = "either"
    """Works with a learned reward model or a verifier alike."""
    preferences = "preferences"
    """Offline preference or labelled data; nothing scores new samples."""
    teacher = "teacher"
    """A teacher model's log-probabilities (distillation)."""


class SourcedFact(ProvenanceModel):
    """A yes/no or categorical fact about an algorithm, with its source."""

    status: Status = Field(description="Provenance status; see Figure.status.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference id that states it.", examples=["dapo_yu"])
    locator: Prose | None = locator_field()
    note: Prose | None = Field(default=None, description="How the source says it.")
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources report instead.")


class SourcedFlag(SourcedFact):
    """A yes/no fact with its source."""

    value: bool = Field(description="Yes (true) or no (false).")


class SourcedReward(SourcedFact):
    """Where the reward comes from, with its source."""

    value: RewardSource = Field(description="`reward_model`, `verifier`, `either`, "
                                            "`preferences` or `teacher`.")


class SourcedTeacher(SourcedFact):
    """The teacher a distillation method is run with in its source."""

    model: ModelId = Field(description="Model id (catalog/models/) of the teacher the source uses; "
                                  "the calculator's default teacher.", examples=["qwen3-32b"])


class ExampleShape(StrEnum):
    """What one training example of an offline method holds."""

    pair = "pair"
    """A chosen and a rejected answer to the same prompt (DPO, IPO, ORPO, SimPO)."""
    single = "single"
    """One answer labelled desirable or undesirable (KTO)."""


class SourcedExamples(SourcedFact):
    """An offline method's data shape, with its source."""

    value: ExampleShape = Field(description="`pair` (a chosen and a rejected answer) or "
                                            "`single` (one labelled answer).")


class Semantics(StrictModel):
    """What the algorithm does that decides its memory and cost; each fact with a source."""

    kl_reference: SourcedFlag = Field(
        description="True if the loss has a KL term to a frozen reference: then a reference is "
                    "held and its log-probs are billed by default.")
    reward: SourcedReward = Field(description="Where its reward comes from.")
    rollouts: SourcedFlag = Field(
        description="True if it samples rollouts from the policy; false for offline methods "
                    "(no rollout phase).")
    teacher: SourcedTeacher | None = Field(
        default=None, description="Distillation: the teacher, its own role with its own model.")
    oversampling: Annotated[Figure, n.FigureRange(
        ge=1, le=100, hint="rollouts sampled per rollout kept, e.g. 3 (allowed 1-100)")] | None = \
        Field(default=None, description="Rollouts sampled per rollout trained on, where the "
                                        "method filters groups (DAPO's dynamic sampling), unit "
                                        "`multiplier`; priced as extra rollouts.")
    examples: SourcedExamples | None = Field(
        default=None, description="Offline methods: what one training example holds, `pair` "
                                  "or `single`; the estimate trains (and scores) that many "
                                  "sequences per example instead of G completions.")


class Algorithm(StrictModel):
    """An RL post-training algorithm and its cost/memory profile."""

    id: Id = Field(description="Equal to the file name without `.yaml`.", examples=["grpo"])
    name: ShortText = Field(description="Short name shown in tables.", examples=["GRPO"])
    full_name: ShortText = Field(description="Expanded name.",
                                 examples=["Group Relative Policy Optimization"])
    attribution: ShortText = Field(description="Who introduced it, as shown under the name.",
                                   examples=["Shao et al., DeepSeekMath"])
    year: int = Field(ge=1950, le=2100, description="Year of the original paper.",
                      examples=[2024])
    models_in_memory: list[ModelRole] = Field(
        min_length=1, description="Models held in memory while training.",
        examples=[["policy", "reference"]],
    )
    needs_critic: bool = Field(description="True if a value model (critic) is trained.")
    needs_reward_model: bool = Field(description="True if a learned reward model scores rollouts.")
    memory_profile: MemoryProfile = Field(description="Coarse memory class.")
    # G 1-4096 and K 1-1000 (catalog/numbers.py): inside what the calculator takes from a link.
    typical_k: Annotated[FigureList, n.TYPICAL_K] = Field(
        description="Typical optimisation passes K per batch.")
    typical_g: Annotated[FigureList, n.TYPICAL_G] | None = Field(
        default=None, description="Typical group size G (rollouts per prompt); omit if N/A."
    )
    async_support: bool = Field(description="True if it tolerates off-policy (async) rollouts.")
    online: bool = Field(default=True, description="False for offline methods with no rollouts.")
    tinker_losses: list[LossId] = Field(
        default_factory=list,
        description="Tinker loss ids (catalog/tinker/losses/) it maps to, primary first.",
        examples=[["importance_sampling"]],
    )
    tinker_mapping: Prose | None = Field(
        default=None, description="How the algorithm is run on Tinker, if not a plain mapping."
    )
    scalerl: ScaleRLFit | None = Field(
        default=None, description="ScaleRL sigmoid fit the charts draw: sourced figures only.")
    scalerl_record: ScaleRLRecord | None = Field(
        default=None,
        description="Other fits sources report (variants, ablations) and superseded values.")
    semantics: Semantics | None = Field(
        default=None, description="KL to a reference, reward source, rollouts, teacher and "
                                  "over-sampling, each sourced: what the run model reads.")
    notes: Prose = Field(description="What sets it apart, in a few sentences of markdown.")
    claims: list[Claim] = Field(default_factory=list, description="Headline results with sources.")
    references: list[Id] = Field(min_length=1, description="Reference ids it rests on.",
                                 examples=[["grpo_deepseekmath", "2_grpo"]])


class FormulaKind(StrEnum):
    """What a formula computes."""

    flops = "flops"
    vram = "vram"


class Variable(StrictModel):
    """A variable of a formula's expression."""

    name: Identifier = Field(description="Name used in `expression`.", examples=["P_active"])
    symbol: str = Field(max_length=80, description="LaTeX symbol.", examples=["P_{active}"])
    meaning: ShortText = Field(description="What the variable stands for.")
    unit: Unit = Field(description="Unit of the variable.")
    example: Annotated[float, n.EXAMPLE_HINT] = Field(
        gt=0, le=n.EXAMPLE_MAX, description="Value used in the worked example.")


class Formula(ProvenanceModel):
    """A FLOP or VRAM formula: display form, variables and a computable expression."""

    id: Id = Field(description="Equal to the file name without `.yaml`.",
                   examples=["flops_rollout"])
    kind: FormulaKind = Field(description="`flops` or `vram`.")
    name: ShortText = Field(description="Component it prices.", examples=["Rollout, per token"])
    order: Annotated[int, n.ORDER_HINT] = Field(default=0, ge=0, le=n.ORDER_MAX,
                                               description="Position in its table, smallest first.")
    latex: Latex = Field(description="Display form (LaTeX).")
    expression: str = Field(
        min_length=1, max_length=400,
        description="Arithmetic over the variables: + - * / ** and parentheses.",
        examples=["2 * P_active"],
    )
    result_unit: Unit = Field(description="Unit of the result.")
    variables: list[Variable] = Field(min_length=1, description="Every variable it uses.")
    description: Prose = Field(description="What it counts and what it leaves out.")
    status: Status = Field(description="Provenance status of the formula.")
    asserted_by: AssertedBy | None = Field(default=None, description=ASSERTED_BY_DESCRIPTION)
    source: Id = Field(description="Reference id backing it.", examples=["transformer_math"])
    reported_instead: Prose | None = Field(
        default=None, description="Required when unverified: what the sources give instead."
    )
