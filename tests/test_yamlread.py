"""The strict YAML reader: YAML 1.2 core-schema scalars, positions, refusals, speed guards."""

from __future__ import annotations

import math
import random
import re

import pytest
import yaml

from tinkernomics.catalog import yamlguard, yamlloader, yamlread
from tinkernomics.catalog.yamlread import MAX_FILE_BYTES, read_yaml, resolve_plain

# --------------------------------------------------------------------------- resolve_plain

CORE_SCHEMA = [
    # null
    ("", None), ("~", None), ("null", None), ("Null", None), ("NULL", None),
    # booleans: only the six spellings of true/false
    ("true", True), ("True", True), ("TRUE", True),
    ("false", False), ("False", False), ("FALSE", False),
    # integers: decimal only (0o octal, 0x hex and leading zeros are refused: see yamlscalars)
    ("0", 0), ("42", 42), ("-17", -17), ("+5", 5),
    # floats, including exponents without a dot or a sign (YAML 1.1 reads those as text)
    ("1e-5", 1e-5), ("1E5", 1e5), ("6.02e23", 6.02e23), ("+1.5e+3", 1500.0), (".5", 0.5),
    ("-.5", -0.5), ("1.", 1.0), ("3.14", 3.14), ("8.0e9", 8.0e9),
]

STAY_TEXT = [
    # YAML 1.1 booleans
    "yes", "no", "on", "off", "y", "n", "Yes", "No", "On", "Off", "YES", "NO", "ON", "OFF",
    # YAML 1.1 numbers and timestamps that YAML 1.2 reads as text
    "1_000", "0b101", "1:30", "2026-07-17", "2026-07-17T10:00:00Z", "0o8", "0xG",
    # near misses
    "nULL", "tRUE", "e5", "1e", ".", "-", "+", "1.2.3", "4,000", "v1.0", "=", "<<", "inf", "nan",
    "none", "None", "flops", "tflops", "tokens", "note",
]


@pytest.mark.parametrize(("text", "expected"), CORE_SCHEMA)
def test_resolve_plain_core_schema(text: str, expected: object) -> None:
    value = resolve_plain(text)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize("text", STAY_TEXT)
def test_resolve_plain_keeps_text(text: str) -> None:
    assert resolve_plain(text) == text


@pytest.mark.parametrize("text", [".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN"])
def test_resolve_plain_non_finite(text: str) -> None:
    value = resolve_plain(text)
    assert isinstance(value, float)
    assert not math.isfinite(value)
    if text.startswith("-"):
        assert value < 0


def test_pyyaml_default_resolution_differs() -> None:
    """Why the reader resolves scalars itself: PyYAML's safe loader follows YAML 1.1."""
    loaded = yaml.safe_load("a: 1e-5\nb: no\nc: on\nd: 2026-07-17\ne: 1_000\n")
    assert loaded == {"a": "1e-5", "b": False, "c": True,
                      "d": loaded["d"], "e": 1000}
    assert not isinstance(loaded["d"], str)
    doc, problems = read_yaml(b"a: 1e-5\nb: no\nc: on\nd: 2026-07-17\ne: 1_000\n", "f.yaml")
    assert problems == []
    assert doc is not None
    assert doc.data == {"a": 1e-5, "b": "no", "c": "on", "d": "2026-07-17", "e": "1_000"}


def test_quoted_and_block_scalars_are_text() -> None:
    doc, problems = read_yaml(b'a: "5"\nb: \'true\'\nc: |\n  1e-5\nd: >-\n  no\n', "f.yaml")
    assert problems == []
    assert doc is not None
    assert doc.data == {"a": "5", "b": "true", "c": "1e-5\n", "d": "no"}


# --------------------------------------------------------------------------- positions

TEXT = """\
# comment
id: x
outer:
  inner: 1
  items:
    - a
    - {k: v, n: 2}
flow: [1, 2]
"""


@pytest.mark.parametrize(("loc", "key", "expected"), [
    (("id",), False, (2, 5)),
    (("id",), True, (2, 1)),
    (("outer",), False, (4, 3)),
    (("outer", "inner"), False, (4, 10)),
    (("outer", "inner"), True, (4, 3)),
    (("outer", "items", 0), False, (6, 7)),
    (("outer", "items", 1, "n"), False, (7, 17)),
    (("outer", "items", 1, "n"), True, (7, 14)),
    (("flow", 1), False, (8, 11)),
    (("outer", "missing"), False, (4, 3)),    # nearest located ancestor
    (("outer", "missing"), True, (4, 3)),
    (("outer", "items", 9), False, (6, 5)),
    ((), False, (2, 1)),
])
def test_where(loc: tuple[str | int, ...], key: bool, expected: tuple[int, int]) -> None:
    doc, problems = read_yaml(TEXT.encode(), "f.yaml")
    assert problems == []
    assert doc is not None
    assert doc.where(loc, key=key) == expected


