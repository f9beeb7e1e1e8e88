"""Links are checked on every build: MkDocs validates Markdown links and anchors (strict, so a
warning fails the build), and this test checks what MkDocs cannot see, the links in HTML that
macros and templates write: every internal href/src of every built page resolves to a file,
and every #fragment to an id on the target page, and no relative link leaves the site's
sub-path. (tests/test_site_build.py had a second, partial checker of our pages' <a> links: it
was removed as a duplicate of this one, its one unique check, relative links escaping the site,
moved here.) External links are checked weekly by
.github/workflows/links.yml (never on a pull request: the network is not the build's)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
import yaml
from conftest_site import REPO_ROOT, SUB_PATH_URL, BuiltSite
from helpers_site import parse, unshare

from tinkernomics.site.algorithmfiles import COLUMN
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES
from tinkernomics.site.compare import shared
from tinkernomics.site.compare.view import PAGE as COMPARE_PAGE
from tinkernomics.site.compare.view import SHARED

pytestmark = pytest.mark.build

LINK_ATTRS = ("href", "src")


def site_pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def target_file(root: Path, url: str) -> Path | None:
    """The built file an internal URL points at (None for another host)."""
    parts = urlsplit(url)
    base = urlsplit(SUB_PATH_URL)
    if parts.scheme not in ("http", "https") or parts.netloc != base.netloc \
            or not parts.path.startswith(base.path):
        return None
    path = root / unquote(parts.path[len(base.path):])
    return path / "index.html" if path.is_dir() or parts.path.endswith("/") else path


def host_page(fragment: str) -> str:
    """The page an HTML fragment is shown in (its links are written for that page): the page of
    its folder's parent, e.g. a/b/c.html is inserted into a/."""
    folder = fragment.rsplit("/", 2)[0]
    return f"{folder}/" if "/" in fragment else ""


def documents(root: Path) -> Iterator[tuple[str, str, str]]:
    """(name, HTML, URL its links are read from) of every built HTML file, and of every compare
    column as the reader's browser gets it: the ``"column"`` of an algorithm's file
    (``site.algorithmfiles``) with the pieces it shares put back from ``compare/shared.json``
    (as compare.js does), shown in the compare page, so the links inside a shared piece are
    checked too."""
    for page in site_pages(root):
        rel = page.relative_to(root).as_posix()
        text = page.read_text(encoding="utf-8")
        yield rel, text, urljoin(SUB_PATH_URL, rel if "<head" in text else host_page(rel))
    pieces_file = root / COMPARE_PAGE / SHARED
    pieces = json.loads(pieces_file.read_text(encoding="utf-8")) if pieces_file.is_file() else []
    for path in sorted((root / ALGORITHM_FILES).glob("*.json")):
        column = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(column, dict) and COLUMN in column:
            name = f"{path.relative_to(root).as_posix()} column"
            yield name, unshare(column[COLUMN], pieces), urljoin(SUB_PATH_URL, COMPARE_PAGE)


def broken_links(root: Path) -> list[str]:
    @cache
    def ids(path: Path) -> frozenset[str]:
        return frozenset(parse(path.read_text(encoding="utf-8")).ids())

    broken = []
    for rel, text, page_url in documents(root):
        for node in parse(text).iter():
            for attr in LINK_ATTRS:
                value = node.attrs.get(attr)
                if not value or value.startswith(("mailto:", "data:", "javascript:", "blob:")) \
                        or node.tag in ("base",):
                    continue
                url = urljoin(page_url, value)
                target = target_file(root, url)
                if target is None:
                    if not urlsplit(value).scheme and not value.startswith("//"):
                        broken.append(f"{rel}: {attr}={value} (outside the site)")
                    continue
                if not target.is_file():
                    broken.append(f"{rel}: {attr}={value} (no {target.relative_to(root)})")
                    continue
                fragment = unquote(urlsplit(url).fragment)
                if fragment and target.suffix == ".html" and fragment not in ids(target):
                    broken.append(f"{rel}: {attr}={value} (no id {fragment!r})")
    return broken


def test_every_internal_link_and_anchor_of_the_built_site_resolves(
        built_site: BuiltSite) -> None:
    pages = site_pages(built_site.root)
    assert len(pages) > 20
    broken = broken_links(built_site.root)
    assert not broken, "\n".join(broken[:30])


def test_the_checker_finds_a_broken_link_and_a_broken_anchor(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<p id="here">x</p>', encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<a href="a/#here">ok</a><a href="a/#gone">anchor</a><a href="b/">page</a>'
        '<a href="https://elsewhere.example/x">external</a><img src="img.png" alt="">'
        '<a href="../../up/">escapes the site</a>', encoding="utf-8")
    broken = broken_links(tmp_path)
    assert broken == ["index.html: href=a/#gone (no id 'gone')",
                      "index.html: href=b/ (no b/index.html)",
                      "index.html: src=img.png (no img.png)",
                      "index.html: href=../../up/ (outside the site)"]


def test_the_checker_reads_a_link_inside_a_shared_compare_piece(tmp_path: Path) -> None:
    """A compare column's link may live in a piece ``compare/shared.json`` holds: the checker
    sees it where the browser does, in the column, for the page the column is shown in."""
    (tmp_path / COMPARE_PAGE).mkdir(parents=True)
    (tmp_path / COMPARE_PAGE / SHARED).write_text(json.dumps(['<a href="../gone/">x</a>']),
                                                  encoding="utf-8")
    (tmp_path / ALGORITHM_FILES).mkdir(parents=True)
    (tmp_path / ALGORITHM_FILES / "a.json").write_text(
        json.dumps({COLUMN: f"<p>{shared.ref(0)}</p>", "name": "A"}), encoding="utf-8")
    assert broken_links(tmp_path) == [
        f"{ALGORITHM_FILES}a.json column: href=../gone/ (no gone/index.html)"]


@pytest.mark.parametrize(("link", "fails"), [("[gone](missing.md)", True),
                                             ("[gone](other.md#no-such-heading)", True),
                                             ("[fine](other.md#here)", False)])
def test_mkdocs_with_our_settings_fails_on_a_broken_markdown_link(tmp_path: Path, link: str,
                                                                  fails: bool) -> None:
    """A tiny site with mkdocs.yml's own `validation` and `strict` settings."""
    from helpers_site import mkdocs_config

    ours = mkdocs_config()
    assert ours["strict"] is True
    config = {"site_name": "t", "strict": ours["strict"], "validation": ours["validation"],
              "nav": ["index.md", "other.md"]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## Here\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(f"# Home\n\n[ok](other.md#here) {link}\n",
                                               encoding="utf-8")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    done = subprocess.run([str(mkdocs), "build", "--site-dir", str(tmp_path / "site")],
                          cwd=tmp_path, capture_output=True, text=True, check=False,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""}, timeout=120)
    assert (done.returncode != 0) == fails, done.stderr
    if fails:
        assert "missing.md" in done.stderr or "no-such-heading" in done.stderr, done.stderr
    assert "mkdocs build --strict" in (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
