"""Authoring models: what a contributor may write in ``catalog/`` (pipeline step 2).

The loader turns YAML into plain Python data; these pydantic models validate it strictly
(``extra="forbid"``, no type coercion). Every field has a description: it reaches editors through
the generated JSON Schemas and readers through the site's Fields reference page. Cross-entry
rules (references resolve, ids equal file names, ...) live in ``rules.py``; arithmetic lives in
``derived/``. Public API models are separate (``site/api/models.py``).

One module per area (base, provenance, references, algorithms, scalerl, hardware, tinker);
this package re-exports every model, so ``from tinkernomics.catalog import models as m;
m.Algorithm`` works.
"""

from tinkernomics.catalog.models.algorithms import (
    Algorithm,
    Formula,
    FormulaKind,
    MemoryProfile,
    ModelRole,
    ScaleRLFit,
    Variable,
)
from tinkernomics.catalog.models.base import IDENT_PATTERN, Identifier, ProvenanceModel, StrictModel
from tinkernomics.catalog.models.hardware import Conversion, Hardware, RentalPrice
from tinkernomics.catalog.models.provenance import Claim, Figure, FigureList
from tinkernomics.catalog.models.references import Reference
from tinkernomics.catalog.models.scalerl import ScaleRLRecord, ScaleRLVariant, SupersededFit
from tinkernomics.catalog.models.tinker import (
    AbsorbedItem,
    Architecture,
    Hyperparameter,
    LanguageModel,
    LossInput,
    Phase,
    PriceList,
    PriceRow,
    Primitive,
    SetupCost,
    SpectrumPoint,
    TinkerLoss,
    TinkerPlatform,
    TokenType,
)

__all__ = [
    "IDENT_PATTERN",
    "AbsorbedItem",
    "Algorithm",
    "Architecture",
    "Claim",
    "Conversion",
    "Figure",
    "FigureList",
    "Formula",
    "FormulaKind",
    "Hardware",
    "Hyperparameter",
    "Identifier",
    "LanguageModel",
    "LossInput",
    "MemoryProfile",
    "ModelRole",
    "Phase",
    "PriceList",
    "PriceRow",
    "Primitive",
    "ProvenanceModel",
    "Reference",
    "RentalPrice",
    "ScaleRLFit",
    "ScaleRLRecord",
    "ScaleRLVariant",
    "SetupCost",
    "SpectrumPoint",
    "StrictModel",
    "SupersededFit",
    "TinkerLoss",
    "TinkerPlatform",
    "TokenType",
    "Variable",
]