def test_positions_with_bom_and_crlf() -> None:
    doc, problems = read_yaml(b"\xef\xbb\xbfa: 1\r\nb:\r\n  c: x\r\n", "f.yaml")
    assert problems == []
    assert doc is not None
    assert doc.data == {"a": 1, "b": {"c": "x"}}
    assert doc.where(("b", "c")) == (3, 6)


# --------------------------------------------------------------------------- refusals


def _formatted(text: str | bytes) -> list[str]:
    raw = text.encode() if isinstance(text, str) else text
    return [p.format() for p in read_yaml(raw, "f.yaml")[1]]


@pytest.mark.parametrize(("text", "expected"), [
    ("a: 1\na: 2\n", "f.yaml:2:1: a: duplicate key 'a' (hint: first defined on line 1; keep one)"),
    ("a:\n  b: 1\n  b: 2\n", "f.yaml:3:3: a.b: duplicate key 'b'"),
    ("a: &x 1\n", "f.yaml:1:4: a: YAML anchor &x is not allowed"),
    ("a: !thing 1\n", "f.yaml:1:4: a: custom YAML tag '!thing' is not allowed"),
    ("a:\n  <<: {b: 1}\n", "f.yaml:2:3: a: YAML merge keys (<<) are not allowed"),
    ("? [a, b]\n: 1\n", "f.yaml:1:3: (file): mapping keys must be plain strings"),
    ("a: .nan\n", "f.yaml:1:4: a: numbers must be finite"),
    ("- a\n", "f.yaml:1:1: (file): the top level must be a mapping of field: value"),
    ("just text\n", "f.yaml:1:1: (file): the top level must be a mapping of field: value"),
    ("a: [1\n", "f.yaml:2:1: (file): invalid YAML: while parsing a flow sequence"),
    (b"a: \xc3\x28\n", "f.yaml:1:4: (file): invalid UTF-8 byte 0xc3"),
    (b"a: 1\nb: \xff\n", "f.yaml:2:4: (file): invalid UTF-8 byte 0xff"),
])
def test_refusals(text: str | bytes, expected: str) -> None:
    found = _formatted(text)
    assert len(found) == 1, found
    assert found[0].startswith(expected)


@pytest.mark.parametrize(("text", "data", "where"), [
    ("a:\n\tb: 1\n", {"a": {"b": 1}}, [(2, 1)]),
    ("a:\n  b: 1\n\tc: 2\n", {"a": {"b": 1, "c": 2}}, [(3, 1)]),
    ("a: 1\nb:\n\t- x\n\t- y\nc: 3\n", {"a": 1, "b": ["x", "y"], "c": 3}, [(3, 1), (4, 1)]),
])
def test_a_tab_is_reported_and_the_file_read_on(text: str, data: dict, where: list) -> None:
    """Each tab is a problem at its own place, and the file is read as if it were spaces, so
    the same run reports everything else in it."""
    doc, problems = read_yaml(text.encode(), "f.yaml")
    assert [(p.line, p.col) for p in problems] == where
    assert all("YAML indents with spaces, never tabs" in (p.hint or "") for p in problems)
    assert doc is not None and doc.data == data


def test_positions_after_a_tab_are_those_of_the_file_as_written() -> None:
    doc, _ = read_yaml(b"a:\n\t\tb: x\n", "f.yaml")
    assert doc is not None and doc.where(("a", "b")) == (2, 6)


def test_a_tab_and_another_syntax_error_are_both_reported() -> None:
    problems = read_yaml(b'a:\n\tb: 1\nc: "open\n', "f.yaml")[1]
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (2, "a tab character in YAML"), (4, "invalid YAML")]


@pytest.mark.parametrize(("text", "hint"), [
    ("note: Step 1: sample\n", "a value that contains ': ' needs quotes"),
    ("a:\n  b: 1\n   c: 2\n", "line 3 is indented differently from the field above it"),
])
def test_cryptic_yaml_errors_get_the_usual_fix(text: str, hint: str) -> None:
    [problem] = read_yaml(text.encode(), "f.yaml")[1]
    assert problem.message.startswith("invalid YAML:")
    assert problem.hint is not None and hint in problem.hint, problem.hint


def test_other_yaml_errors_get_no_guessed_fix() -> None:
    [problem] = read_yaml(b'a: "open\n', "f.yaml")[1]
    assert problem.message.startswith("invalid YAML:")
    assert problem.hint is None or ("tab" not in problem.hint and "quotes" not in problem.hint)


