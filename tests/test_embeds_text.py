"""Issue 46, without a build: alt text that reads as English and fits X's 420 characters (the
long description stays for the page), and attribution as text — the image caption (title,
source, date, licence, URL), "cite this chart" as plain text and BibTeX — with catalog text
escaped for each format."""

from __future__ import annotations

import dataclasses
import re

import helpers_cite as cite
import helpers_embedbox as box
import pytest
from helpers_charts import fitted_catalog_fixture, fitted_grpo_fixture  # noqa: F401

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import share
from tinkernomics.site.charts import spec as charts

BASE = "https://example.org/tn/"
LABELS = ("as the paper ran it", "the paper's baseline", "loss in the paper's baseline")


def _labelled(chart: charts.Chart, count: int) -> charts.Chart:
    """``chart`` with ``count`` curves, each named by a long curve label."""
    series = [dataclasses.replace(chart.series[i % len(chart.series)],
                                  name=f"Algorithm{i}", curve=LABELS[i % len(LABELS)])
              for i in range(count)]
    return dataclasses.replace(chart, series=tuple(series))


@pytest.fixture(scope="module")
def comparison(catalog: Catalog) -> charts.Chart:
    return charts.build_chart(catalog, charts.COMPARISON_ID, date="2026-11-30")


@pytest.mark.parametrize("count", [1, 3, 12])
def test_alt_text_reads_as_english_and_fits_420_characters(comparison: charts.Chart,
                                                           count: int) -> None:
    chart = _labelled(comparison, count)
    alt = share.alt_text(chart)
    assert len(alt) <= share.ALT_MAX_CHARS, len(alt)
    assert not re.search(r"(ran it|baseline)'s", alt), alt  # no possessive of a label
    assert re.search(r"Algorithm\d+ \((as the paper ran it|the paper's baseline|loss in "
                     r"the paper's baseline)\)", alt), alt  # a curve named with its label
    long = share.long_description(chart)
    assert all(f"Algorithm{i}" in long for i in range(count))  # the page keeps every curve
    if count == 12:
        assert re.search(r"and \d+ more\.$", alt), alt


def test_caption_names_title_source_date_licence_and_url(comparison: charts.Chart) -> None:
    text = box.caption_text(comparison, BASE)
    assert comparison.title in text and "2026-11-30" in text and "CC BY 4.0" in text
    assert comparison.sources[0].title in text and comparison.sources[0].id not in text
    assert text.endswith(f"{BASE}algorithms/#chart-{comparison.id}")
    markdown = box.markdown_snippet(comparison, BASE)
    html = box.html_snippet(comparison, BASE, (1200, 800))
    for snippet in (markdown, html):
        assert "2026-11-30" in snippet and "CC BY 4.0" in snippet and "tinker-nomics" in snippet
    assert "<figcaption>" in html


def test_cite_block_plain_and_bibtex(comparison: charts.Chart) -> None:
    plain = cite.cite_text(comparison, BASE)
    assert plain.startswith("tinker-nomics (2026). ") and "CC BY 4.0" in plain
    assert all(s.title in plain for s in comparison.sources)
    entry = cite.bibtex(comparison, BASE)
    assert entry.startswith("@misc{tinkernomics_scalerl_comparison,\n")
    assert "  year = {2026}" in entry and f"url = {{{BASE}algorithms/" in entry
    assert entry.count("{") == entry.count("}")


def test_hostile_titles_are_escaped_in_every_text_format(comparison: charts.Chart) -> None:
    title = "x} \\input{/etc/passwd} <img src=x onerror=alert(1)> _*"
    hostile = dataclasses.replace(comparison, title=title)
    entry = cite.bibtex(hostile, BASE)
    field = next(line for line in entry.splitlines() if line.startswith("  title = "))
    assert "\\input" not in field.replace("\\textbackslash{}input", "")
    assert field.count("{") - field.count("\\{") == field.count("}") - field.count("\\}")
    markdown = box.markdown_snippet(hostile, BASE)
    assert not re.search(r"(?<!\\)<img", markdown) and "\\<img" in markdown
    html = box.html_snippet(hostile, BASE, (1200, 800))
    assert "<img src=x" not in html
