"""The search cut (site/pages/searchcut.py, macros/mkdocs_hooks.py): Material's search parser
sees less HTML and indexes exactly the same sections; the page comes back unchanged but for the
exclusion marks, dropped once indexed (``unmark``, issue 47). A Material
upgrade that changes the parser fails loudly: its behaviour is pinned on a corpus of tricky pages
here and on a tiny built site (tests/test_theme.py), with what to re-check in the theme adapter
(macros/theme.py)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest_site import BuiltSite
from helpers_site import load_hooks, load_theme, mkdocs_config

from tinkernomics.site.build import NO_THEME
from tinkernomics.site.pages.searchcut import PLACEHOLDER, restore_unmarked
from tinkernomics.site.pages.searchcut import _excluded_spans as excluded_spans
from tinkernomics.site.pages.searchcut import _stripped_needle as stripped_needle
from tinkernomics.site.pages.searchcut import cut as cut_with
from tinkernomics.site.pages.searchcut import restore as restore_with
from tinkernomics.site.pages.searchcut import unmark as unmark_with

_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)


THEME = load_theme()
PROFILE = THEME.profile()


def cut(html: str) -> tuple[str, list[str]]:
    """The cut with the search plugin's rules as the theme adapter declares them."""
    return cut_with(html, PROFILE)


def restore(html: str, parts: list[str]) -> str:
    return restore_with(html, parts, PROFILE)


def indexed(html: str) -> list[tuple[str | None, str, str]]:
    """The sections Material's search plugin keeps from ``html``: (id, title, text)."""
    return THEME.search_sections(html)


def assert_same_index(html: str) -> list[str]:
    kept, parts = cut(html)
    assert indexed(kept) == indexed(html)
    assert restore(kept, parts) == html
    return parts


SVG = ('<svg viewBox="0 0 10 10"><style>.a{fill:red}</style><title>T</title>'
       '<rect x="0" y="0"/><line x1="1" x2="2"></line><text x="1">label</text></svg>')

CUT_CASES = {
    "element interior": f'<h1 id="t">T</h1><p>kept</p><div class="f" data-search-exclude>{SVG}'
                        '</div><p>after</p>',
    "heading section": '<h1 id="t">T</h1><p>kept</p><h2 id="x" data-search-exclude>X</h2>'
                       '<div><p>gone</p><ul><li>a</li></ul></div><h2 id="y">Y</h2><p>kept</p>',
    "last section": '<h1 id="t">T</h1><h2 id="x" data-search-exclude>X</h2><p>gone<br>a</p>',
    "comment, script and style inside": '<div data-search-exclude><!-- <p> --><script>x="<p>"'
                                        '</script><style>p{}</style><p>gone</p></div><p>k</p>',
    "quoted > in an attribute": '<div data-search-exclude><a title="a > b">x</a></div><p>k</p>',
}

KEPT_CASES = {
    "same tag nested (Material ends the exclusion at the inner end tag)":
        '<div data-search-exclude><div>in</div>indexed after all</div><p>k</p>',
    "a heading inside (it starts a section even there)":
        '<div data-search-exclude><h3 id="h">H</h3><p>indexed</p></div>',
    "unbalanced": '<div data-search-exclude><p>one<p>two</p></div>',
    "section that closes its parent":
        '<div><h2 id="x" data-search-exclude>X</h2><p>gone</p></div><p>indexed in the previous</p>',
    "unfinished script": '<div data-search-exclude><script>var a = 1;</div>',
    "its end tag inside a script (the first one is taken: too short, so left)":
        '<div data-search-exclude><script>x="</div>"</script><p>gone</p></div><p>kept</p>',
    "the word in a value, not an attribute": '<p title="data-search-exclude">indexed</p>',
    "void element": '<img data-search-exclude src="a.png"><p>kept</p>',
}


@pytest.mark.parametrize("html", CUT_CASES.values(), ids=CUT_CASES.keys())
def test_excluded_parts_are_cut_and_the_index_is_the_same(html: str) -> None:
    assert assert_same_index(html)


