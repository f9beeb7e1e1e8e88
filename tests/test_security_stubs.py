"""An algorithm's page stub is its macro call and nothing else (issue 40): a stub is Jinja source
that mkdocs-macros renders, so a pull request that added one saying more ran it on the machine of
whoever previewed it with `make serve`. Anything else is a validate error at the page, and an
invalid catalog renders no page's source (the error page replaces it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid

from tinkernomics.catalog.loader import load_catalog
from tinkernomics.site.pages.feature import algorithm_stub
from tinkernomics.site.reserved import algorithm_page_stub, site_names


def test_the_stub_is_the_pages_own() -> None:
    assert algorithm_page_stub("grpo") == algorithm_stub("grpo")


def _docs(tmp_path: Path, grpo_page: str) -> list[str]:
    root = copy_valid(tmp_path)
    pages = tmp_path / "docs" / "algorithms"
    pages.mkdir(parents=True)
    (pages / "index.md").write_text("# Algorithms\n{{ algorithms_table() }}\n", encoding="utf-8")
    (pages / "ppo.md").write_text(algorithm_stub("ppo"), encoding="utf-8")
    (pages / "grpo.md").write_text(grpo_page, encoding="utf-8")
    _, problems = load_catalog(root, cwd=tmp_path, docs_dir=tmp_path / "docs",
                               names=site_names())
    return [p.format() for p in problems]


def test_exact_stubs_validate(tmp_path: Path) -> None:
    assert _docs(tmp_path, algorithm_stub("grpo")) == []
    assert _docs(tmp_path / "crlf", algorithm_stub("grpo").replace("\n", "\r\n")) == []


@pytest.mark.parametrize("page", [
    '{{ algorithm_page("grpo") }}\n{{ cycler.__init__.__globals__.os.popen("id").read() }}\n',
    '{{ algorithm_page("grpo") ~ cycler.__init__.__globals__.os.system("id") }}\n',
    '{% set x = 1 %}{{ algorithm_page("grpo") }}\n',
    "# GRPO\n",
])
def test_a_stub_that_says_more_is_refused_at_the_page(tmp_path: Path, page: str) -> None:
    found = _docs(tmp_path, page)
    assert len(found) == 1, found
    assert found[0].startswith("docs/algorithms/grpo.md:1:1: (file): page grpo.md is not its "
                               "algorithm's page stub"), found
