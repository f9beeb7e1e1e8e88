"""The libyaml loader the catalog reader composes and parses with (pipeline step 1, under
``yamlread``): libyaml's C parser and composer with no tag resolution at all, so every node keeps
the default tag of its kind and ``yamlread`` resolves plain scalars itself (YAML 1.2 core schema).
"""

from __future__ import annotations

from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

TAG = "tag:yaml.org,2002:"
DEFAULT_TAGS = {ScalarNode: f"{TAG}str", SequenceNode: f"{TAG}seq",
                 MappingNode: f"{TAG}map"}


class _NoResolver:
    """Tags untagged nodes str/seq/map and nothing more. Plain scalars are resolved by
    ``resolve_plain`` (YAML 1.2); PyYAML's YAML 1.1 regexes, run in Python for every scalar,
    took a third of composition time for an answer we threw away. Explicit tags are kept."""

    def __init__(self) -> None:
        pass

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: type[Node], value: object, implicit: object) -> str:
        return DEFAULT_TAGS[kind]


try:  # Lesson: the pure-Python parser is ~20x slower; the C one is in every PyYAML wheel.
    # The class CSafeLoader is built on; types-PyYAML does not re-export it.
    from yaml.cyaml import CParser  # type: ignore[attr-defined]

    class _Loader(CParser, _NoResolver):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)

except ImportError:  # pragma: no cover - only on exotic platforms
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Loader(Reader, Scanner, Parser, Composer, _NoResolver):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)

LOADER: Any = _Loader  # typed Any: yaml.compose and yaml.parse list PyYAML's own loaders