@pytest.mark.parametrize("html", KEPT_CASES.values(), ids=KEPT_CASES.keys())
def test_parts_the_parser_might_read_differently_are_left(html: str) -> None:
    kept, parts = cut(html)
    if parts:  # an inner part may still be cut, never the risky one
        assert indexed(kept) == indexed(html)
    assert restore(kept, parts) == html


def test_the_risky_parts_themselves_are_not_cut() -> None:
    for name in ("same tag nested (Material ends the exclusion at the inner end tag)",
                 "a heading inside (it starts a section even there)", "unbalanced",
                 "section that closes its parent", "unfinished script",
                 "its end tag inside a script (the first one is taken: too short, so left)"):
        assert cut(KEPT_CASES[name])[1] == [], name


def test_a_page_without_exclusions_is_returned_as_is() -> None:
    html = "<h1 id='a'>A</h1><p>text</p>"
    assert cut(html) == (html, [])


def test_a_page_that_already_holds_a_placeholder_is_not_cut() -> None:
    html = f'<p>{PLACEHOLDER.format(0)}</p><div data-search-exclude><p>x</p></div>'
    assert cut(html) == (html, [])


def test_nested_exclusions_are_cut_once() -> None:
    html = ('<h1 id="t">T</h1><h2 id="x" data-search-exclude>X <span data-search-exclude>s'
            '</span></h2><div data-search-exclude><p data-search-exclude>in</p></div>'
            '<h2 id="y">Y</h2><p>kept</p>')
    assert len(assert_same_index(html)) == 2  # the heading's word, then its section's body


def test_restore_strips_what_material_strips() -> None:
    """Material removes ``data-search-*="..."`` attributes after indexing; a restored part is
    given the same treatment, so the page is what it would have been."""
    html = '<div data-search-exclude><p data-search-boost="2">x</p></div>'
    kept, parts = cut(html)
    assert parts
    assert restore(kept, parts) == '<div data-search-exclude><p>x</p></div>'


def test_void_elements_match_materials() -> None:
    assert THEME.void_elements() == set(PROFILE.search_void)


def test_without_the_themes_rules_nothing_is_cut() -> None:
    """No profile (``NO_THEME``), or an adapter that turned the cut off (an empty mark, its
    upgrade checklist's way out): the page goes to the indexer whole."""
    html = CUT_CASES["element interior"]
    assert cut_with(html, NO_THEME) == (html, [])
    assert PROFILE.search_exclude in html and cut(html)[1]


def test_hooks_cut_before_search_and_restore_after(repo_root: Path) -> None:
    assert "macros/mkdocs_hooks.py" in mkdocs_config()["hooks"]
    hooks = load_hooks()
    assert hooks.on_page_content.mkdocs_priority < 0  # after every other content handler
    # after the search plugin
    assert hooks.on_page_context.mkdocs_priority < THEME.SEARCH_PRIORITY
    html = CUT_CASES["element interior"]
    page = SimpleNamespace(file=SimpleNamespace(src_uri="a.md"), content="")
    page.content = hooks.on_page_content(html, page=page, config={}, files=None)
    assert PLACEHOLDER.format(0) in page.content and "<svg" not in page.content
    assert indexed(page.content) == indexed(html)  # what the search plugin sees here
    hooks.on_page_context({}, page=page, config={}, nav=None)
    assert page.content == html.replace(" data-search-exclude", "")  # the mark, once indexed


MARKED_PAGE = (
    '<h1 id="t">T</h1><div class="f" data-search-exclude>' + SVG + '</div>'
    '<h2 id="x" data-search-exclude>X</h2><p>gone <span class="tn-loc" data-search-exclude>'
    '§4</span></p><h2 id="y">Y</h2><p>text: &lt;b data-search-exclude&gt; and data-search-exclude'
    ' <a title="a data-search-exclude" href="#y">link</a> <a title="x > data-search-exclude">'
    'q</a></p><p data-search-exclude\n class="c">m</p><!-- <i data-search-exclude> -->'
    '<p title= data-search-exclude>v</p><p data-search-exclude-not>w</p>'
    '<script>x="<b data-search-exclude>"</script><p data-search-exclude>z</p>')
