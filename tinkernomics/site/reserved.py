"""Names the site's features use where entry ids go (read by ``tinkernomics validate`` and the
build, like ``site.needs``).

Each namespace below is a place where a feature writes one file, folder or anchor per entry
(``calculator/algorithms/<id>.json``) and, beside them, names of its own (``index.json``). An
entry that takes one of those names overwrites the feature's file or duplicates its anchor while
every file is valid on its own, so the loader refuses such an id (``catalog.sitenames``) with the
names listed here. The fixed names are read from the features' constants where they exist;
``tests/test_validate_names.py`` builds the site and checks that every name in each namespace is
an entry's own or listed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tinkernomics.catalog.sitenames import Reserved, SiteNames
from tinkernomics.site.api.documents import COLLECTIONS
from tinkernomics.site.api.version import API_MAJOR
from tinkernomics.site.calculator.pagedata import ALGORITHMS_DIR, CALCULATOR
from tinkernomics.site.charts.embed import EMBED_DIR
from tinkernomics.site.charts.spec import ALGORITHM_PREFIX, COMPARISON_ID
from tinkernomics.site.pages.views.core import ALGORITHMS, FORMULAS, HARDWARE, REFERENCES, TINKER

ID = "{}"
"""Where the entry's id goes in a namespace's pattern."""
SECTION_INDEX = "index"
"""MkDocs' section page: ``docs/algorithms/index.md`` is the algorithms list at ``algorithms/``
(a page of the site's own among the algorithm page stubs)."""
CALCULATOR_INDEX = "index"
"""``calculator/algorithms/index.json``, the calculator's list of algorithms (written by
``site/calculator/pagedata.write_algorithm_files``, which should take the name from here)."""
REFERENCE_HEADINGS = ("references", "key-references", "other-sources")
"""The References page's heading anchors (its title, then ``pages/views/references.
reference_groups``' two groups, which should take their anchors from here): each reference's
anchor there is its id."""
COMPARISON = COMPARISON_ID.removeprefix(ALGORITHM_PREFIX)
"""``embed/scalerl-comparison/``: the comparison chart among the algorithms' charts."""


@dataclass(frozen=True)
class Namespace:
    """Where a feature writes one name per entry of ``kind``: ``pattern`` is a path in the built
    site (``/`` ends a folder or page, ``#`` starts an anchor), ``{}`` the id; ``fixed`` maps
    the feature's own names there to what they are."""

    kind: str
    pattern: str
    fixed: dict[str, str] = field(default_factory=dict)


ALGORITHM_PAGES = Namespace("algorithm", f"algorithms/{ID}/", {
    SECTION_INDEX: "docs/algorithms/index.md, the algorithms list"})
NAMESPACES: tuple[Namespace, ...] = (
    ALGORITHM_PAGES,
    Namespace("algorithm", f"{CALCULATOR}{ALGORITHMS_DIR}/{ID}.json", {
        CALCULATOR_INDEX: f"{CALCULATOR}{ALGORITHMS_DIR}/{CALCULATOR_INDEX}.json, the "
                          "calculator's list of algorithms"}),
    Namespace("algorithm", f"{EMBED_DIR}/{ALGORITHM_PREFIX}{ID}/", {
        COMPARISON: f"{EMBED_DIR}/{COMPARISON_ID}/, the comparison chart"}),
    Namespace("algorithm", f"{EMBED_DIR}/{COMPARISON_ID}/series/{ID}.json"),
    Namespace("reference", f"{REFERENCES}#{ID}", {
        anchor: f"the References page's heading #{anchor}" for anchor in REFERENCE_HEADINGS}),
    *(Namespace(c.kind, f"api/{API_MAJOR}/{c.path}/{ID}.json") for c in COLLECTIONS),
    # Anchors the page templates give each entry (prefixed: the pages' headings cannot clash
    # while none starts with the prefix; the test checks that too).
    Namespace("algorithm", f"{ALGORITHMS}#row-{ID}"),
    Namespace("formula", f"{FORMULAS}#formula-{ID}"),
    Namespace("hardware", f"{HARDWARE}#hw-{ID}"),
    Namespace("conversion", f"{HARDWARE}#conv-{ID}"),
    Namespace("loss", f"{TINKER}#loss-{ID}"),
    Namespace("model", f"{TINKER}#model-{ID}"),
    Namespace("price_list", f"{TINKER}#prices-{ID}"),
    Namespace("model", f"{TINKER}#arch-{ID}"),
    Namespace("way", f"ways/#way-{ID}"),
    Namespace("cookbook", f"ways/#cookbook-{ID}"),
)
"""Every namespace shared with entry ids (the test checks the built site against each)."""


def algorithm_page_stub(algo_id: str) -> str:
    """The whole text of an algorithm's page stub, as ``pages.feature.algorithm_stub`` writes it
    (``tests/test_validate_names.py`` checks they agree; importing it here would be a cycle: the
    pages import ``build``, which imports this module)."""
    return f'{{{{ algorithm_page("{algo_id}") }}}}\n'


def site_reserved() -> list[Reserved]:
    """(kind, name, what uses it) for every name a feature writes beside the entries' own."""
    return [(ns.kind, name, used_for) for ns in NAMESPACES for name, used_for in ns.fixed.items()]


def site_names() -> SiteNames:
    """What the loader needs to know of the site's names (``load_catalog(names=...)``)."""
    return SiteNames(reserved=tuple(site_reserved()),
                     own_pages=frozenset(ALGORITHM_PAGES.fixed), stub=algorithm_page_stub)
