"""Strict YAML reading with positions (pipeline step 1).

libyaml (PyYAML's C parser) composes the node tree; this module turns nodes into plain data
itself, which lets it (a) locate every key and value (``YamlDoc.where``), (b) resolve plain
scalars by the YAML 1.2 core schema (``1e-5`` is a float, ``no``/``on`` stay strings), and
(c) refuse what a catalog never needs: duplicate keys, anchors/aliases, merge keys, custom tags,
non-finite or oversized numbers (``yamlscalars``), nesting deeper than ``MAX_DEPTH``, control
characters, non-UTF-8 bytes, empty or oversized files, each at its line:col; syntax errors are
``yamlsyntax``'s (which reads on after a tab); line breaks a diff may not show and the budget of
values are ``yamlguard``'s. No alias is ever expanded. Every problem is returned; nothing is
raised.

Speed (benchmarks/bench_validate.py): a clean file takes a fast path that builds plain data and
nothing else. Positions are looked up in the node tree only when a problem needs one; the tree is
then composed again from the kept text (lesson: keeping 10,000 node trees alive made the cyclic
garbage collector re-scan them all, slowing composition 6x). Only a file with something to report
is rebuilt by the careful builder, which tracks where it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tinkernomics.catalog.problems import FILE_FIELD, Problem, format_loc
from tinkernomics.catalog.yamlguard import (
    CONTROL_HINT,
    MAX_NODES,
    escaped_control,
    maybe_special,
    odd_breaks,
    too_many,
)
from tinkernomics.catalog.yamlloader import DEFAULT_TAGS, LOADER, TAG
from tinkernomics.catalog.yamlscalars import Refused, resolve_plain
from tinkernomics.catalog.yamlsyntax import (
    Untabbed,
    left_problem,
    syntax_problem,
    tab_problems,
    untab,
)

MAX_FILE_BYTES = 256 * 1024
"""Largest catalog file accepted, in bytes. Real entries are a few KiB."""

_STANDARD_TAGS = {f"{TAG}{t}" for t in ("str", "int", "float", "bool", "null", "timestamp",
                                         "map", "seq", "binary", "value")}
"""Explicit tags that are at least YAML's own (``!!str``); any other tag is refused."""
MAX_DEPTH = 32
"""Deepest nesting accepted (catalog entries nest four levels at most). Deeper values are
refused where they start, before the JSON step (pydantic stops at about 200 levels)."""
Loc = tuple[str | int, ...]


def _position(node: Node) -> tuple[int, int]:
    mark = node.start_mark
    return mark.line + 1, mark.column + 1