"""Marks in tags (last attribute, before another, before a line break) and the same text where
it is no attribute: escaped text, plain text, quoted values, a comment, a script, a value after
``=``."""
UNMARKED_PAGE = (
    '<h1 id="t">T</h1><div class="f">' + SVG + '</div>'
    '<h2 id="x">X</h2><p>gone <span class="tn-loc">'
    '§4</span></p><h2 id="y">Y</h2><p>text: &lt;b data-search-exclude&gt; and data-search-exclude'
    ' <a title="a data-search-exclude" href="#y">link</a> <a title="x > data-search-exclude">'
    'q</a></p><p\n class="c">m</p><!-- <i data-search-exclude> -->'
    '<p title= data-search-exclude>v</p><p data-search-exclude-not>w</p>'
    '<script>x="<b data-search-exclude>"</script><p>z</p>')


def test_unmark_drops_the_mark_from_tags_never_from_text() -> None:
    assert unmark_with(MARKED_PAGE, PROFILE) == UNMARKED_PAGE
    assert unmark_with(UNMARKED_PAGE, PROFILE) == UNMARKED_PAGE
    assert unmark_with(MARKED_PAGE, NO_THEME) == MARKED_PAGE


@pytest.mark.parametrize("html", [MARKED_PAGE, *CUT_CASES.values(), *KEPT_CASES.values(),
                                  '<!-- <div data-search-exclude><p>x</p></div> --><p>k</p>'])
def test_restore_unmarked_is_unmark_after_restore(html: str) -> None:
    """The hook's one pass (the page between the parts, and only the parts that may hold a
    mark) gives what unmarking the whole restored page gives."""
    kept, parts = cut(html)
    assert restore_unmarked(kept, parts, PROFILE) == unmark_with(restore(kept, parts), PROFILE)


def test_the_hooks_index_the_marked_page_and_write_it_unmarked() -> None:
    """Issue 47: the finished page carries no mark (0.4 MB at 1,000 algorithms) and the search
    plugin, between the two hooks, sees what it would see on the page as the macros wrote it."""
    hooks = load_hooks()
    page = SimpleNamespace(file=SimpleNamespace(src_uri="m.md"), content="")
    page.content = hooks.on_page_content(MARKED_PAGE, page=page, config={}, files=None)
    assert indexed(page.content) == indexed(MARKED_PAGE)
    hooks.on_page_context({}, page=page, config={}, nav=None)
    assert page.content == UNMARKED_PAGE


def test_no_built_page_keeps_a_placeholder_or_a_mark(built_site: BuiltSite) -> None:
    """The built pages' articles (the HTML the indexer saw, less Material's stripped attributes):
    no placeholder and no exclusion mark reached a page (``unmark``; they carry no mark since
    issue 47, so the cut's index equality is checked on marked pages above)."""
    pages = sorted(built_site.root.rglob("*.html"))
    articles = 0
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert "<!--tn:search-cut:" not in text, path
        found = _ARTICLE.search(text)
        if found:
            articles += 1
            assert unmark_with(found.group(1), PROFILE) == found.group(1), path
    assert articles >= 20


# --------------------------------------------------------------------------- Material upgrade guard

RECHECK = ("the cut changed the index: Material's parser no longer skips what searchcut.py cuts; "
           "walk the upgrade checklist in macros/theme.py")

TRICKY = {
    "upper-case tags": '<H1 id="t">T</H1><DIV data-search-exclude><P>gone</P></DIV><p>k</p>',
    "empty attribute value": '<div data-search-exclude=""><p>gone</p></div><p>kept</p>',
    "self-closed svg parts": '<div data-search-exclude><svg><path d="M0 0"/><circle r="1"/>'
                             '</svg></div><p>kept</p>',
    "entities and comments": '<div data-search-exclude>&amp; &lt;p&gt;<!-- </div> --></div>'
                             '<p>kept &amp; found</p>',
    "excluded table": '<h2 id="a">A</h2><table data-search-exclude><tr><td>1</td></tr></table>'
                      '<p>after the table</p>',
    "two excluded sections in a row": '<h1 id="t">T</h1><h2 id="a" data-search-exclude>A</h2>'
                                      '<p>x</p><h2 id="b" data-search-exclude>B</h2><p>y</p>'
                                      '<h2 id="c">C</h2><p>z</p>',
    "excluded heading without a body": '<h2 id="a" data-search-exclude>A</h2><h2 id="b">B</h2>',
    "exclusion inside a list item": '<ul><li>one</li><li data-search-exclude><span>two</span>'
                                    '</li><li>three</li></ul>',
    "p that the parser closes itself": '<div data-search-exclude><p>one<p>two</div><p>k</p>',
    "nested same tag, then more text": '<section data-search-exclude><section>in</section>'
                                       'out</section><p>kept</p>',
    "script with a heading in a string": '<div data-search-exclude><script>x="<h2>"</script>'
                                         '</div><h2 id="h">H</h2><p>k</p>',
    "void element with a slash": '<div data-search-exclude><br/><img src="a"/>x</div><p>k</p>',
    "attribute that only looks like the mark": '<p data-search-excluded="1">indexed</p>',
}


