"""YAML is read one way (issue 40): tags, anchors and aliases are refused whatever the line
endings, line breaks a diff may not show are refused at their place, an alias bomb is refused
without being expanded, and numbers are decimal.

Before, a scan for tags and anchors ran only where a pattern matched after ``\\n``: with
``\\r`` line endings ``year:\\r  !!python/object/apply:os.system 2024`` read "catalog OK" and a
13 KB alias bomb kept ``validate`` running past 40 s at 2.9 GB.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tinkernomics.catalog import yamlread
from tinkernomics.catalog.yamlread import read_yaml

BREAKS = {"cr": "\r", "crlf": "\r\n", "nel": "\x85", "ls": "\u2028", "ps": "\u2029", "lf": "\n"}


def _read(text: str) -> tuple[object, list[str]]:
    doc, problems = read_yaml(text.encode("utf-8"), "f.yaml")
    return (doc.data if doc else None), [p.format() for p in problems]


PAYLOADS = {
    "tag": ("id: x{n}year:{n}  !!python/object/apply:os.system 2024{n}",
            "f.yaml:3:3: year: custom YAML tag"),
    "tag_flow": ("id: x{n}year: [!!python/name:os.system 1]{n}",
                 "f.yaml:2:8: year[0]: custom YAML"),
    "alias": ("id: x{n}a: [1]{n}b: *x{n}", "f.yaml:3:4: b: YAML aliases are not allowed"),
    "anchor": ("id: x{n}a: &x [1]{n}b: *x{n}", "f.yaml:3:4: b: YAML aliases are not allowed"),
    "anchor_alone": ("id: x{n}a:{n}  &x [1]{n}", "f.yaml:3:3: a: YAML anchor &x is not allowed"),
    "local_tag": ("id: x{n}a:{n}  - !thing 1{n}", "f.yaml:3:5: a[0]: custom YAML tag '!thing'"),
}


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_tags_anchors_aliases_refused_whatever_the_line_breaks(payload: str, brk: str) -> None:
    template, expected = PAYLOADS[payload]
    text = template.format(n=BREAKS[brk])
    if payload == "alias":  # an alias to an undefined anchor is a syntax error: define it
        text = text.replace("a: [1]", "a: &x [1]")
    _, found = _read(text)
    assert any(line.startswith(expected) for line in found), found
    odd = [line for line in found if "line break" in line]
    assert bool(odd) == (brk not in ("lf", "crlf")), found


def test_the_issue_case_is_an_error_at_its_line() -> None:
    data, found = _read("year:\r  !!python/object/apply:os.system 2024\n")
    assert data == {"year": None}
    assert found[0].startswith("f.yaml:1:6: (file): line break a carriage return (CR) without a "
                               "line feed is not allowed in YAML")
    assert found[1].startswith("f.yaml:2:3: year: custom YAML tag "
                               "'tag:yaml.org,2002:python/object/apply:os.system' is not allowed")


@pytest.mark.parametrize("brk", ["\r", "\x85", "\u2028", "\u2029"])
def test_odd_line_breaks_are_refused_at_their_place_even_in_clean_files(brk: str) -> None:
    data, found = _read(f"a: 1\nb: 2{brk}c: 3{brk}")
    assert data == {"a": 1, "b": 2, "c": 3}
    assert len(found) == 1 and found[0].startswith("f.yaml:2:5: (file): line break "), found
    assert "(2 in the file)" in found[0]


def test_crlf_reads_as_lf() -> None:
    text = "id: x\nnotes: >-\n  two\n  lines\nlist: [1, 2]\n"
    assert _read(text.replace("\n", "\r\n")) == _read(text) == (
        {"id": "x", "notes": "two lines", "list": [1, 2]}, [])


def test_the_reader_refuses_tags_and_aliases_without_the_text_scan(monkeypatch) -> None:
    """The scan only decides what is worth a second parse: with it blind, a tag or an alias
    still sends the file to the careful reader, never into the data."""
    monkeypatch.setattr(yamlread, "maybe_special", lambda text: False)
    _, found = _read("a: !!python/object/apply:os.system 1\n")
    assert any("custom YAML tag" in line for line in found), found
    data, found = _read("a: &x [1, 2]\nb: *x\n")
    assert data == {"a": [1, 2], "b": None}
    assert any(": b: YAML aliases are not allowed" in line for line in found), found


def test_the_value_budget(monkeypatch) -> None:
    monkeypatch.setattr(yamlread, "MAX_NODES", 10)
    _, found = _read("a: [" + ", ".join(["1"] * 20) + "]\n")
    assert any("the file holds more than 10 values" in line for line in found), found


BOMB = textwrap.dedent("""\
    import resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    from tinkernomics.catalog.yamlread import read_yaml
    brk = sys.argv[1].encode().decode("unicode_escape")
    lines = ["a0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 200)]
    text = brk.join(lines) + brk
    assert len(text.encode()) > 13_000
    doc, problems = read_yaml(text.encode(), "bomb.yaml")
    print(sum("aliases are not allowed" in p.message for p in problems))
""")


@pytest.mark.parametrize("brk", ["\\n", "\\r", "\\r\\n", "\\u2028", "\\x85"])
def test_an_alias_bomb_is_refused_without_being_expanded(brk: str) -> None:
    """In a process limited to 1 GiB (the bomb took 2.9 GB before), ended after 60 s at most."""
    done = subprocess.run([sys.executable, "-c", BOMB, brk], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) == 199 * 9


@pytest.mark.parametrize(("text", "expected"), [
    ("year: 0x7e8\n", "f.yaml:1:7: year: integer 0x7e8 is not written in decimal"),
    ("year: 0o3750\n", "f.yaml:1:7: year: integer 0o3750 is not written in decimal"),
    ("year: 02024\n", "f.yaml:1:7: year: integer 02024 has a leading zero"),
    ("year: -012\n", "f.yaml:1:7: year: integer -012 has a leading zero"),
])
def test_integers_are_decimal(text: str, expected: str) -> None:
    data, found = _read(text)
    assert data == {"year": None}
    assert len(found) == 1 and found[0].startswith(expected), found


def test_underscored_integers_stay_text() -> None:
    """YAML 1.2 reads ``2_024`` as text (the models then refuse it where a number goes)."""
    assert _read("year: 2_024\n") == ({"year": "2_024"}, [])


@pytest.mark.parametrize(("escape", "code"), [
    ("\\e[31m", "001B"), ("\\0", "0000"), ("\\x9b", "009B"), ("\\a", "0007"), ("\\r", "000D"),
    ("\\N", "0085"), ("\\L", "2028"), ("\\P", "2029"), ("\\x7f", "007F"),
])
def test_control_characters_written_as_escapes_are_refused(escape: str, code: str) -> None:
    """A double-quoted scalar writes any character with an escape: a name with ESC reached
    pages, CSV cells and terminals before."""
    data, found = _read(f'name: "PP{escape}O"\nok: "tab\\tand\\nline"\n')
    assert data == {"name": None, "ok": "tab\tand\nline"}
    assert len(found) == 1 and found[0].startswith(
        f"f.yaml:1:7: name: control character U+{code} is not allowed in catalog text"), found
