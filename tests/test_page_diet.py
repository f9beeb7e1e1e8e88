"""Each thing said once on a page (issue 47), on the fixture catalog: an algorithm page gives a
reference's full line once (its References list, or the first citation's hover text), what the
sources report instead of an unverified value once (its data-quality entry, which the badge
links to), a value's status once (the badge); the index table's rows carry no repeated hover text
and sort keys no longer than sorting needs. Written to fail on the markup before."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived.derive import conversion_factor
from tinkernomics.site.pages import feature, figures
from tinkernomics.site.pages.views import Links, SiteIndex, build_index


@pytest.fixture(scope="module")
def index(valid_catalog_dir: Path) -> SiteIndex:
    catalog = load_valid_catalog(valid_catalog_dir)
    return build_index(catalog, conversion_factor(catalog))


class _Ctx:
    """The little of a SiteContext the page macros read (the index is cached in extra)."""

    def __init__(self, index: SiteIndex) -> None:
        self.extra: dict[str, Any] = {"views.index": index}
        self.catalog = index.catalog


def _page(index: SiteIndex, name: str, *args: str) -> str:
    return feature.macros(_Ctx(index))[name](*args)  # type: ignore[arg-type]


def test_a_reference_is_given_in_full_once_on_an_algorithm_page(index: SiteIndex) -> None:
    page = _page(index, "algorithm_page", "grpo")
    cited = set(re.findall(r'<a class="tn-cite" href="[^"#]*#([^"]+)"', page))
    listed = set(index.algorithms["grpo"].references)
    assert cited & listed and cited - listed  # the fixture cites both kinds
    for ref_id in cited:
        line = str(escape(index.ref_hover[ref_id]))
        assert page.count(line) == 1, ref_id
        titled = page.count(f'#{ref_id}" title="')
        assert titled == (0 if ref_id in listed else 1), ref_id


def test_a_lone_citation_keeps_its_hover_text(index: SiteIndex) -> None:
    """Outside a page (a fragment such as a compare column), every citation names its source."""
    c = index.cite("grpo_deepseekmath", Links("algorithms/"))
    line = str(escape(index.ref_hover["grpo_deepseekmath"]))
    assert str(figures.cite(c)).count(line) == 1
    with figures.per_page():
        assert [line in str(figures.cite(c)) for _ in range(3)] == [True, False, False]


def test_what_the_sources_report_instead_is_said_once(index: SiteIndex) -> None:
    """An unverified value's correction is printed in its data-quality entry, which its badge
    links to; the value's hover text does not repeat it, the badge's gives the status."""
    page = _page(index, "algorithm_page", "grpo")
    k = index.algorithms["grpo"].typical_k
    assert k.status.value == "unverified" and k.reported_instead
    assert page.count(str(escape(k.reported_instead))) == 1
    assert 'href="#dq-typical_k"' in page
    # the status meaning never on the value beside it; once on the page, which every badge
    # names (test_a_status_meaning_is_defined_once_and_every_badge_names_it)
    badges = page.count('class="tn-badge tn-badge--unverified" href=')
    assert badges > 1 and page.count("no source found that confirms it") == 1
    values = re.findall(r'class="tn-fig__value"(?: title="([^"]*)")?>', page)
    assert values and not any(t.startswith(("Reported:", "Derived:", "Unverified:"))
                              for t in values)


def test_a_status_meaning_is_defined_once_and_every_badge_names_it(index: SiteIndex) -> None:
    """Issue 47: a status meaning was the title of every badge (0.7 MB at 1,000 algorithms). An
    algorithm page defines each meaning once, in a hidden block left out of search; each badge
    names its definition with aria-describedby (its description for a screen reader; site.js
    shows it as the tooltip on hover), so every badge still explains itself."""
    page = _page(index, "algorithm_page", "grpo")
    badges = re.findall(r'<(?:a|span) class="tn-badge tn-badge--(\w+)"[^>]*>', page)
    described = re.findall(r'class="tn-badge tn-badge--(\w+)"(?: href="[^"]*")? '
                           r'aria-describedby="([^"]+)">', page)
    assert {"unverified", "derived"} <= {s for s, _ in described}
    assert 'class="tn-badge' in page and ' title="Unverified' not in page
    assert ' title="Derived' not in page
    block = re.search(r'<div class="tn-why" hidden data-search-exclude>(.*?)</div>', page)
    assert block is not None and page.count('class="tn-why"') == 1
    meanings = dict(re.findall(r'<span id="([^"]+)">([^<]+)</span>', block.group(1)))
    assert len(set(meanings.values())) == len(meanings)  # each meaning once
    for status, ref in described:
        assert meanings[ref].startswith(f"{status.capitalize()}: "), (status, meanings[ref])
    # a plain badge (a long list's) carries none; every other badge names its meaning
    plain = re.findall(r'class="tn-badge tn-badge--\w+">', page)
    assert plain and len(described) == len(badges) - len(plain)
    # a badge outside a page (a lone fragment) keeps its meaning as its title
    lone = index.shown("1", Status.derived, [], Links(""))
    assert str(figures.badge(lone)) == ('<span class="tn-badge tn-badge--derived" '
                                        f'title="Derived: {lone.status_meaning}.">derived</span>')


def test_the_index_rows_sort_keys_are_as_short_as_sorting_needs(catalog: Any) -> None:
    """The real catalog (a property, not its numbers): whole bytes and cents sort the GB and $
    columns as the table prints them; a float's repr was up to 20 characters per row."""
    from tinkernomics.site.pages.views.algorithms import algorithm_rows

    index = build_index(catalog, conversion_factor(catalog))
    rows = algorithm_rows(index, Links("algorithms/"))
    keys = [(k, v) for r in rows for k, v in r.filters.items() if k in ("gb", "usd") and v]
    assert keys and all(re.fullmatch(r"\d+(\.\d\d)?", v) for _, v in keys), keys[:4]


