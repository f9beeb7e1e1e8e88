"""A figure's locator on the page (issue 29): where in its source a value is stated is visible
text beside its citation on the algorithm pages, the compare columns and the calculator's inputs,
escaped as catalog text; a long one (a quoted sentence) is cut to one focusable line. Fixture
catalogs only: no real catalog data is encoded here."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in

from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import figures as calcfigures
from tinkernomics.site.build import SiteContext
from tinkernomics.site.calculator import pagedata
from tinkernomics.site.compare import feature as compare
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages import figures, views
from tinkernomics.site.pages.views.record import record_view

REPO_ROOT = Path(__file__).resolve().parent.parent
GRPO = "algorithms/grpo.yaml"
CLAIM_LOCATOR = "locator: 'Fixture: §4.2 \"the fixture locator\"'"
HOSTILE = 'Table <b>2</b> & "row" **A** <img src=x onerror=alert(1)>'
HOSTILE_SHOWN = "Table 2 &amp; &#34;row&#34; A"
"""The hostile locator as the page prints it: markdown and tags dropped, the rest escaped."""


def _catalog_with_claim_locator(tmp_path: Path, locator: str) -> Path:
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, CLAIM_LOCATOR, f"locator: '{locator}'")
    return root


def _claims_block(page: str) -> str:
    start = page.index('<div class="tn-claims">')
    return page[start:page.index("</div>", start)]


def test_a_claims_locator_reaches_its_algorithm_page_as_text_after_its_citation(
        tmp_path: Path) -> None:
    root = _catalog_with_claim_locator(tmp_path, "Table 7: “row **GRPO**” & <em>all</em>")
    ctx = SiteContext(root=REPO_ROOT, catalog=load_valid_catalog(root))
    claims = _claims_block(pages.algorithm_page(ctx, "grpo"))
    cite = claims.index('class="tn-cite"')
    where = claims.index(
        '<span class="tn-loc" data-search-exclude>Table 7: “row GRPO” &amp; all</span>')
    assert cite < where  # the source link, then where in it, as visible text
    assert "<strong>GRPO" not in claims and "<em>all" not in claims  # plain text, not markup


def test_a_hostile_locator_is_printed_as_plain_escaped_text(tmp_path: Path) -> None:
    """The validator refuses the tag; the page's escaping holds on its own (the view is built
    from a model the validator never saw)."""
    root = copy_valid(tmp_path)
    cat = load_valid_catalog(root)
    index = views.build_index(cat, derive.conversion_factor(cat))
    claim = cat.algorithms["grpo"].claims[0].model_copy(update={"locator": HOSTILE})
    out = str(figures.shown(index.claim(claim, views.Links("algorithms/grpo/"))))
    loc = re.search(r'<span class="tn-loc[^"]*"[^>]*>(.*?)</span>', out)
    assert loc is not None and loc.group(1).strip() == HOSTILE_SHOWN
    assert "<img" not in out and "<b>" not in out and "onerror" not in out


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>", '"><svg/onload=alert(1)>', "a & b < c", "x" * 200,
])
def test_the_locator_partial_escapes_whatever_it_is_given(text: str) -> None:
    out = str(figures.locator(text))
    inner = out[out.index(">") + 1:out.rindex("</span>")]
    assert html.unescape(inner) == text and "<" not in inner and '"' not in inner


def test_a_long_locator_is_one_focusable_line_a_short_one_plain_text() -> None:
    short, long = "§4.2", 'Abstract: "' + "a quoted sentence, " * 5 + '"'
    assert str(figures.locator(short)) == '<span class="tn-loc" data-search-exclude>§4.2</span>'
    out = str(figures.locator(long))
    assert out.startswith('<span class="tn-loc tn-loc--long" tabindex="0" data-search-exclude>')
    assert html.unescape(out).count("a quoted sentence") == 5  # the full text is in the page
    assert str(figures.locator("")) == ""


def test_the_index_row_leaves_the_locator_to_the_algorithms_page(tmp_path: Path) -> None:
    cat = load_valid_catalog(copy_valid(tmp_path))
    index = views.build_index(cat, derive.conversion_factor(cat))
    s = index.claim(cat.algorithms["grpo"].claims[0], views.Links("algorithms/"))
    assert s.locator == 'Fixture: §4.2 "the fixture locator"'
    assert "tn-loc" in str(figures.shown(s)) and "tn-loc" not in str(figures.brief(s))
    # the hover text leaves out what is visible beside the value: the locator, the source
    assert "fixture locator" not in s.hover and "Source:" not in s.hover
    # nor the status, which the badge gives (a reported value: no badge, no hover text)
    title = re.search(r'class="tn-fig__value"( title="[^"]*")?>', str(figures.shown(s)))
    assert title is not None and (title.group(1) or "").count(s.status.capitalize() + ":") == 0


def test_a_value_hover_leaves_out_the_note_and_instead_printed_beside_it(tmp_path: Path) -> None:
    """The note (printed in <small> beside a figure on its profile) and what the sources report
    instead (printed under a claim) stay in the hover text only where the page does not print
    them next to the value."""
    cat = load_valid_catalog(copy_valid(tmp_path))
    index = views.build_index(cat, derive.conversion_factor(cat))
    s = index.shown("1", Status.unverified, [], views.Links("algorithms/"),
                    note="a **fixture** note", reported_instead="two")
    assert "a fixture note" in s.hover and "Sources report instead: two" in s.hover
    bare = s.title(note_beside=True, instead_beside=True)
    assert bare == s.hover_status and "fixture note" not in bare and "two" not in bare
    out = str(figures.shown(s, True, True, False))
    assert "fixture note" not in out and "Sources report instead: two" in out
    # with its own data-quality entry (the badge links there), what the sources report instead
    # is that entry's text, not the value's hover text
    entry = index.shown("1", Status.unverified, [], views.Links("algorithms/"), note="n",
                        reported_instead="two", origin=views.Origin("algorithm", "grpo", ("x",)))
    linked = str(figures.shown(entry))
    assert "two" not in linked and 'href="#dq-x"' not in linked
    assert 'href="grpo/#dq-x"' in linked  # its own page's entry (issue 47: no kind, no id)


def test_the_record_table_prints_each_locator_once_in_its_column(tmp_path: Path) -> None:
    cat = load_valid_catalog(copy_valid(tmp_path))
    index = views.build_index(cat, derive.conversion_factor(cat))
    view = record_view(index, cat.algorithms["grpo"], views.Links("algorithms/grpo/"))
    assert view is not None
    [variant] = view.variants
    assert [str(w) for w in variant.where] == ['Table 1, "the GRPO row"']
    assert variant.values[0] is not None and variant.values[0].locator == ""
    assert "tn-loc" not in str(figures.shown(variant.values[0]))


def test_the_compare_column_shows_a_claims_locator(tmp_path: Path) -> None:
    root = _catalog_with_claim_locator(tmp_path, "Figure 3 & “its caption”")
    ctx = SiteContext(root=REPO_ROOT, catalog=load_valid_catalog(root))
    # the column file, which nothing indexes, carries no search mark (compare.feature.compact)
    assert '<span class="tn-loc">Figure 3 &amp; “its caption”</span>' in \
        compare.column_html(ctx, "grpo")


def test_the_calculator_ships_each_figures_locator_as_plain_text(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, "locator: 'Fixture: §4.2, \"For each question",
               "locator: 'Fixture: **§4.2**, \"For each question")
    cat = load_valid_catalog(root)
    algo = cat.algorithms["grpo"]
    figs, _ = pagedata.figures_data(cat, list(calcfigures.algorithm_figures(algo)),
                                    views.Links("calculator/"))
    assert figs["algorithm:grpo:g"]["where"] == \
        'Fixture: §4.2, "For each question, we sample a group of outputs."'
    assert figs["algorithm:grpo:k"]["where"] is None  # unverified in the fixture: no locator
