"""Quote-checked locators (issue 43), on copies of the fixture catalog: a locator into a file of
a GitHub repository at a pinned commit quotes the words on the line it names, and ``validate``
checks them in the copy kept under ``<catalog>/sources/github/<owner>/<repo>/<commit>/``. A
moved line, a wrong file, a missing copy or a missing quote fails with the file, the line named
and where the quote actually is. The repository, commit and file here are made up."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

from tinkernomics.catalog import quotes

COMMIT = "0123456789abcdef0123456789abcdef01234567"
KEPT = f"sources/github/example/repo/{COMMIT}"
CONFIG = "# a model config\nhidden = 4096\nparams = 8  # billions\nlayers = 36\n"
MODEL = "models/qwen3-8b.yaml"
LOCATOR = "locator: 'Fixture: price table, \"row Qwen3-8B\"'"
REFERENCE = f"""id: example_repo
title: Example repository
authors: Example
url: https://github.com/example/repo/tree/{COMMIT}
checked: 2026-12-01
"""


def catalog_citing(tmp_path: Path, locator: str) -> Path:
    """The fixture catalog with the model's total_params sourced to a line of a kept file."""
    root = copy_valid(tmp_path)
    write_file(root, "references/example_repo.yaml", REFERENCE)
    write_file(root, f"{KEPT}/src/config.py", CONFIG)
    write_file(root, f"{KEPT}/src/other.py", "size = 'params = 8'\n")
    replace_in(root, MODEL, "source: tinker_pricing_2026_07\n  " + LOCATOR,
               f"source: example_repo\n  locator: '{locator}'")
    return root


def messages(root: Path) -> list[str]:
    run = run_validate(root.parent)
    return [f"{p.where}: {p.message}" for p in run.problems]


def test_a_quote_on_its_line_passes(tmp_path: Path) -> None:
    root = catalog_citing(tmp_path, 'src/config.py line 3 "params = 8"')
    write_file(root, f"{KEPT}/src/settings.yaml", "not: a catalog entry\n")
    run = run_validate(root.parent)
    assert run.code == 0, run.out


@pytest.mark.parametrize(("locator", "expected"), [
    ('src/config.py line 2 "params = 8"',
     'src/config.py line 2: "params = 8" is not on that line; it is at line 3'),
    ('src/config.py line 3 "params = 9"',
     f'"params = 9" is not on that line, nor anywhere in the kept files at {COMMIT[:12]}'),
    ('src/config.py line 1 "size ="',
     '"size =" is not on that line; it is at src/other.py line 1'),
    ('src/missing.py line 3 "params = 8"',
     f"src/missing.py line 3: no copy of the file at {KEPT}/src/missing.py"),
    ("src/config.py line 3 (params)", "src/config.py line 3: the locator quotes nothing"),
    ('src/config.py line 3 (commit fedcba9) "params = 8"',
     "no copy of example/repo at commit fedcba9"),
    ('src/config.py line 40 "params = 8"', "src/config.py line 40: the file has 4 lines"),
])
def test_a_wrong_locator_fails_validate_saying_where(tmp_path: Path, locator: str,
                                                     expected: str) -> None:
    found = messages(catalog_citing(tmp_path, locator))
    assert len(found) == 1, found
    assert found[0].startswith("catalog/models/qwen3-8b.yaml:"), found
    assert "total_params.locator" in found[0] and expected in found[0], found


def test_a_quote_over_several_lines(tmp_path: Path) -> None:
    ok = catalog_citing(tmp_path / "a", 'src/config.py lines 2-3 `hidden = 4096 params = 8`')
    assert run_validate(ok.parent).code == 0
    bad = catalog_citing(tmp_path / "b", 'src/config.py line 2 `hidden = 4096 params = 8`')
    assert "is not on that line" in " ".join(messages(bad))


def test_an_unverified_value_may_point_at_a_line_without_quoting(tmp_path: Path) -> None:
    root = catalog_citing(tmp_path, "src/config.py line 3 (params)")
    replace_in(root, MODEL, "status: reported\n  source: example_repo",
               "status: unverified\n  asserted_by: contributor\n  reported_instead: x\n"
               "  source: example_repo")
    assert run_validate(root.parent).code == 0


@pytest.mark.parametrize(("text", "path", "start", "end", "commit", "quote"), [
    ('a.py line 3 "x = 1"', "a.py", 3, 3, None, "x = 1"),
    ("a/b.sh lines 2-4: `--beta 0`", "a/b.sh", 2, 4, None, "--beta 0"),
    ("@abc1234 src/x.py line 9 (the size) “size: 8”", "src/x.py", 9, 9, "abc1234", "size: 8"),
    ("x.csv line 2 (commit 045df3bf): `a,b`", "x.csv", 2, 2, "045df3bf", "a,b"),
    ("d.mdx lines 8-9 (commit 5f4219e, before it was removed) “x” and “y”", "d.mdx", 8, 9,
     "5f4219e", "x"),
    ("§4.2, Table 1", None, 0, 0, None, None),
])
def test_parse_locator(text: str, path: str | None, start: int, end: int, commit: str | None,
                       quote: str | None) -> None:
    found = quotes.parse_locator(text)
    if path is None:
        assert found is None
        return
    assert found == quotes.FileQuote(path, start, end, commit, quote)


def test_the_reference_url_gives_the_commit_and_the_file() -> None:
    repo = quotes.repo_of(f"https://github.com/o/r/blob/{COMMIT}/src/models/x.py")
    assert repo == quotes.Repo("o", "r", COMMIT, "src/models/x.py")
    assert quotes.repo_of("https://github.com/o/r") == quotes.Repo("o", "r", None, "")
    assert quotes.repo_of("https://example.com/o/r") is None


@pytest.mark.parametrize("url", ["https://github.com/o/r/issues/251",
                                 "https://github.com/o/r/pull/12#issuecomment-1",
                                 "https://github.com/o/r/discussions/3"])
def test_an_issue_or_pull_request_is_a_page_not_a_repository(url: str) -> None:
    assert quotes.repo_of(url) is None
    assert quotes.repo_of("https://github.com/o/issues") == quotes.Repo("o", "issues", None, "")