def test_search_keeps_the_name_and_loss_and_leaves_out_the_sources_reading(
        index: SiteIndex) -> None:
    """Material's search parser on the fixture's GRPO page: a search for its name or its Tinker
    loss finds the page; the ScaleRL record (a reading of the sources, other fits, superseded
    values) and the correction printed under an unverified claim are not indexed (the page's
    data-quality entries, not indexed either, print the same)."""
    from helpers_site import load_theme

    from tinkernomics.site.pages import rawhtml

    raw = rawhtml.convert(_page(index, "algorithm_page", "grpo"))
    assert raw is not None
    sections = load_theme().search_sections(raw.html)
    text = " ".join(f"{title} {body}" for _, title, body in sections)
    algo = index.algorithms["grpo"]
    assert algo.name in text and all(loss in text for loss in algo.tinker_losses)
    assert "scalerl-record" in raw.html and "scalerl-record" not in {s for s, _, _ in sections}
    assert algo.scalerl_record is not None and algo.scalerl_record.summary
    ids = [s for s, _, _ in sections]
    assert "profile" in ids and "notes" in ids and "tinker" in ids
    # a claim's correction (the fixture's claims have none: the template's mark, checked here)
    claim = feature.ENV.from_string(
        '{% from "_partials.html" import reported_instead %}{{ reported_instead(s, false) }}')
    marked = load_theme().search_sections(
        '<h2 id="c">C</h2>' + claim.render(s=index.shown("1", algo.typical_k.status, [],
                                                         Links(""), reported_instead="zzq")))
    assert "zzq" not in " ".join(body for _, _, body in marked)


def _fit_section(page: str) -> str:
    start = page.index('<div class="tn-scalerl">')
    return page[start:page.index("\n</div>", start)]


def test_a_locator_the_fit_parameters_share_is_printed_once(index: SiteIndex) -> None:
    """The fixture's A, B and C_mid are stated in one place of one source: the page prints
    that locator once, naming the three, and each figure keeps its citation."""
    from tinkernomics.site.pages.figures import locator

    fit = index.algorithms["grpo"].scalerl
    assert fit is not None and fit.A.locator == fit.B.locator == fit.C_mid.locator
    section = _fit_section(_page(index, "algorithm_page", "grpo"))
    where = str(locator(fit.A.locator))
    assert section.count(where) == 1
    assert f"Where in the source (A, B and C<sub>mid</sub>): {where}" in section
    assert section.count(f'#{fit.A.source}">') >= 3  # A, B, C_mid (and the H100 value) cite it


