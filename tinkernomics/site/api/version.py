"""The public API's version and constants (pipeline step 6: /api/v1/).

Bump ``API_VERSION`` (and add a CHANGELOG_API.md entry) whenever the generated schema changes;
``api.guard`` and tests/test_api_schema.py enforce it.
"""

from __future__ import annotations

API_VERSION = "1.13.0"
"""Semantic version of the public API. Bump it (and add a CHANGELOG_API.md entry) whenever the
generated schema changes: patch for wording, minor for additions, major (new /api/vN/) for
anything that breaks a reader."""

API_MAJOR = "v1"
SEMVER_PATTERN = r"^1\.\d+\.\d+$"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
PLATFORM_PATH = "platform.json"
"""The Tinker platform's single document (the index names it)."""
