"""References on a mirror of arXiv are refused with the arXiv address as the hint, and the
duplicate check reads the arXiv id wherever a reference writes it (issue 45). Fixture catalog:
grpo_deepseekmath is arXiv 2402.03300."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, run_validate, write_file

from tinkernomics.catalog.mirrors import arxiv_id, mirror_of_arxiv

MIRRORED = [
    "https://huggingface.co/papers/2402.03300",
    "https://www.alphaxiv.org/abs/2402.03300v2",
    "https://www.alphaxiv.org/overview/2402.03300",
    "https://arxiv-sanity-lite.com/?rank=pid&pid=2402.03300",
    "https://www.semanticscholar.org/arxiv/2402.03300",
    "https://api.semanticscholar.org/arXiv:2402.03300",
    "https://ar5iv.labs.arxiv.org/html/2402.03300",
    "https://ar5iv.org/abs/2402.03300",
    "https://export.arxiv.org/abs/2402.03300",
]


def _reference(url: str, title: str = "A title of its own") -> str:
    return (f'id: z_mirror\ntitle: "{title}"\nauthors: Someone\nurl: {url}\n'
            "checked: 2026-12-01\n")


@pytest.mark.parametrize("url", MIRRORED)
def test_a_mirror_of_arxiv_is_refused_with_the_arxiv_address(tmp_path: Path, url: str) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/z_mirror.yaml", _reference(url))
    problems = run_validate(tmp_path, "catalog").problems
    mirror = [p for p in problems if "mirrors arXiv paper 2402.03300" in p.message]
    assert [p.where for p in mirror] == ["catalog/references/z_mirror.yaml:4:6: url"]
    assert mirror[0].hint == "url: https://arxiv.org/abs/2402.03300"
    same = [p for p in problems if "same arXiv id as catalog/references/grpo_deepseekmath.yaml"
            in p.message]
    assert len(same) == 1, problems


def test_an_arxiv_doi_is_the_same_paper(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/z_mirror.yaml",
               _reference("https://doi.org/10.48550/arXiv.2402.03300"))
    problems = run_validate(tmp_path, "catalog").problems
    assert any("same arXiv id" in p.message for p in problems), problems


@pytest.mark.parametrize("url", ["https://huggingface.co/Qwen/Qwen3-8B",
                                 "https://arxiv.org/abs/2501.00001",
                                 "https://www.semanticscholar.org/paper/abc123"])
def test_other_pages_on_those_hosts_pass(tmp_path: Path, url: str) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/z_mirror.yaml", _reference(url))
    assert run_validate(tmp_path, "catalog").code == 0


def test_arxiv_id_reads_every_spelling() -> None:
    assert mirror_of_arxiv("https://HF.co/papers/2501.12345v3") == ("hf.co", "2501.12345")
    assert arxiv_id(None, "arXiv 2501.12345") == "2501.12345"
    assert arxiv_id("https://arxiv.org/pdf/2501.12345v2") == "2501.12345"
    assert arxiv_id("https://example.org/2501.12345") is None
