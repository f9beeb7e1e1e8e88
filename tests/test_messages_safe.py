"""`validate`'s messages are safe on a terminal and in CI (issue 40): catalog text quoted in a
message (keys, values, file names) cannot drive the terminal, hide characters, print a fake
"catalog OK" or start a GitHub workflow command. Before, ESC, NUL and ``\\n::error ...`` in a key
were printed raw.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

from tinkernomics.catalog.problems import Problem, printable

HOSTILE = {
    "esc": ("\\e[2K\\rcatalog OK: 9 entries checked", "\x1b"),
    "nul": ("a\\0b", "\x00"),
    "newline": ("x\\n::error file=catalog/x.yaml,line=1::forged", "\n"),
    "cr": ("x\\r::warning::forged", "\r"),
    "bidi": ("abc\\u202Edef", "\u202e"),
    "isolate": ("abc\\u2066def", "\u2066"),
    "nel": ("a\\Nb", "\x85"),
    "line_separator": ("a\\Lb", "\u2028"),
    "bell": ("a\\ab", "\x07"),
    "c1_csi": ("a\\x9b2Jb", "\x9b"),
}
"""YAML double-quoted escapes (as a contributor writes them) and the character each makes."""


def _checked(out: str, char: str) -> list[str]:
    assert char not in out.replace("\n", "")  # line feeds end the lines printed, nothing more
    assert "\x1b" not in out and "\x00" not in out and "\r" not in out
    lines = out.split("\n")
    assert not any(line.startswith("catalog OK") for line in lines), out
    return lines


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_key_is_escaped_in_validate_and_in_annotations(tmp_path: Path,
                                                                 name: str) -> None:
    escape, char = HOSTILE[name]
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "async_support: false\n",
               f'async_support: false\n"{escape}": 1\n')
    run = run_validate(tmp_path, "catalog", github=True)
    assert run.code == 1
    lines = _checked(run.out + run.err, char)
    commands = [line for line in lines if line.startswith("::")]
    assert len(commands) == 1 and commands[0].startswith(
        "::error file=catalog/algorithms/ppo.yaml,line=17,col=1::"), lines
    assert printable(char) in commands[0]
    assert len(lines) == 4, lines  # the problem, its annotation, the count, the final newline
    assert lines[0].startswith("catalog/algorithms/ppo.yaml:17:1: ")
    assert ": unknown field " in lines[0] and printable(char) in lines[0]


@pytest.mark.parametrize("name", ["esc", "newline", "bidi", "nul"])
def test_a_hostile_value_is_escaped(tmp_path: Path, name: str) -> None:
    escape, char = HOSTILE[name]
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "memory_profile: high",
               f'memory_profile: "{escape}"')
    run = run_validate(tmp_path, "catalog", github=True)
    assert run.code == 1
    lines = _checked(run.out + run.err, char)
    assert sum(line.startswith("::") for line in lines) == 1, lines


def test_a_hostile_file_name_cannot_add_annotation_properties(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "algorithms/x,line=1,title=forged:.yaml", "id: [\n")
    run = run_validate(tmp_path, "catalog", github=True)
    command = next(line for line in run.out.splitlines() if line.startswith("::error"))
    assert command.startswith(
        "::error file=catalog/algorithms/x%2Cline=1%2Ctitle=forged%3A.yaml,line="), command


def test_every_part_of_a_problem_is_escaped() -> None:
    problem = Problem("catalog/a\x1b.yaml", 1, 2, "f\u202e", "m\n::error::x", "h\x00")
    assert problem.format() == "catalog/a\\x1b.yaml:1:2: f\\u202e: m\\n::error::x (hint: h\\x00)"
    assert "\n" not in problem.github() and problem.github().count("::") == 4
    assert printable("été, 中文, π ≤ 2 — ok") == "été, 中文, π ≤ 2 — ok"
    assert printable("\t\u2029\U000e0001\ud800") == "\\t\\u2029\\U000e0001\\ud800"
