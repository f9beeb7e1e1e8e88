"""The public schema's guard: a changed schema needs a version bump and a changelog entry.

``tinkernomics api schema`` and tests/test_api_schema.py run ``schema_guard`` on the committed
``api_schema.json`` against the one generated from the models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

_CHANGELOG_HEADING = re.compile(r"^## \[?(\d+\.\d+\.\d+)\]?", re.MULTILINE)


def changelog_versions(text: str) -> list[str]:
    """Versions with a ``## X.Y.Z`` heading in CHANGELOG_API.md, newest (first) first."""
    return _CHANGELOG_HEADING.findall(text)


def _semver(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def schema_body(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without its version: what changes when the public models change."""
    return {k: v for k, v in schema.items() if k != "version"}


@dataclass(frozen=True)
class GuardProblem:
    """Why the committed schema may not stand. ``code`` says whether regenerating fixes it."""

    code: Literal["changelog", "backwards", "unbumped", "stale"]
    message: str

    @property
    def fixed_by_regenerating(self) -> bool:
        return self.code == "stale"


def schema_guard(committed: dict[str, Any] | None, generated: dict[str, Any],
                 changelog: str) -> list[GuardProblem]:
    """Problems of the committed schema against the generated one (empty list: all good).

    A changed schema needs a bumped ``API_VERSION``, a changelog entry for it (the newest one)
    and the committed copy regenerated; a version going backwards is refused too.
    """
    version = generated["version"]
    problems = []
    versions = changelog_versions(changelog)
    if version not in versions:
        problems.append(GuardProblem("changelog", f"CHANGELOG_API.md has no '## {version}' "
                                     f"entry for API_VERSION {version}"))
    elif versions[0] != version:
        problems.append(GuardProblem("changelog", f"the newest CHANGELOG_API.md entry is "
                                     f"{versions[0]}, but API_VERSION is {version}"))
    if committed is None:
        return [*problems, GuardProblem(
            "stale", "no committed API schema: run `tinkernomics api schema`")]
    old = str(committed.get("version", "0.0.0"))
    if _semver(version) < _semver(old):
        problems.append(GuardProblem(
            "backwards", f"API_VERSION {version} is older than the committed schema's {old}"))
    if schema_body(committed) != schema_body(generated) and old == version:
        problems.append(GuardProblem("unbumped", (
            f"the public API schema changed but API_VERSION is still {version}: bump it in "
            "tinkernomics/site/api/version.py, describe the change under a new heading in "
            "CHANGELOG_API.md, then run `tinkernomics api schema`")))
    elif committed != generated:
        problems.append(GuardProblem(
            "stale", "the committed API schema is stale: run `tinkernomics api schema`"))
    return problems
