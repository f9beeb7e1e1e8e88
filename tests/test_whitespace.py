"""Indentation taken out of built pages (tinkernomics.site.postbuild.whitespace): toy pages with the
cases that must survive byte for byte, the page's article kept as it is, and the built site,
where no text of the theme's chrome outside the kept elements starts a line with spaces."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest
from conftest_site import BuiltSite

from tinkernomics.site.postbuild.whitespace import strip_indentation, strip_theme_indentation

KEPT = {"pre", "textarea", "script", "style", "template", "code", "kbd"}

PRE = '<pre class="x"><code>def f():\n    return 1\n\n\n    # end\n\t</code></pre>'
TEXTAREA = '<textarea rows="3">\n  a\n\n\n    b\n</textarea>'
SCRIPT = "<script>if (a<b) {\n    x('</div>\\n  ');\n}\n</script>"
STYLE = "<STYLE>\n  .a > .b {\n    color: red;\n  }\n</STYLE>"
TEMPLATE = '<template class="spec">{"a": "x\\n  y"}\n   </template>'
INLINE = "<p>Run <code>make  \n   serve</code> or <kbd>Ctrl\n  C</kbd>.</p>"
PAGE = f"""<!doctype html>
<html>
  <head>
    <title>T</title>
    <meta name="description" content="a > b,
      indented inside the value">
    <!-- a comment
         <pre> not an element -->
  </head>
  <body>


    <div class="md-container">
      <p>Words   with spaces
         and a break</p>
      {PRE}
      {TEXTAREA}
      {SCRIPT}
      {STYLE}
      {TEMPLATE}
      {INLINE}
    </div>
  </body>
</html>
"""


class _Events(HTMLParser):
    """Every tag with its attributes, every comment, and every text node with its parent."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[tuple[str, str]] = []
        self.comments: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(("/" + tag, []))
        while self.open and self.open.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        kept = next((t for t in reversed(self.open) if t in KEPT), "")
        self.text.append((kept, data))

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def events(page: str) -> _Events:
    parser = _Events()
    parser.feed(page)
    parser.close()
    return parser


def rendered(text: str) -> str:
    """Text as CSS ``white-space: normal`` shows it: every whitespace run is one space."""
    return re.sub(r"\s+", " ", text)


def test_kept_elements_and_attribute_values_are_byte_for_byte_the_same() -> None:
    out = strip_indentation(PAGE)
    for kept in (PRE, TEXTAREA, SCRIPT, STYLE, TEMPLATE, "<code>make  \n   serve</code>",
                 "<kbd>Ctrl\n  C</kbd>", "<!-- a comment\n         <pre> not an element -->"):
        assert kept in out, kept
    before, after = events(PAGE), events(out)
    assert after.tags == before.tags
    assert after.comments == before.comments


def test_text_outside_kept_elements_loses_indentation_and_blank_lines_only() -> None:
    out = strip_indentation(PAGE)
    before, after = events(PAGE), events(out)
    assert [k for k, _ in after.text] == [k for k, _ in before.text]
    for (kept, was), (_, now) in zip(before.text, after.text, strict=True):
        assert now == was if kept else rendered(now) == rendered(was), (was, now)
    assert "Words   with spaces\nand a break" in out
    assert "\n\n" not in out.replace(PRE, "|").replace(TEXTAREA, "|")
    assert len(out) < len(PAGE)


def test_stripping_twice_changes_nothing() -> None:
    once = strip_indentation(PAGE)
    assert strip_indentation(once) == once


def chrome(page: str) -> str:
    """The page with an empty article (what is left is the part the theme's templates write)."""
    return re.sub(r"<article.*</article>", "<article></article>", page, count=1, flags=re.S)


def loose_chrome_text(page: str) -> list[str]:
    """Text of the chrome, outside kept elements, that has an indented or a blank line."""
    return [data for kept, data in events(chrome(page)).text
            if not kept and re.search(r"\n[ \t\n]", data)]