@dataclass
class YamlDoc:
    """Plain data of one file and its node tree, which knows where every key and value stands."""

    path: str
    data: Any = None
    """The plain data read (``loader`` drops it once the entry's model is validated)."""
    text: str = ""
    """The file's text: composed again, once, when a position is asked for."""
    broken: set[Loc] = field(default_factory=set)
    """Locations whose value the reader already refused (alias, tag, non-finite number); the
    models' complaints about them are follow-on noise and are dropped."""
    shifts: dict[int, int] = field(default_factory=dict)
    """Line -> columns its text moved right when tabs were read as spaces (``yamlsyntax``)."""
    _root: Node | None = field(default=None, repr=False)

    @property
    def root(self) -> Node | None:
        if self._root is None and self.text:
            self._root = yaml.compose(self.text, Loader=LOADER)
        return self._root

    def where(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        """Position (1-based line, col) of ``loc``'s value (its key when ``key``), else of its
        nearest located ancestor, in the file as written."""
        line, col = self._where(loc, key=key)
        return line, col - self.shifts.get(line, 0)

    def _where(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        node = self.root
        if node is None:
            return (1, 1)
        found = _position(node)
        for depth, step in enumerate(loc):
            key_node, child = _child(node, step)
            if child is None:
                return found
            if key and key_node is not None and depth == len(loc) - 1:
                return _position(key_node)
            node, found = child, _position(child)
        return found

    def is_broken(self, loc: Loc) -> bool:
        """True if ``loc`` is, or lies inside, a value the reader refused."""
        return any(loc[: len(b)] == b for b in self.broken)


def _child(node: Node, step: str | int) -> tuple[Node | None, Node | None]:
    """(key node, value node) of ``step`` under ``node``; the first of duplicate keys."""
    if isinstance(node, MappingNode) and isinstance(step, str):
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.value == step:
                return key_node, value_node
    elif isinstance(node, SequenceNode) and isinstance(step, int) and \
            0 <= step < len(node.value):
        return None, node.value[step]
    return None, None


def _is_merge(key_node: ScalarNode) -> bool:
    """A plain `<<` key: YAML 1.1's merge key (plain `<<` as a value is just text)."""
    return key_node.value == "<<" and not key_node.style


class _Careful(Exception):
    """The fast path met something to report; the careful builder takes over."""


class _Fast:
    """Plain data of a clean tree. Anything to report sends the file to the careful builder: an
    explicit tag, a node met twice (an alias: composition shares the anchored node, and building
    it again is how an alias bomb grows), a merge key, a duplicate key, a refused number, deep
    nesting. Tags and aliases are checked here although a clean text scan found none: the scan
    decides what is worth a second parse, never what is safe."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.count = 0

    def build(self, node: Node, depth: int = 0) -> Any:
        cls = type(node)
        self.count += 1
        if node.tag != DEFAULT_TAGS[cls] or self.count > MAX_NODES:
            raise _Careful
        if cls is ScalarNode:
            style = node.style  # type: ignore[attr-defined]  # cls is ScalarNode, exactly
            if style:  # quoted or block: a string (libyaml says '' for plain, Python None)
                if style == '"' and escaped_control(node.value):
                    raise _Careful
                return node.value
            value = resolve_plain(node.value)
            if (type(value) is float and not math.isfinite(value)) or type(value) is Refused:
                raise _Careful
            return value
        if depth > MAX_DEPTH or id(node) in self.seen:
            raise _Careful
        self.seen.add(id(node))
        if cls is MappingNode:
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if type(key_node) is not ScalarNode or _is_merge(key_node):
                    raise _Careful
                key = key_node.value
                if key in out:
                    raise _Careful
                out[key] = self.build(value_node, depth + 1)
            return out
        return [self.build(item, depth + 1) for item in node.value]


@dataclass
class _Special:
    """Anchors and aliases found in the event stream (composition hides them)."""

    anchors: list[tuple[int, int, str]] = field(default_factory=list)
    aliases: list[tuple[int, int]] = field(default_factory=list)


def _scan_events(text: str) -> _Special:
    special = _Special()
    for event in yaml.parse(text, Loader=LOADER):
        mark = event.start_mark
        anchor = getattr(event, "anchor", None)
        if mark is None:
            continue
        if isinstance(event, yaml.AliasEvent):
            special.aliases.append((mark.line + 1, mark.column + 1))
        elif anchor:
            special.anchors.append((mark.line + 1, mark.column + 1, anchor))
    return special


class _Builder:
    """Walks a composed node tree into plain data, tracking locations and collecting problems."""

    def __init__(self, doc: YamlDoc, special: _Special) -> None:
        self.doc = doc
        self.problems: list[Problem] = []
        self._seen: set[int] = set()
        self._aliases = iter(special.aliases)
        self.located: dict[tuple[int, int], Loc] = {}
        """First location built at each position (maps anchors to fields)."""

    def problem(self, where: tuple[int, int], loc: Loc, message: str,
                hint: str | None = None) -> None:
        self.problems.append(Problem(self.doc.path, *where, format_loc(loc), message, hint))

    def refuse(self, where: tuple[int, int], loc: Loc, message: str, hint: str) -> None:
        self.problem(where, loc, message, hint)
        self.doc.broken.add(loc)

    def build(self, node: Node, loc: Loc) -> Any:
        if id(node) in self._seen:  # composition turned an alias into its anchored node
            where = next(self._aliases, None) or _position(node)
            self.refuse(where, loc, "YAML aliases are not allowed",
                        "repeat the value instead of using &anchor / *alias")
            return None
        self._seen.add(id(node))
        if len(self._seen) > MAX_NODES:  # reported once, then nothing more is built
            if len(self._seen) == MAX_NODES + 1:
                self.problems.append(too_many(self.doc.path, _position(node), format_loc(loc),
                                              MAX_NODES))
            return None
        self.located.setdefault(_position(node), loc)
        if node.tag not in _STANDARD_TAGS:
            self.refuse(_position(node), loc, f"custom YAML tag {node.tag!r} is not allowed",
                        "remove the tag; the catalog uses plain YAML")
            return None
        if len(loc) > MAX_DEPTH and not isinstance(node, ScalarNode):
            self.refuse(_position(node), loc, f"nested too deep (more than {MAX_DEPTH} levels)",
                        "catalog entries nest a few levels at most")
            return None
        if isinstance(node, MappingNode):
            return self._mapping(node, loc)
        if isinstance(node, SequenceNode):
            return [self.build(item, (*loc, i)) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        if node.style == '"' and (why := escaped_control(node.value)):
            self.refuse(_position(node), loc, why, CONTROL_HINT)
            return None
        if node.style:
            return node.value
        value = resolve_plain(node.value)
        if isinstance(value, Refused):
            self.refuse(_position(node), loc, value.message, value.hint)
            return None
        if isinstance(value, float) and not math.isfinite(value):
            self.refuse(_position(node), loc, "numbers must be finite",
                        "write a number; .inf and .nan are not catalog figures")
            return None
        return value

    def _mapping(self, node: MappingNode, loc: Loc) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.problem(_position(key_node), loc, "mapping keys must be plain strings")
                continue
            key = key_node.value
            if _is_merge(key_node):
                self.problem(_position(key_node), loc, "YAML merge keys (<<) are not allowed",
                             "write the fields out in full")
                continue
            if key in first_line:
                self.problem(_position(key_node), (*loc, key), f"duplicate key {key!r}",
                             f"first defined on line {first_line[key]}; keep one")
                continue
            first_line[key] = _position(key_node)[0]
            out[key] = self.build(value_node, (*loc, key))
        return out

    def anchor_problems(self, special: _Special) -> None:
        for line, col, name in special.anchors:
            loc = self.located.get((line, col))
            self.problems.append(Problem(
                self.doc.path, line, col, FILE_FIELD if loc is None else format_loc(loc),
                f"YAML anchor &{name} is not allowed",
                "repeat the value instead of using &anchor / *alias"))


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
    return text, []


def _empty(path: str) -> list[Problem]:
    return [Problem(path, 1, 1, FILE_FIELD, "file is empty", "fill it in or delete it")]


def _build(doc: YamlDoc, node: Node, special: _Special | None, problems: list[Problem]) -> Any:
    """Plain data of ``node``: the fast path, or the careful builder when there is a problem."""
    try:
        if special is not None:
            raise _Careful
        return _Fast().build(node)
    except _Careful:
        doc._root = node  # problems ahead: keep the tree for their positions
        builder = _Builder(doc, special or _Special())
        data = builder.build(node, ())
        builder.anchor_problems(special or _Special())
        problems.extend(builder.problems)
        return data


def _compose(text: str) -> tuple[Node | None, _Special | None]:
    node = yaml.compose(text, Loader=LOADER)
    return node, (_scan_events(text) if maybe_special(text) else None)


def _parse(text: str, path: str) -> tuple[Node | None, _Special | None, str, Untabbed | None,
                                          list[Problem]]:
    """Compose ``text``; after a tab, report it and read on with spaces (``yamlsyntax``)."""
    try:
        return (*_compose(text), text, None, [])
    except yaml.YAMLError as err:
        fixed, left = untab(text, _compose)
        if not fixed.tabs:
            return None, None, text, None, [syntax_problem(err, text, path)]
        problems = tab_problems(path, fixed)
        if left is not None:
            return None, None, text, None, [*problems, left_problem(left, fixed, path)]
        return (*_compose(fixed.text), fixed.text, fixed, problems)


def read_yaml(raw: bytes, path: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse one file's bytes. Returns the document (None when unusable) and its problems."""
    text, problems = _decode(raw, path)
    if text is None:
        return None, problems
    breaks = odd_breaks(text, path)
    node, special, text, fixed, problems = _parse(text, path)
    problems = [*breaks, *problems]
    if node is None:
        return None, problems or _empty(path)
    doc = YamlDoc(path, text=text, shifts=fixed.shifts if fixed else {})
    try:
        doc.data = _build(doc, node, special, problems)
    except RecursionError:  # libyaml allows 1,000 flow levels; Python's stack does not
        return None, [Problem(path, 1, 1, FILE_FIELD, "the file nests too deeply",
                              "catalog entries nest a few levels at most")]
    if doc.data is None and not problems:  # `---` alone, or only comments
        return None, _empty(path)
    if not isinstance(doc.data, dict):
        problems.append(Problem(path, 1, 1, FILE_FIELD,
                                "the top level must be a mapping of field: value"))
        return None, problems
    return doc, problems
