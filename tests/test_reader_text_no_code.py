"""No page shows readers a Python repr or an internal id where a name belongs (issue 44).

The Data quality lists printed an algorithm's unverified yes/no facts as
``status=<Status.unverified: 'unverified'> asserted_by=<AssertedBy...> ... value=True`` and named
the page they appear on by catalog id ("Algorithms › dr_grpo"). Checked on the built site (every
page) and on the view function itself.
"""

from __future__ import annotations

import re

from conftest_site import BuiltSite

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.pages.views import references

REPR = re.compile(r"&lt;(Status|AssertedBy|RewardSource|ExampleShape)\.|\b(status|asserted_by)="
                  r"|\blocator=None\b")


def test_no_page_prints_a_python_repr(built_site: BuiltSite) -> None:
    leaks = [p.relative_to(built_site.root).as_posix() for p in built_site.root.rglob("*.html")
             if REPR.search(p.read_text(encoding="utf-8"))]
    assert not leaks, f"pages printing a Python repr: {leaks[:5]}"


def test_every_semantic_fact_reads_as_words(catalog: Catalog) -> None:
    seen = 0
    for algo in catalog.algorithms.values():
        for name in type(algo.semantics).model_fields:
            fact = getattr(algo.semantics, name)
            if fact is None:
                continue
            text = str(references._value_text(fact, catalog.models))
            if hasattr(fact, "model"):
                assert text == catalog.models[fact.model].name, (algo.id, name, text)
            assert "=" not in text and "<" not in text, (algo.id, name, text)
            seen += 1
    assert seen


def test_an_algorithm_page_is_named_by_the_algorithm() -> None:
    assert references._page_title("algorithms/dr_grpo/", "Dr. GRPO") == "Algorithms › Dr. GRPO"