@pytest.mark.parametrize("html", TRICKY.values(), ids=TRICKY.keys())
def test_the_index_is_the_same_on_tricky_pages(html: str) -> None:
    """The parser's behaviour, pinned on pages built to catch a changed rule: whatever the cut
    takes out, Material indexes the same sections, and the page comes back whole."""
    kept, parts = cut(html)
    assert indexed(kept) == indexed(html), RECHECK
    assert restore(kept, parts) == html


def test_an_exclusion_inside_a_part_already_found_is_not_looked_into() -> None:
    """The inner exclusions of an excluded section or element give no span of their own (the
    cut would skip it): their fragment is not checked a second time."""
    html = ('<h1 id="t">T</h1><h2 id="x" data-search-exclude>X</h2><div><p data-search-exclude>'
            'a</p><span data-search-exclude>b</span></div><div data-search-exclude>'
            '<p data-search-exclude>in</p></div><h2 id="y">Y</h2><p>kept</p>')
    spans = excluded_spans(html, PROFILE.search_exclude, frozenset(PROFILE.search_void))
    assert len(spans) == 1
    assert len(assert_same_index(html)) == 1


@pytest.mark.parametrize(("pattern", "needle"), [
    (r'\s?data-tn-\w+="[^"]+"', "data-tn-"), (r"ab?cde", "cde"), (r"[ab]+cde", "cde"),
    (r"abc*", "ab"), (r"a|bcd", ""), (r"a(bcd)", ""), (r"x\.yz", ""), (r"\w{2}abc", ""),
    (r"[]a]bcd", "bcd"), ("", "")])
def test_restore_scans_only_parts_that_hold_the_stripped_patterns_text(
        pattern: str, needle: str) -> None:
    """Text every match of the stripped pattern holds, read off a plain pattern only (anything
    else: every part is scanned, as before)."""
    assert stripped_needle(pattern) == needle


_PAGE_MACROS = ("home_overview", "algorithms_table", "formulas_page", "hardware_page",
                "tinker_page", "references_page", "further_reading_page", "data_quality_page",
                "backtest_page", "calculator", "compare", "ways_page")
"""The real site's page macros that take no argument (besides ``algorithm_page``)."""


def test_no_excluded_block_holds_an_element_of_its_own_tag() -> None:
    """Material's search parser matches an excluded element's end by its tag name: an inner
    element of the same tag would end the exclusion early, and what follows would be indexed.
    Checked on what the indexer reads (the macros' HTML, marks in place: the finished MkDocs
    pages carry none), every algorithm page and every page macro of the real catalog."""
    from helpers_site import parse

    from tinkernomics.site.build import shared_site
    from tinkernomics.site.outputs import read_theme_adapter

    root = Path(__file__).resolve().parents[1]
    ctx, macros = shared_site(root, theme=read_theme_adapter(root / "macros" / "theme.py"))
    pages = {name: macros[name]() for name in _PAGE_MACROS}
    pages |= {algo: macros["algorithm_page"](algo) for algo in ctx.catalog.algorithms}
    marked = 0
    for name, html in pages.items():
        for block in parse(html).iter():
            if "data-search-exclude" not in block.attrs:
                continue
            marked += 1
            inner = [n for n in block.iter() if n is not block and n.tag == block.tag]
            assert not inner, f"{name}: <{block.tag} class={block.attrs.get('class')!r}>"
    assert marked > len(ctx.catalog.algorithms), "the pages carry their marks"
