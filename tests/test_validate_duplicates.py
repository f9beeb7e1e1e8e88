"""Duplicate references (one work, one file) by each key, and `tinkernomics find`."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

from tinkernomics import cli
from tinkernomics.catalog.duplicates import normal_keys, normal_title, normal_url
from tinkernomics.catalog.lookup import Match


def reference(title: str, url: str | None = None, venue: str | None = None) -> str:
    lines = ["id: z_again", f'title: "{title}"', "authors: Someone"]
    if venue:
        lines.append(f"venue: {venue}")
    if url:
        lines.append(f"url: {url}")
    lines.append("checked: 2026-12-01")  # Reference.checked is required
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("case", "text", "key", "field"), [
    ("arxiv-id", reference("Another title", "https://arxiv.org/pdf/2402.03300v3"),
     "arXiv id", "url"),
    ("arxiv-in-venue", reference("Another title", "https://example.org/a",
                                 venue="arXiv 2402.03300"), "arXiv id", "title"),
    ("url", reference("Another title", "http://www.Blog.Eleuther.ai/transformer-math#top"),
     "URL", "url"),
    ("title", reference("deepseekmath:  pushing the limits of mathematical reasoning in open "
                        "language models!", "https://example.org/b"), "title", "title"),
])
def test_duplicate_reference_names_both_files(tmp_path: Path, case: str, text: str, key: str,
                                              field: str) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/z_again.yaml", text)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    [problem] = run.problems
    assert problem.where.startswith("catalog/references/z_again.yaml:")
    assert problem.where.endswith(f": {field}") or case == "arxiv-in-venue", problem.where
    original = "transformer_math" if case == "url" else "grpo_deepseekmath"
    assert f"same {key} as catalog/references/{original}.yaml" in problem.message
    assert problem.hint is not None and f"cite {original!r}" in problem.hint


def test_duplicate_doi_names_both_files(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/first.yaml",
               reference("Simple statistical gradient-following", "https://doi.org/10.1007/BF00992696"))
    (root / "references" / "first.yaml").write_text(
        (root / "references" / "first.yaml").read_text().replace("id: z_again", "id: first"))
    write_file(root, "references/second.yaml",
               reference("REINFORCE", "https://link.springer.com/article/10.1007/bf00992696")
               .replace("id: z_again", "id: second"))
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.where == "catalog/references/second.yaml:4:6: url"
    assert problem.message == ("same DOI as catalog/references/first.yaml "
                               "(10.1007/bf00992696)")


def test_different_works_are_not_duplicates(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/z_again.yaml",
               reference("DeepSeekMath 2", "https://arxiv.org/abs/2402.03301"))
    assert run_validate(tmp_path, "catalog").code == 0


def test_normalisation() -> None:
    assert normal_url("HTTPS://www.Example.org/a/?utm_source=x#frag") == "example.org/a"
    assert normal_url("https://example.org/a?b=1") != normal_url("https://example.org/a?b=2")
    assert normal_title("Leave-One-Out, Revisited!") == "leave one out revisited"
    assert normal_keys("https://arxiv.org/abs/2402.03300v2", None, "T")["arxiv"] == "2402.03300"


# --------------------------------------------------------------------------- find


def run_find(cwd: Path, *args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["find", *args])
    return code, out.getvalue() + err.getvalue()


def test_find_by_words_ignores_case_and_punctuation(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "references/rloo_ahmadian.yaml", reference(
        "Back to Basics: Revisiting REINFORCE Leave-One-Out Optimization",
        "https://arxiv.org/abs/2402.14740").replace("id: z_again", "id: rloo_ahmadian"))
    code, out = run_find(tmp_path, "leave one OUT")
    assert code == 0
    assert out.splitlines() == [
        "catalog/references/rloo_ahmadian.yaml: reference rloo_ahmadian — Back to Basics: "
        "Revisiting REINFORCE Leave-One-Out Optimization (matches title)"]


@pytest.mark.parametrize(("query", "expected"), [
    ("2402.03300", "reference grpo_deepseekmath"),
    ("arXiv:2402.03300v2", "reference grpo_deepseekmath"),
    ("shao", "reference grpo_deepseekmath"),
    ("grpo", "algorithm grpo"),
])
def test_find_by_arxiv_id_author_and_id(tmp_path: Path, query: str, expected: str) -> None:
    copy_valid(tmp_path)
    code, out = run_find(tmp_path, query)
    assert code == 0 and expected in out, out


def test_find_with_no_match_says_so_and_succeeds(tmp_path: Path) -> None:
    """No match is an answer (the paper is new), not an error: `make find` must not print
    make's "Error 1"."""
    copy_valid(tmp_path)
    code, out = run_find(tmp_path, "no such paper anywhere")
    assert code == 0 and "nothing found: no entry in catalog matches" in out


# --------------------------------------------------------------------------- which file to keep


def test_the_cited_reference_is_kept_whatever_its_name(tmp_path: Path) -> None:
    """A new file for a work already cited is the one to delete, even when its id sorts first."""
    root = copy_valid(tmp_path)
    write_file(root, "references/a_again.yaml",
               reference("Another title", "https://arxiv.org/abs/2402.03300")
               .replace("id: z_again", "id: a_again"))
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.where.startswith("catalog/references/a_again.yaml:")
    assert problem.hint is not None and "cite 'grpo_deepseekmath'" in problem.hint


# --------------------------------------------------------------------------- algorithm names


@pytest.mark.parametrize("name", ["GRPO", "grpo", " Grpo ", "ＧＲＰＯ"])
def test_two_algorithms_with_one_name_are_reported(tmp_path: Path, name: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "name: PPO", f'name: "{name}"')
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.where == "catalog/algorithms/ppo.yaml:2:7: name"
    assert problem.message.startswith("same name as catalog/algorithms/grpo.yaml")


def test_names_that_differ_by_a_symbol_are_different(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "name: PPO", "name: GRPO++")
    assert run_validate(tmp_path, "catalog").code == 0


def test_find_prints_a_hostile_title_as_one_escaped_line() -> None:
    # The validator voids such a title, but find reads what it can of an invalid catalog and
    # prints it on the reviewer's terminal: the line is escaped all the same.
    match = Match("catalog/references/evil.yaml", "reference", "evil",
                  "Leave one out \x1b[2J\u202egnp.exe\n::error::fake", ("title",))
    line = match.format()
    assert "\n" not in line and "\x1b" not in line and "\u202e" not in line
    assert "\\u202e" in line and "::error" in line  # shown, as text, on the same line
