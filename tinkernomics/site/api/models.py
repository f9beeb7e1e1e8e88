"""The public API models, in one import (pipeline step 5 -> 6: view models for /api/v2/).

The public API has its own pydantic classes, separate from the authoring models in
``tinkernomics.catalog.models``: the catalog may grow or rename fields for contributors without
breaking people who read ``/api/v2/``; the API changes only with a version bump and a
``CHANGELOG_API.md`` entry (``schema_guard`` and tests/test_api_schema.py enforce that).

The classes live by topic: ``version`` (API_VERSION), ``provenance`` (base class, figures),
``entries`` (one model per kind of entry), ``documents`` (collections, envelopes, the schema),
``guard`` (version bump and changelog checks). ``api.build.build_api(catalog)`` fills them from a
validated catalog; ``api.files`` serialises them into JSON, CSV and a zip.
"""

from __future__ import annotations

from tinkernomics.site.api.documents import (  # noqa: F401
    PLATFORM_PATH,
    Collection,
    CollectionInfo,
    Envelope,
    FileInfo,
    Index,
    SingleDocument,
    api_schema,
    collection_document,
    collections,
    document,
    item_document,
    responses,
    single_documents,
)
from tinkernomics.site.api.entries import (  # noqa: F401
    AbsorbedItem,
    Algorithm,
    Conversion,
    Curve,
    CurvePoint,
    Formula,
    Hardware,
    Hyperparameter,
    LanguageModel,
    Loss,
    LossInput,
    Platform,
    PriceList,
    PriceRow,
    Primitive,
    Reference,
    RentalPrice,
    ScaleRL,
    SetupCost,
    SpectrumPoint,
    TokenType,
    Variable,
    WorkedExample,
)
from tinkernomics.site.api.guard import (  # noqa: F401
    GuardProblem,
    _semver,
    changelog_versions,
    schema_body,
    schema_guard,
)
from tinkernomics.site.api.provenance import (  # noqa: F401
    ASSERTED_BY_API,
    ApiModel,
    Citation,
    Claim,
    Derivation,
    DerivationInput,
    Figure,
    FigureList,
)
from tinkernomics.site.api.version import (  # noqa: F401
    API_MAJOR,
    API_ROOT,
    API_VERSION,
    SCHEMA_DIALECT,
    SEMVER_PATTERN,
)