def test_the_fit_links_the_factors_derivation_instead_of_repeating_it(index: SiteIndex) -> None:
    """The GB200 -> H100 factor is its value and badge on an algorithm page; its inputs and
    their sources are the Hardware page's, linked (the same on every page with a fit)."""
    from tinkernomics.derived import derive

    f = index.factor
    section = _fit_section(_page(index, "algorithm_page", "grpo"))
    assert f.text in section and 'href="../../hardware/#conv-' in section
    assert derive.format_figure(f.numerator) not in section
    assert derive.format_figure(f.denominator) not in section
    assert f.legacy is not None and derive.format_figure(f.legacy) in section
    assert section.count("tn-badge--unverified") == 2  # the legacy hours' and factor's badges


def test_an_unverified_claims_correction_is_printed_once(tmp_path: Path) -> None:
    """What the sources report instead of an unverified claim is its data-quality entry's, on
    the same page, which the claim's badge links to (it was printed under the claim too)."""
    from helpers_catalog import copy_valid, replace_in

    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/grpo.yaml", "    status: reported\n    source: grpo_deepseekmath\n"
               "    locator: 'Fixture: §4.2 \"the fixture locator\"'",
               "    status: unverified\n    asserted_by: contributor\n"
               "    reported_instead: The zzq fixture correction.\n"
               "    source: grpo_deepseekmath")
    catalog = load_valid_catalog(root)
    page = _page(build_index(catalog, conversion_factor(catalog)), "algorithm_page", "grpo")
    assert page.count("The zzq fixture correction.") == 1
    claims = page[page.index('<div class="tn-claims">'):page.index("{#data-quality")]
    assert 'href="#dq-claims-0"' in claims and "zzq" not in claims


def test_a_list_of_unverified_values_does_not_badge_each_one(index: SiteIndex) -> None:
    """Issue 47: an algorithm page's unverified values, listed at its end, are all unverified
    (the heading says so, each item says who asserted it): no badge on each; the values where
    they appear keep theirs, linked to the item."""
    page = _page(index, "algorithm_page", "grpo")
    items = re.findall(r'<div class="tn-dq__item" id="([^"]+)">(.*?)</div>', page, re.S)
    assert items and all("tn-badge" not in body for _, body in items)
    assert all(body.startswith("\n<p>") for _, body in items)  # no class no stylesheet reads
    labelled = [body for _, body in items if 'class="tn-instead"' in body]
    assert labelled and all('<p class="tn-instead"><strong>Sources report instead:</strong> '
                            in body for body in labelled)  # a <strong>, not a classed span
    assert all(body.count('class="tn-fig"') == 1 for _, body in items)
    assert all(f'class="tn-badge tn-badge--unverified" href="#{i}"' in page for i, _ in items)


def test_a_value_gets_its_own_element_only_where_it_needs_one(index: SiteIndex) -> None:
    """Issue 47: a value is wrapped in ``tn-fig__value`` for its hover text (dotted underline)
    or to keep it on one line in a table (it holds a space, hyphen or slash); "64" is bare."""
    links = Links("algorithms/")
    bare = str(figures.shown(index.shown("64", Status.reported, [], links)))
    assert bare == '<span class="tn-fig">64</span>'
    spaced = str(figures.shown(index.shown("2,500 TFLOP/s", Status.reported, [], links)))
    assert '<span class="tn-fig__value">2,500 TFLOP/s</span>' in spaced
    for text in ("GB200-hours", "a/b", "1 GB"):
        assert "tn-fig__value" in str(figures.shown(index.shown(text, Status.reported, [], links)))
    noted = str(figures.shown(index.shown("64", Status.reported, [], links, note="zzq")))
    assert '<span class="tn-fig__value" title="zzq">64</span>' in noted


def test_search_indexes_a_charts_caption_and_leaves_out_its_long_description(
        tmp_path: Path) -> None:
    """Issue 47: a chart's summary (its kind, title and every number, for screen readers) is
    not indexed; the caption's title and description, which a reader searches, are."""
    from helpers_charts import fitted_catalog
    from helpers_site import load_theme

    from tinkernomics.site.charts import feature as chartsite
    from tinkernomics.site.charts import share as chartshare
    from tinkernomics.site.charts import spec as charts

    chart = charts.build_chart(fitted_catalog(tmp_path), charts.COMPARISON_ID)
    html = chartsite.render_figure(chart, root="../", site_url="https://example.org/tn/")
    assert chartshare.long_description(chart) in html.replace("&#39;", "'")
    text = " ".join(body for _, _, body in load_theme().search_sections('<h2 id="c">C</h2>' + html))
    assert chart.title in text
    assert "Line chart:" not in text
