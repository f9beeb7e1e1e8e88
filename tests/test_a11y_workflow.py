"""The weekly external-link workflow (.github/workflows/links.yml): valid for GitHub, runs on a
schedule and by hand but never on a pull request or push, builds with the developer target,
and reports dead links without failing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tinkernomics.catalog.yamlread import read_yaml

ROOT = Path(__file__).resolve().parents[1]
LINKS = ROOT / ".github" / "workflows" / "links.yml"
BIN = Path(sys.executable).parent


def workflow() -> dict:
    doc, problems = read_yaml(LINKS.read_bytes(), str(LINKS))  # YAML 1.2: `on:` stays a key
    assert doc is not None and not problems, [p.format() for p in problems]
    return doc.data


@pytest.mark.parametrize("schema", ["vendor.github-workflows",
                                    "custom.github-workflows-require-timeout"])
def test_links_workflow_passes_the_github_workflow_schema(schema: str) -> None:
    done = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", schema,
                           str(LINKS)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_links_are_checked_weekly_and_never_block_a_pull_request() -> None:
    flow = workflow()
    assert set(flow["on"]) == {"schedule", "workflow_dispatch"}
    *_, day, month, weekday = flow["on"]["schedule"][0]["cron"].split()
    assert (day, month) == ("*", "*") and weekday.isdigit(), "once a week"
    steps = [s for job in flow["jobs"].values() for s in job["steps"]]
    assert any(s.get("run") == "make build" for s in steps)
    lychee = next(s for s in steps if s.get("uses", "").startswith("lycheeverse/lychee-action@"))
    assert lychee["with"]["fail"] is False
    assert "site/**/*.html" in lychee["with"]["args"]
    report = next(s for s in steps
                  if s.get("uses", "").startswith("peter-evans/create-issue-from-file@"))
    assert report["with"]["content-filepath"] == lychee["with"]["output"]
    assert flow["permissions"]["issues"] == "write"

