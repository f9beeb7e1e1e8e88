"""The real site build writes the API: two `mkdocs build --strict` runs of one commit give
byte-identical site/api/ trees holding every file the API renders (the session's build and a
second one, shared with the pages' comparison in tests/test_site_build.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_calc import real_catalog
from helpers_site import second_build

from tinkernomics.site.api.files import data_last_changed, render_api
from tinkernomics.site.api.version import API_MAJOR


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.build
@pytest.mark.sweep  # a second whole build (shared with test_site_build): .ci/run's group
def test_two_site_builds_write_identical_api_trees_with_every_file(built_site: BuiltSite) -> None:
    first = tree(built_site.root / "api")
    second = tree(second_build().root / "api")
    assert first.keys() == second.keys()
    differing = [path for path in first if first[path] != second[path]]
    assert not differing, f"differ between two builds: {differing[:10]}"
    assert "index.html" in first  # the API page itself
    catalog = real_catalog()
    expected = render_api(catalog, last_changed=data_last_changed(catalog.root),
                          site_url=SUB_PATH_URL)
    assert {f"{API_MAJOR}/{path}": body for path, body in expected.items()} == {
        path: body for path, body in first.items() if path.startswith(f"{API_MAJOR}/")}
    assert {path.split("/")[0] for path in first if "/" in path} == {API_MAJOR}  # no old major