@pytest.mark.parametrize("text", ["", "\n\n", "   \n", "# only a comment\n", "---\n", "---\n...\n"])
def test_empty(text: str) -> None:
    assert _formatted(text) == ["f.yaml:1:1: (file): file is empty (hint: fill it in or delete it)"]


def test_size_limit() -> None:
    raw = b"a: " + b"x" * MAX_FILE_BYTES + b"\n"
    assert _formatted(raw) == [
        f"f.yaml:1:1: (file): file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES} "
        "(hint: split the entry or shorten its prose)"]


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    found = _formatted("a: " + "[" * 600 + "]" * 600 + "\n")
    deep = "a" + "[0]" * yamlread.MAX_DEPTH  # located at the first list too deep
    assert found == [f"f.yaml:1:{4 + yamlread.MAX_DEPTH}: {deep}: nested too deep (more than "
                     f"{yamlread.MAX_DEPTH} levels) "
                     "(hint: catalog entries nest a few levels at most)"]


def test_alias_is_located_at_the_alias_and_its_value_marked_broken() -> None:
    doc, problems = read_yaml(b"a: &x 1\nb:\n  - 2\n  - *x\n", "f.yaml")
    assert [p.format().split(" (hint")[0] for p in problems] == [
        "f.yaml:4:5: b[1]: YAML aliases are not allowed",
        "f.yaml:1:4: a: YAML anchor &x is not allowed",
    ]
    assert doc is not None
    assert doc.data == {"a": 1, "b": [2, None]}
    assert doc.is_broken(("b", 1))
    assert not doc.is_broken(("b", 0))


def test_recursive_alias_terminates() -> None:
    found = _formatted("a: &x [1, *x]\n")
    assert any("aliases are not allowed" in line for line in found)


def test_merge_text_as_a_value_is_text() -> None:
    doc, problems = read_yaml(b"a: <<\n", "f.yaml")
    assert problems == []
    assert doc is not None and doc.data == {"a": "<<"}


# Every place an anchor, alias or tag can start a node. The reader only re-scans the event
# stream when a cheap regex says one may be there: this guards that regex against misses.
SPECIAL_IN_EVERY_POSITION = [
    "a: &x 1\n",
    "a:\t&x 1\n",
    "a:\n  &x 1\n",
    "a:\n  - &x 1\n",
    "a: [&x 1]\n",
    "a: [1, &x 2]\n",
    "a: [1,&x 2]\n",
    "a: {b: &x 1}\n",
    "a: {b: 1, c: &x 2}\n",
    "a: [\n  1,\n  &x 2\n]\n",
    "--- &x\na: 1\n",
    "? &x a\n: 1\n",
    "a: !t 1\n",
    "a:\n  - !t 1\n",
    "a: [!t 1]\n",
    "!t\na: 1\n",
    "a: b\nc: !!python/object:x {}\n",
]


@pytest.mark.parametrize("text", SPECIAL_IN_EVERY_POSITION)
def test_anchors_and_tags_are_found_anywhere(text: str) -> None:
    found = _formatted(text)
    assert any("anchor" in line or "tag" in line for line in found), found


def test_markdown_emphasis_does_not_trigger_the_event_scan() -> None:
    text = ("notes: >-\n  About **2x** faster, see *this* & that.\n"
            "claims:\n  - text: A **bold** claim with a * star\n")
    assert not yamlguard.maybe_special(text)
    doc, problems = read_yaml(text.encode(), "f.yaml")
    assert problems == []
    assert doc is not None and "**2x**" in doc.data["notes"]


def test_reader_uses_the_c_parser() -> None:
    """Lesson: a silent fallback to the pure-Python parser made validation 5x slower."""
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML built without libyaml")
    from yaml.cyaml import CParser

    assert issubclass(yamlloader.LOADER, CParser)


_ONE_PATTERN = re.compile(
    r"(?:^|(?<=[\r\x85\u2028\u2029])|[-?:\[{,])[ \t\ufeff]*[&*!]\S", re.MULTILINE)
"""What ``maybe_special`` answered with before it looked back from each indicator."""


def test_special_scan_agrees_with_one_pattern_over_every_start() -> None:
    pieces = ("a", ":", " ", "\t", "\ufeff", "\n", "\r", "\x85", "\u2028", "-", "?", "[", "{",
              ",", "&", "*", "!", "**", "x", "é")
    rng = random.Random(47)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        assert yamlguard.maybe_special(text) == bool(_ONE_PATTERN.search(text)), repr(text)
