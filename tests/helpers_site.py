"""Test helpers for the built site: a tiny HTML tree (stdlib only) and page lookups; the
project's mkdocs.yml and its MkDocs hooks module, read as the build reads them.

``parse(html)`` returns a ``Node`` tree good enough for tests: find elements by id, class or
tag, read visible text (without scripts, styles and code), collect links and resource URLs.
``second_build()`` is the real site built a second time, as the session's build is, for the
tests that compare two builds.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import yaml

from tinkernomics.site.compare import shared

if TYPE_CHECKING:
    from conftest_site import BuiltSite

REPO = Path(__file__).resolve().parents[1]

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
HIDDEN_TEXT = {"script", "style", "code", "pre", "template", "noscript"}

PAGES = ("", "algorithms/", "formulas/", "hardware/", "tinker/", "references/",
         "further-reading/", "data-quality/")
"""Pages rendered by tinkernomics.site.pages.feature (besides one page per algorithm)."""


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def text(self, *, visible_only: bool = False) -> str:
        parts: list[str] = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif not (visible_only and child.tag in HIDDEN_TEXT):
                parts.append(child.text(visible_only=visible_only))
        return "".join(parts)

    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def by_id(self, element_id: str) -> Node | None:
        return next((n for n in self.iter() if n.attrs.get("id") == element_id), None)

    def by_class(self, name: str) -> list[Node]:
        return [n for n in self.iter() if name in n.classes()]

    def by_tag(self, tag: str) -> list[Node]:
        return [n for n in self.iter() if n.tag == tag]

    def ids(self) -> list[str]:
        return [n.attrs["id"] for n in self.iter() if "id" in n.attrs]


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


_SHARED_REF = re.compile(rf'<{shared.REF_TAG} data-k="(\d+)"></{shared.REF_TAG}>')


def unshare(column: str, pieces: list[str]) -> str:
    """A compare column with its references to ``compare/shared.json``'s pieces
    put back, as compare.js does (``tinkernomics.site.compare.shared`` writes them)."""
    return _SHARED_REF.sub(lambda found: pieces[int(found.group(1))], column)


def page_file(site: Path, path: str) -> Path:
    """The HTML file of a site-relative directory path (``algorithms/grpo/``)."""
    return site / path / "index.html"


def load_page(site: Path, path: str) -> Node:
    return parse(page_file(site, path).read_text(encoding="utf-8"))


def article(page: Node) -> Node:
    """The page's main content (Material's ``article.md-content__inner``)."""
    found = [n for n in page.by_tag("article") if "md-content__inner" in n.classes()]
    assert found, "no Material article in page"
    return found[0]


def mkdocs_config() -> dict[str, Any]:
    """The project's mkdocs.yml as data (``!ENV`` tags read as plain values)."""
    return yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8").replace("!ENV", ""))


def load_hooks(name: str = "tn_hooks") -> ModuleType:
    """A fresh copy of macros/mkdocs_hooks.py (mkdocs.yml ``hooks:``), loaded as MkDocs does."""
    spec = importlib.util.spec_from_file_location(name, REPO / "macros" / "mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_theme() -> ModuleType:
    """The theme adapter (macros/theme.py), loaded by path under the name the MkDocs hooks give
    it (the same module once either has loaded it; it imports no MkDocs, so it is cheap)."""
    return load_macros_file("theme.py", "tinkernomics_theme_adapter")


def load_macros_file(file: str, name: str) -> ModuleType:
    """A module of ``macros/`` loaded by path under ``name``, the key the MkDocs hooks load it
    under (the same module once either has loaded it)."""
    import sys

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "macros" / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


LEFT_OVER = ("left-over/index.html", "assets/stylesheets/left-over.css", "api/left-over.json")
"""Files planted in the previous site a rebuild writes over (``second_build``): no build writes
them, so the rebuild must leave none (site/postbuild/inplace.py)."""
INODE_FILE = "index-inode"
"""Where ``second_build`` notes the previous site's ``index.html`` inode (written in place)."""


def second_build() -> BuiltSite:
    """The real site built a second time with the session's own command, catalog, site URL and
    environment (tests/conftest_site.py), into ``<shared>/second-site``: once per test run,
    shared by every test and every xdist worker that compares two builds (pages, API tree).
    It is a rebuild, as a contributor's second ``make build`` is: the site folder holds a copy
    of the session's site plus the ``LEFT_OVER`` files when it starts. It writes its outputs
    in its own process, after its pages, where the session's build forks them beside its pages
    (``tinkernomics.site.outputjob``): comparing the two checks that both write the same site.
    Call it once the session's build has ended (ask for ``built_site`` first), so the two
    builds never draw the same chart images side by side on a cold image cache."""
    import os
    import shutil

    from conftest_site import MKDOCS, SHARED_ENV, SessionSite
    from filelock import FileLock

    from tinkernomics.site.outputjob import FORK_ENV

    first = SessionSite().site

    class SecondSite(SessionSite):
        def __init__(self) -> None:
            super().__init__()
            self.folder = Path(os.environ[SHARED_ENV]) / "second-site"
            self.site, self.log, self.rc = self.folder / "site", self.folder / "build.log", \
                self.folder / "rc"
            # its outputs written after its pages, in its own process: the session's build
            # forks them beside its pages (site/outputjob.py), so the two must agree
            self.command = ["env", f"{FORK_ENV}=0", str(MKDOCS), "build", "--strict",
                            "--site-dir", str(self.site)]

        def start(self) -> None:
            self.folder.mkdir(parents=True, exist_ok=True)
            with FileLock(str(self.folder / "prepare.lock")):
                if not (self.folder / INODE_FILE).exists():
                    shutil.copytree(first, self.site, symlinks=True)
                    for rel in LEFT_OVER:
                        (self.site / rel).parent.mkdir(parents=True, exist_ok=True)
                        (self.site / rel).write_text("left over\n", encoding="utf-8")
                    inode = (self.site / "index.html").stat().st_ino
                    (self.folder / INODE_FILE).write_text(str(inode), encoding="utf-8")
            super().start()

    return SecondSite().wait()


def second_build_inode() -> int:
    """The inode ``index.html`` had in the second build's folder before it ran."""
    import os

    from conftest_site import SHARED_ENV
    return int((Path(os.environ[SHARED_ENV]) / "second-site" / INODE_FILE).read_text())
