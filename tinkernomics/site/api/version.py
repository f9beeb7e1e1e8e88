"""The public API's version and constants (pipeline step 6: /api/v2/).

Bump ``API_VERSION`` (and add a CHANGELOG_API.md entry) whenever the generated schema changes;
``api.guard`` and tests/test_api_schema.py enforce it. The major version names the folder
(``API_MAJOR``, ``API_ROOT``) and is read off ``API_VERSION``: a major bump moves every file and
link of the API to ``/api/v<major>/`` by itself, and the old folder is no longer written.
"""

from __future__ import annotations

API_VERSION = "2.23.0"
"""Semantic version of the public API. Bump it (and add a CHANGELOG_API.md entry) whenever the
generated schema changes: patch for wording, minor for additions, major (new /api/vN/) for
anything that breaks a reader."""

MAJOR = int(API_VERSION.split(".")[0])
API_MAJOR = f"v{MAJOR}"
"""The folder of the API under the site root (``api/<API_MAJOR>/``)."""
API_ROOT = f"/api/{API_MAJOR}/"
"""The API's folder from the site root, as the schema's descriptions name it."""
SEMVER_PATTERN = rf"^{MAJOR}\.\d+\.\d+$"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
PLATFORM_PATH = "platform.json"
"""The Tinker platform's single document (the index names it)."""
