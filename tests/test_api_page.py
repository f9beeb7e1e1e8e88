"""The API page's macros: endpoints, downloads, schema reference and changelog come from the
generated files, and the Python example on the page runs against the written API."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_api import REPO_ROOT, catalog, example_python, files

from tinkernomics.site.api import feature as apisite
from tinkernomics.site.api.files import write_api
from tinkernomics.site.api.models import (
    API_MAJOR,
    API_VERSION,
    api_schema,
    collections,
    responses,
)
from tinkernomics.site.build import SiteContext


@pytest.fixture
def ctx() -> SiteContext:
    context = SiteContext(root=REPO_ROOT, catalog=catalog("fixture"),
                          site_url="https://example.org/tn/")
    context.extra[apisite._FILES_KEY] = files("fixture")
    return context


def hrefs(markdown: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', markdown)


def test_endpoints_list_every_collection_and_link_relative_to_the_page(ctx: SiteContext) -> None:
    text = apisite.macros(ctx)["api_endpoints"]()
    for c in collections():
        assert f"<code>{c.path}.json</code>" in text
        assert f"<code>{c.path}/{{id}}.json</code>" in text
    links = hrefs(text)
    assert links and all(h.startswith(f"{API_MAJOR}/") for h in links)
    for link in links:  # each link names a file the build writes
        assert link.removeprefix(f"{API_MAJOR}/") in files("fixture")


def test_overview_shows_version_date_licence_and_download_sizes(ctx: SiteContext) -> None:
    text = apisite.macros(ctx)["api_overview"]()
    assert f"**{API_VERSION}**" in text and "**2026-07-17**" in text and "CC BY 4.0" in text
    zip_size = len(files("fixture")["tinkernomics-data.zip"])
    assert f"{zip_size / 1024:.1f} KiB" in text
    assert f"{API_MAJOR}/tinkernomics-data.zip" in hrefs(text)


def test_schema_reference_has_a_table_for_every_definition(ctx: SiteContext) -> None:
    text = apisite.macros(ctx)["api_schema_reference"]()
    schema = api_schema()
    for name, definition in schema["$defs"].items():
        assert f'"{name}"' in text
        for field in definition.get("properties", {}):
            assert f"`{field}`" in text
    assert all(f'"{r.__name__}"' in text for r in responses().values())


def test_changelog_is_on_the_page_under_the_page_title(ctx: SiteContext) -> None:
    text = apisite.macros(ctx)["api_changelog"]()
    assert re.search(rf"^### {re.escape(API_VERSION)}\b", text, re.MULTILINE)
    assert not re.search(r"^#{1,2} ", text, re.MULTILINE)


def test_examples_use_the_site_url(ctx: SiteContext) -> None:
    text = apisite.macros(ctx)["api_examples"]()
    assert f"curl -s https://example.org/tn/api/{API_MAJOR}/index.json" in text
    assert f'BASE = "https://example.org/tn/api/{API_MAJOR}/"' in text


def test_the_python_example_runs_against_the_written_api(tmp_path: Path) -> None:
    """It filters the lean collection, then follows one entry's ``api_path`` to its whole
    document (a collection without whole entries is what makes the second step needed)."""
    out = tmp_path / "api" / API_MAJOR
    write_api(files("real"), out)
    real = catalog("real")
    code = example_python(out.as_uri() + "/", real)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    lines = done.stdout.splitlines()
    no_critic = [a for a in real.algorithms.values() if not a.needs_critic]
    assert lines[0] == f"{len(real.algorithms)} algorithms, {len(no_critic)} without a critic"
    algo_id = apisite.example_values(real)["algorithm"]
    fit = real.algorithms[algo_id].scalerl
    assert fit is not None and len(lines) == 3
    assert lines[1].split()[:4] == [algo_id, str(fit.C_mid.value), "gb200_hours",
                                    fit.C_mid.status.value]
    assert lines[2].split()[1] == "derived" and "'C_mid'," in lines[2]


def test_the_page_and_the_written_api_share_one_render(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The API page's overview and endpoints (sizes, ids) and the files written after the pages
    are one render of the API per build, not one each."""
    renders: list[int] = []

    def counted(*args: object, **kwargs: object) -> dict[str, bytes]:
        renders.append(1)
        return files("fixture")

    monkeypatch.setattr(apisite, "render_api", counted)
    context = SiteContext(root=REPO_ROOT, catalog=catalog("fixture"))
    macros = apisite.macros(context)
    macros["api_overview"]()
    macros["api_endpoints"]()
    apisite.write_outputs(context, tmp_path)
    assert renders == [1]
    assert (tmp_path / apisite.API_DIR / "tinkernomics-data.zip").is_file()
