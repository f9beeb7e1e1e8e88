"""Built pages lose the indentation between tags and nothing else (pages.compact)."""

from __future__ import annotations

import re

import pytest
from conftest_site import BuiltSite
from helpers_site import PAGES, page_file, parse

from tinkernomics.site.pages.compact import compact

PAGE = """<!doctype html>
<html>
  <head>
    <title>T</title>
    <style>
      .a  >  b { color: red; }
    </style>
  </head>
  <body>
    <p>Two  spaces   stay <b>bold</b> <i>italic</i></p>
    <a title="keep   these    spaces"   href="x">link</a>
    <pre><code><span>a</span>   <span>b</span>
    indented</code></pre>
    <textarea>
      kept
    </textarea>
    <script>
      if (a >   <b) {}
    </script>
  </body>
</html>
"""


def test_runs_between_tags_become_one_newline() -> None:
    out = compact(PAGE)
    assert "<html>\n<head>\n<title>" in out and "</p>\n<a " in out
    assert len(out) < len(PAGE)


def test_text_attributes_and_kept_elements_are_untouched() -> None:
    out = compact(PAGE)
    assert "Two  spaces   stay <b>bold</b> <i>italic</i>" in out
    assert '<a title="keep   these    spaces"   href="x">' in out
    for kept in re.findall(r"<(pre|textarea|script|style)\b.*?</\1>", PAGE, re.S):
        block = re.search(rf"<{kept}\b.*?</{kept}>", PAGE, re.S).group(0)
        assert block in out, kept


def _text(html: str) -> str:
    return " ".join(parse(html).text().split())


def test_the_text_a_reader_sees_is_the_same() -> None:
    assert _text(compact(PAGE)) == _text(PAGE)
    assert compact(compact(PAGE)) == compact(PAGE)


@pytest.mark.build
@pytest.mark.parametrize("path", [*PAGES, "algorithms/grpo/", "calculator/", "embed/scalerl-grpo/"])
def test_built_pages_are_compact(built_site: BuiltSite, path: str) -> None:
    page = page_file(built_site.root, path).read_text(encoding="utf-8")
    assert compact(page) == page
    outside = re.sub(r"<(pre|textarea|script|style)\b.*?</\1>", "<kept/>", page, flags=re.S)
    assert not re.search(r">\s{2,}<", outside)