def test_the_article_is_kept_and_the_chrome_around_it_stripped() -> None:
    article = '<article class="md-typeset">\n  <p>Our\n\n    words</p>\n  </article>'
    page = PAGE.replace("<body>", f"<body>\n    {article}", 1)
    assert loose_chrome_text(page)
    out = strip_theme_indentation(page)
    assert '<article class="md-typeset">\n<p>Our\nwords</p>\n</article>' in out  # its edges
    assert not loose_chrome_text(out)
    assert strip_theme_indentation(PAGE) == strip_indentation(PAGE)  # no article: all of it


def test_the_articles_middle_is_kept_and_its_edges_stripped() -> None:
    """Issue 47: the theme's blank lines after the article's start tag and in its tail (after the
    page's content, around the build date) go; the content before the tail is kept as it is."""
    middle = "<p>Our\n\n    words</p>\n" * 40
    article = f'<article class="md-typeset">\n  \n\n{middle}\n\n\n  <p>date</p>\n  </article>'
    out = strip_theme_indentation(f"<body>{article}</body>")
    assert f'<article class="md-typeset">\n{middle[:-450]}' in out
    assert out.endswith("words</p>\n<p>date</p>\n</article></body>")
    assert rendered(out) == rendered(f"<body>{article}</body>")


@pytest.mark.parametrize("tail", [
    "<pre>\n\n  x</pre>\n\n  <p>d</p>\n  ", "<!-- a\n\n  -->\n\n<p>d</p>\n  ",
    f'<a title="{"a" * 400} > y\n\n  z">l</a>\n\n<p>d</p>\n  ', "\n\n</code>\n\n<p>d</p>\n  "])
def test_a_tail_that_may_hold_kept_text_is_kept(tail: str) -> None:
    """A tail where a comment, a kept element or a quoted value may be open is left as is."""
    article = f'<article class="md-typeset">{"<p>x</p>" * 60}{tail}</article>'
    assert article in strip_theme_indentation(f"<body>{article}</body>")


@pytest.mark.build
def test_built_pages_chrome_has_no_indented_or_blank_line_outside_kept_elements(
        built_site: BuiltSite) -> None:
    pages = sorted(built_site.root.rglob("*.html"))
    assert len(pages) > 20
    bad: list[str] = []
    for path in pages:
        if path.parts[-3:-2] == ("embed",) or "</head>" not in path.read_text("utf-8"):
            continue  # embed pages come from our own template; fragments are not pages
        bad += [f"{path.relative_to(built_site.root)}: {data[:40]!r}"
                for data in loose_chrome_text(path.read_text("utf-8"))]
    assert not bad, bad[:10]


def _each_text(page: str) -> str:
    """The reference: every text between two opaque parts squeezed on its own, in order."""
    opaque = re.compile(r"<!--.*?-->|<(pre|textarea|script|style|template|code|kbd)(?=[\s/>])"
                        r"""[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>.*?</\1\s*>"""
                        r"""|<[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>""", re.S | re.I)
    parts, pos = [], 0
    for match in opaque.finditer(page):
        parts += [re.sub(r"[ \t\r\f]*\n[ \t\r\n\f]*", "\n", page[pos:match.start()]),
                  match.group()]
        pos = match.end()
    return "".join([*parts, re.sub(r"[ \t\r\f]*\n[ \t\r\n\f]*", "\n", page[pos:])])


def test_one_substitution_squeezes_what_each_text_alone_would() -> None:
    pieces = ("  ", "\n", " \n  ", "\t", "\r\n", "\f", "x", "<p>", "</p>", "<pre>", " a\n b ",
              "</pre>", "<CODE class='c'>", "</code>", "<!-- \n -->", "<a title=\"x\n>y\">",
              "a < b", "\0", "<script>", "</script >", "<br/>", "é")
    rng = random.Random(47)
    for _ in range(3000):
        page = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 14)))
        assert strip_indentation(page) == _each_text(page), repr(page)
