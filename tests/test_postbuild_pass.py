"""The one post-build pass (tinkernomics.site.postbuild.finish), on a toy site folder."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tinkernomics.site.freshness.feature import PLACEHOLDER, BuildDates, fill_page
from tinkernomics.site.postbuild import csp, finish
from tinkernomics.site.postbuild.csp import add_policies
from tinkernomics.site.postbuild.finish import finish_pages
from tinkernomics.site.postbuild.knownscripts import known_scripts
from tinkernomics.site.postbuild.previews import page_url, tag_page

BASE = "https://example.org/sub/"
DATES = BuildDates(dt.date(2026, 1, 2), dt.date(2025, 12, 31))
PAGE = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>GRPO</title>
    <link rel="canonical" href="https://example.org/sub/algorithms/grpo/">
</head><body>
    <nav>
        <p>menu</p>
    </nav><article><h1>GRPO</h1><p>Group relative.</p>
<div data-tn-chart="scalerl-grpo"></div>{PLACEHOLDER}</article></body></html>"""
FILES = {"algorithms/grpo/index.html": PAGE, "frag.html": "<p>column</p>",
         "embed/x/index.html": PAGE.replace("<title>", '<meta property="og:title" content="x">'
                                                       "<title>")}


def _site(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _walk(root: Path, transform: Callable[[str, str], str]) -> None:
    """One walk of the site applying one page transform (``transform(page, its URL)``)."""
    for path in sorted(root.rglob("*.html")):
        page = path.read_text(encoding="utf-8")
        if (changed := transform(page, page_url(root, path))) != page:
            path.write_text(changed, encoding="utf-8")


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(root.rglob("*.html"))}


def test_one_pass_writes_what_the_three_walks_wrote(tmp_path: Path) -> None:
    one, three = _site(tmp_path / "one"), _site(tmp_path / "three")
    known = known_scripts()
    finish_pages(one, BASE, DATES, known)
    _walk(three, lambda page, _url: fill_page(page, DATES))
    _walk(three, lambda page, url: tag_page(page, url, BASE))
    add_policies(three, known)
    assert _tree(one) == _tree(three)
    page = _tree(one)["algorithms/grpo/index.html"]
    assert "2026-01-02" in page and 'property="og:title"' in page
    assert "Content-Security-Policy" in page and "\n    <nav>" not in page


def test_each_file_is_read_and_written_once(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    site = _site(tmp_path / "site")
    calls: list[tuple[str, str]] = []
    read, write = Path.read_text, Path.write_text

    def counted_read(self: Path, *args: object, **kwargs: object) -> str:
        calls.append(("read", self.name))
        return read(self, *args, **kwargs)  # type: ignore[arg-type]

    def counted_write(self: Path, *args: object, **kwargs: object) -> int:
        calls.append(("write", self.name))
        return write(self, *args, **kwargs)  # type: ignore[arg-type]

    known = known_scripts()  # reads the templates: not part of the pass
    monkeypatch.setattr(Path, "read_text", counted_read)
    monkeypatch.setattr(Path, "write_text", counted_write)
    finish_pages(site, BASE, DATES, known)
    assert sorted(calls) == sorted([(kind, Path(rel).name) for rel in FILES
                                    for kind in ("read", "write")])


def test_an_unchanged_file_is_not_rewritten(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    finish_pages(site, BASE, DATES, known_scripts())
    before = _tree(site)
    report = finish_pages(site, BASE, DATES, known_scripts())
    assert report.changed == 0 and _tree(site) == before


@pytest.mark.parametrize("name", ["http-equiv", "HTTP-Equiv", "srcdoc", "SrcDoc",
                                  "\u017frcdoc", "http-equ\u0130v", "http-equ\u0131v"])
def test_the_fast_path_renames_every_name_the_pattern_matches(name: str) -> None:
    page = f'<iframe {name}="x"></iframe><p>http-equivalent, srcdocs</p>'
    assert csp.neutralise(page) == (page.replace(name, f"data-tn-{name}", 1), 1)
    assert csp.neutralise("<p>nothing here</p>") == ("<p>nothing here</p>", 0)


def test_the_prefilter_never_hides_an_attribute_the_pattern_renames() -> None:
    """``neutralise`` skips its case-insensitive pattern when the page's lower-cased bytes hold
    neither name's part: on every text it gives what the pattern alone gives, in any case and
    with the non-ASCII characters that match ASCII letters under ``re.I`` (long s, Kelvin)."""
    pieces = ("http-equiv", "HTTP-EQUIV", "Http-Equiv", "srcdoc", "SRCDOC", "ſrcdoc", "ſRCDOC",
              "srcdoc=", " ", "=", ">", "<", "/", "é", "İ", "K", "x", "-", "http-equ", "rcdoc")
    rng = random.Random(47)
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        assert csp.neutralise(text) == csp._NEUTRALISED.subn(r"data-tn-\1", text), repr(text)


def test_a_script_every_page_holds_is_hashed_once(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 47: the theme writes the same few inline scripts on every page; each is hashed
    once a build, and every page's policy still names its hash."""
    body = f"/* {tmp_path.name} */ var x = 1;"  # a body no other test hashed
    page = PAGE.replace("</head>", f"<script>{body}</script></head>")
    for i in range(5):
        (tmp_path / f"p{i}.html").write_text(page, encoding="utf-8")
    digests: list[bytes] = []
    real = csp.hashlib.sha256

    def counted(data: bytes = b"") -> object:
        digests.append(data)
        return real(data)

    monkeypatch.setattr(csp.hashlib, "sha256", counted)
    add_policies(tmp_path, csp.KnownScripts(frozenset({body})))
    assert digests.count(body.encode("utf-8")) == 1
    expected = csp.script_hash(body)
    assert all(expected in p.read_text(encoding="utf-8") for p in tmp_path.glob("*.html"))


def test_a_page_the_hooks_finished_is_written_once_and_skipped_by_the_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 47: under MkDocs the hooks finish each page before MkDocs writes it; the pass then
    neither reads nor rewrites it, and the site is what the pass alone makes of it."""
    alone, hooked = _site(tmp_path / "alone"), _site(tmp_path / "hooked")
    known = known_scripts()
    finish_pages(alone, BASE, DATES, known)
    rel = "algorithms/grpo/index.html"
    blocked = PAGE.replace("</body>", "<script>alert(1)</script></body>")
    (alone / "b.html").write_text(finish.PagePass.of(BASE, DATES, known).run(blocked, "b.html")
                                  .text, encoding="utf-8")
    page_pass = finish.PagePass.of(BASE, DATES, known)
    monkeypatch.setattr(finish, "FINISHED", {})
    for name, text in ((rel, PAGE), ("b.html", blocked)):
        (hooked / name).write_text(finish.finish_rendered(text, name, str(hooked), page_pass),
                                   encoding="utf-8")
    read = Path.read_text
    seen: list[str] = []

    def counted_read(self: Path, *args: object, **kwargs: object) -> str:
        seen.append(self.name)
        return read(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", counted_read)
    report = finish_pages(hooked, BASE, DATES, known)
    monkeypatch.setattr(Path, "read_text", read)
    assert sorted(seen) == ["frag.html", "index.html"]  # the embed page, not the two pages
    assert _tree(hooked) == _tree(alone)
    assert report.blocked == {"b.html": 1} and finish.FINISHED == {}
