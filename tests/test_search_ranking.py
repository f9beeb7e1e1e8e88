"""Search for readers (issue 31): Material's own search, typed into the built site in Chromium
(its worker, the built search/search_index.json, the site's search settings, page boosts and
search-terms.js), puts the page a reader wants first for the field's words and their synonyms,
and requires every word of a query."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest_site import BuiltSite
from helpers_search import SearchTab

pytestmark = [pytest.mark.build, pytest.mark.browser]

READER_FIRST = [
    ("reward model", "algorithms/"),         # which algorithms need one: the index's column
    ("H100 price", "hardware/"),             # dated rental prices
    ("GPU-hour", "hardware/"),               # synonym of the rental price ("H100 price")
    ("group size", "algorithms/"),           # G, typical per algorithm on the index
    ("critic", "algorithms/"),               # the index's Critic column and filter
    ("value model", "algorithms/"),          # synonym of critic
    ("kl penalty", "algorithms/grpo/"),
    ("KL coefficient", "algorithms/grpo/"),  # synonym of KL penalty
    ("clip-higher", "algorithms/dapo/"),
    ("clip higher", "algorithms/dapo/"),
    ("ScaleRL", "algorithms/"),              # the index's convergence section
    ("tinker price", "tinker/"),
]
"""(query, the page a reader wants first): at least ten, none a contributor or API page."""


@pytest.fixture(scope="module")
def search(browser, built_site: BuiltSite) -> Iterator[SearchTab]:
    tab = SearchTab(browser, built_site.root)
    yield tab
    tab.close()


@pytest.mark.parametrize(("query", "page"), READER_FIRST)
def test_the_reader_page_comes_first(search: SearchTab, query: str, page: str) -> None:
    found = search.results(query)
    assert found and found[0] == page, f"{query!r}: first results {found[:4]}"
    assert search.errors == []


def test_every_word_is_required(search: SearchTab) -> None:
    assert search.results("reward model")
    assert search.results("reward zzqqxx") == []  # Material's default listed "reward" pages



QUESTIONS = [
    ("cheapest", "ways/"),                   # issue 44: the cheapest way to run a job
    ("A100", "hardware/"),                   # a GPU: its specs (and dated prices) on Hardware
    ("tokens per second", "glossary/"),      # throughput: how the site derives time instead
]
"""(query, the page that answers) for the questions of issue 44 (found nothing before)."""


@pytest.mark.parametrize(("query", "page"), QUESTIONS)
def test_the_issue_44_questions_land_on_the_page_that_answers(search: SearchTab, query: str,
                                                               page: str) -> None:
    found = search.results(query)
    assert found and found[0] == page, f"{query!r}: first results {found[:4]}"
    assert search.errors == []
