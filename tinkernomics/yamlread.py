"""Strict YAML reading with positions (pipeline step 1).

libyaml (PyYAML's C parser) composes the node tree; this module turns nodes into plain data
itself, which lets it (a) keep ``line:col`` for every key and value, (b) resolve plain scalars by
the YAML 1.2 core schema (``1e-5`` is a float, ``no``/``on`` stay strings), and (c) refuse what a
catalog never needs: duplicate keys, anchors/aliases, merge keys, custom tags, non-UTF-8 bytes,
empty or oversized files. Every problem is returned; nothing is raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tinkernomics.problems import FILE_FIELD, Problem, format_loc

try:  # Lesson: the pure-Python loader is ~20x slower; the C one is in every PyYAML wheel.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - only on exotic platforms
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_FILE_BYTES = 256 * 1024
"""Largest catalog file accepted, in bytes. Real entries are a few KiB."""

_TAG = "tag:yaml.org,2002:"
_STANDARD_TAGS = {f"{_TAG}{t}" for t in ("str", "int", "float", "bool", "null", "timestamp",
                                         "map", "seq", "binary", "value")}
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
         "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_INT_OCT = re.compile(r"^0o[0-7]+$")
_INT_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_MAYBE_SPECIAL = re.compile(r"(?:^|[\s\[{,])[&*!][^\s]", re.MULTILINE)

Loc = tuple[str | int, ...]


@dataclass
class YamlDoc:
    """Plain data of one file plus where every node of it stands (1-based line, col)."""

    path: str
    data: Any = None
    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def where(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        """Position of ``loc`` (its key when ``key``), else of its nearest located ancestor."""
        table = self.keys if key else self.values
        if loc in table:
            return table[loc]
        while loc:
            loc = loc[:-1]
            if loc in self.values:
                return self.values[loc]
        return (1, 1)


def resolve_plain(text: str) -> Any:
    """YAML 1.2 core-schema resolution of a plain (unquoted) scalar."""
    if _NULL.match(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text)
    if _INT_OCT.match(text):
        return int(text[2:], 8)
    if _INT_HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return float("-inf") if text.startswith("-") else float("inf")
    if _NAN.match(text):
        return float("nan")
    return text


class _Builder:
    """Walks a composed node tree into plain data, collecting problems."""

    def __init__(self, doc: YamlDoc) -> None:
        self.doc = doc
        self.problems: list[Problem] = []
        self._seen: set[int] = set()

    def problem(self, node: Node, loc: Loc, message: str, hint: str | None = None) -> None:
        mark = node.start_mark
        self.problems.append(Problem(self.doc.path, mark.line + 1, mark.column + 1,
                                     format_loc(loc), message, hint))

    def build(self, node: Node, loc: Loc) -> Any:
        if id(node) in self._seen:
            self.problem(node, loc, "YAML aliases are not allowed",
                         "repeat the value instead of using &anchor / *alias")
            return None
        self._seen.add(id(node))
        self.doc.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if node.tag not in _STANDARD_TAGS:
            self.problem(node, loc, f"custom YAML tag {node.tag!r} is not allowed",
                         "remove the tag; the catalog uses plain YAML")
            return None
        if isinstance(node, MappingNode):
            return self._mapping(node, loc)
        if isinstance(node, SequenceNode):
            return [self.build(item, (*loc, i)) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        if not node.style:  # plain: libyaml says '', the pure-Python parser None
            return resolve_plain(node.value)
        return node.value

    def _mapping(self, node: MappingNode, loc: Loc) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.problem(key_node, loc, "mapping keys must be plain strings")
                continue
            key = key_node.value
            if key == "<<" and key_node.tag == f"{_TAG}merge":
                self.problem(key_node, loc, "YAML merge keys (<<) are not allowed",
                             "write the fields out in full")
                continue
            key_loc = (*loc, key)
            if key in out or key_loc in self.doc.keys:
                first = self.doc.keys[key_loc][0]
                self.problem(key_node, key_loc, f"duplicate key {key!r}",
                             f"first defined on line {first}; keep one")
                continue
            self.doc.keys[key_loc] = (key_node.start_mark.line + 1,
                                      key_node.start_mark.column + 1)
            out[key] = self.build(value_node, key_loc)
        return out


def _decode(raw: bytes, path: str) -> tuple[str | None, list[Problem]]:
    if len(raw) > MAX_FILE_BYTES:
        return None, [Problem(path, 1, 1, FILE_FIELD,
                              f"file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}",
                              "split the entry or shorten its prose")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        col = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        return None, [Problem(path, line, col, FILE_FIELD,
                              f"invalid UTF-8 byte 0x{raw[err.start]:02x}",
                              "save the file as UTF-8")]
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        return None, [Problem(path, 1, 1, FILE_FIELD, "file is empty",
                              "fill it in or delete it")]
    return text, []


def _event_problems(text: str, path: str) -> list[Problem]:
    """Anchors and explicit tags, which composition hides; only run when text hints at them."""
    problems = []
    for event in yaml.parse(text, Loader=_Loader):
        mark = event.start_mark
        where = (path, mark.line + 1, mark.column + 1)
        anchor = getattr(event, "anchor", None)
        if anchor and not isinstance(event, yaml.AliasEvent):
            problems.append(Problem(*where, FILE_FIELD, f"YAML anchor &{anchor} is not allowed",
                                    "repeat the value instead of using &anchor / *alias"))
    return problems


def read_yaml(raw: bytes, path: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse one file's bytes. Returns the document (None when unusable) and its problems."""
    text, problems = _decode(raw, path)
    if text is None:
        return None, problems
    doc = YamlDoc(path)
    try:
        node = yaml.compose(text, Loader=_Loader)
        if _MAYBE_SPECIAL.search(text):
            problems.extend(_event_problems(text, path))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = " ".join(str(x) for x in (err.context, err.problem) if x)
        return None, [Problem(path, line, col, FILE_FIELD, f"invalid YAML: {message}")]
    except yaml.YAMLError as err:  # pragma: no cover - libyaml always marks its errors
        return None, [Problem(path, 1, 1, FILE_FIELD, f"invalid YAML: {err}")]
    if node is None:
        return None, [Problem(path, 1, 1, FILE_FIELD, "file is empty", "fill it in or delete it")]
    builder = _Builder(doc)
    doc.data = builder.build(node, ())
    problems.extend(builder.problems)
    if not isinstance(doc.data, dict):
        problems.append(Problem(path, 1, 1, FILE_FIELD,
                                "the top level must be a mapping of field: value"))
        return None, problems
    return doc, problems
