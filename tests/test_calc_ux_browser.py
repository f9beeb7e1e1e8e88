"""The calculator as a reader uses it (issue 31), in the built site in Chromium: the summary of the
estimate stays in view while the inputs scroll past and change, on a phone and a desktop; an
algorithm switch keeps the reader's settings unless the new algorithm cannot use them (and says
so); every algorithm's default run is priced; the result says how fresh its prices are; with
JavaScript off the form is not live and the page says what its numbers are. Expected numbers
come from Python's estimate of the page's own link, never from today's catalog.

The tests with JavaScript share one page (``shared``) on the built site, served under the site
URL's path (``helpers_security.served_site_context``: links resolve as under the published
site's sub-path; the browser caches what every page loads); ``tab`` resets it
(storage, viewport, errors, missing requests) and each test then navigates it to its own link.
Its pages search an empty index (test_calc_browser.SharedTab)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_security import Watch, served_site_context
from test_calc_browser import SharedTab

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import inputs
from tinkernomics.derived.calculator.estimate import estimate, graph_for
from tinkernomics.site.calculator import asof
from tinkernomics.site.calculator import feature as calcsite
from tinkernomics.site.calculator import presets as calcpresets
from tinkernomics.site.calculator.formatting import fmt_value

CALC = "calculator/"
"""Under the served site (each context's ``base_url``)."""
READY = "[data-tn-calc][data-tn-ready]"
BAR = ".tn-calc__summary"
SIZES = [(390, 844), (1280, 900)]

RECTS_JS = """([field, bar]) => {
    const f = document.querySelector(field).getBoundingClientRect();
    const b = document.querySelector(bar).getBoundingClientRect();
    return {field: [f.top, f.bottom], bar: [b.top, b.bottom], height: innerHeight};
}"""


@pytest.fixture(scope="module")
def shared(browser: Any, built_site: BuiltSite) -> Iterator[tuple[SharedTab, Watch]]:
    """One page on the built site under its URL's path, for the module's tests with
    JavaScript."""
    with served_site_context(browser, built_site.root, SUB_PATH_URL,
                             viewport={"width": 1280, "height": 900}) as (context, watch, _):
        yield SharedTab(context=context), watch


@pytest.fixture
def tab(shared: tuple[SharedTab, Watch], request: pytest.FixtureRequest) -> Iterator[Any]:
    """The shared page, reset and sized for a test (``indirect`` parameter: (width, height));
    the requests it missed and the errors it reports are counted from now."""
    tab, watch = shared
    width, height = getattr(request, "param", (1280, 900))
    page = tab.reset(width=width, height=height)
    watch.missing.clear()
    yield page
    assert tab.page_errors == []
    assert watch.missing == []


def open_calc(page: Any, query: str = "") -> None:
    page.goto(CALC + query)
    page.wait_for_selector(READY)


def page_query(page: Any) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query))


def bar_texts(page: Any) -> dict[str, str]:
    return dict(page.eval_on_selector_all(
        BAR + " [data-tn-sum]", "els => els.map(e => [e.dataset.tnSum, e.textContent])"))


SWITCHED_JS = f"""() => [
    Object.fromEntries(Array.from(document.querySelectorAll('{BAR} [data-tn-sum]'))
      .map(e => [e.dataset.tnSum, e.textContent])),
    location.search, window.tnCalculator.last().values]"""
"""In one round trip: the summary bar's texts, the link's query and the computed values."""


def expected_bar(catalog: Catalog, query: dict[str, str]) -> dict[str, str]:
    e, graph = estimate(catalog, query), graph_for(catalog)
    return {key: fmt_value(graph.quantity(key).format, e.numbers[key])
            for _, key in calcsite.BAR}


def wait_for(page: Any, key: str, value: str) -> None:
    page.wait_for_function("([k, v]) => new URLSearchParams(location.search).get(k) === v",
                           arg=[key, value])


@pytest.mark.parametrize("tab", SIZES, indirect=True, ids=["phone", "desktop"])
def test_summary_stays_in_view_while_the_inputs_change(tab: Any, catalog: Catalog) -> None:
    """Scrolled to the last input and changing it, the summary is on screen, clear of the
    field, and shows the new estimate (Python's for the page's link)."""
    page = tab
    open_calc(page)
    for closed in page.query_selector_all(".tn-calc__group:not([open]) > summary"):
        closed.click()
    fields = page.eval_on_selector_all(
        '.tn-calc__form input[type="text"]', "els => els.filter(e => e.checkVisibility())"
        ".map(e => e.name)")
    last = f'.tn-calc__form input[name="{fields[-1]}"]'
    # Half way down the form the bar already sits at the foot of the window.
    page.locator('input[name="G"]').scroll_into_view_if_needed()
    mid = page.evaluate(RECTS_JS, ['input[name="G"]', BAR])
    assert abs(mid["bar"][1] - mid["height"]) <= 1
    page.locator(last).scroll_into_view_if_needed()
    before = bar_texts(page)
    # The last input, then the storage months next to it (a number the Tinker bill reads).
    page.fill(last, "75")
    wait_for(page, fields[-1], "75")
    page.fill('input[name="mo"]', "240")
    wait_for(page, "mo", "240")
    rects = page.evaluate(RECTS_JS, [last, BAR])
    shown = bar_texts(page)
    assert rects["bar"][0] >= 0 and rects["bar"][1] <= rects["height"], "summary off screen"
    assert rects["field"][1] <= rects["bar"][0] or rects["field"][0] >= rects["bar"][1], \
        "the summary covers the field being edited"
    assert rects["bar"][1] - rects["bar"][0] <= 0.1 * rects["height"], "summary too tall"
    assert shown == expected_bar(catalog, page_query(page))
    assert shown != before
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0


def test_summary_speaks_once_and_the_results_do_not(tab: Any, catalog: Catalog) -> None:
    """Screen readers hear one sentence after typing stops (a status line), not the whole
    results area on every keystroke; the bar's link is reachable by keyboard."""
    page = tab
    open_calc(page)
    assert page.get_attribute(".tn-calc__results", "aria-live") is None
    said = BAR + ' [role="status"]'
    page.wait_for_timeout(1500)
    assert page.text_content(said) == "", "the page spoke before the reader changed anything"
    page.fill('input[name="steps"]', "")
    page.locator('input[name="steps"]').press_sequentially("250", delay=50)
    page.wait_for_function(f"() => document.querySelector('{said}').textContent !== ''")
    text = page.text_content(said)
    total = expected_bar(catalog, page_query(page))["tinker.total"]
    assert text.startswith("Estimate: Tinker bill ") and total in text
    page.focus(BAR + " a")
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash === '#estimate'")
    # the link moves to the estimate and keeps what the reader typed (Material's instant
    # navigation had loaded the page afresh from its defaults)
    assert page_query(page)["steps"] == "250"
    assert page.input_value('input[name="steps"]') == "250"
    assert page.evaluate("document.activeElement.id") == "estimate"


def test_switching_algorithm_keeps_g(tab: Any, catalog: Catalog) -> None:
    """G (and K) survive a switch to an algorithm that reads them (all do: they have no
    ``when``); the page prices the run and says what it kept against the new algorithm's
    typical values."""
    page = tab
    open_calc(page)
    g = page_query(page)["G"]
    untypical = next(a for a, x in catalog.algorithms.items() if x.typical_g is None)
    page.select_option('select[name="a"]', untypical)
    wait_for(page, "a", untypical)
    query = page_query(page)
    assert query["G"] == g
    assert bar_texts(page) == expected_bar(catalog, query)
    assert "–" not in bar_texts(page).values()
    note = page.text_content(".tn-calc__results .tn-calc__switch")
    assert f"G = {g}" in note and "no typical value" in note
    assert page.text_content('[data-field="a"] .tn-calc__switch') == note
    # the copy under the field is not part of the select's name
    assert page.get_by_role("combobox", name="Algorithm", exact=True).count() == 1


def test_switching_drops_what_the_new_algorithm_cannot_use(tab: Any,
                                                            catalog: Catalog) -> None:
    """A teacher kept for a method without one is dropped from the link and named; so is the
    reference copy setting for a method without a reference. What applies is each key's
    ``when`` (inputs.INPUTS), shipped with the page."""
    when = {i.key: i.when for i in inputs.INPUTS}
    assert when["tm"] and when["rc"]
    page = tab
    open_calc(page)
    preset = calcpresets.presets()[2][1]  # the distillation preset sets a teacher
    page.click(".tn-calc__preset >> nth=2")
    page.wait_for_function("tm => document.querySelector('select[name=\"tm\"]').value === tm",
                           arg=preset["tm"])
    teacher = catalog.models[preset["tm"]].name
    plain = next(a for a, x in catalog.algorithms.items()
                 if "teacher" not in {r.value for r in x.models_in_memory}
                 and "reference" in {r.value for r in x.models_in_memory})
    page.select_option('select[name="a"]', plain)
    wait_for(page, "a", plain)
    assert "tm" not in page_query(page)
    name = catalog.algorithms[plain].name
    note = page.text_content(".tn-calc__results .tn-calc__switch")
    assert f"Teacher model = {teacher} does not apply to {name}; dropped." in note
    # the reference copy, set on a method with a reference, then a method without one
    page.eval_on_selector('[data-field="rc"]', "f => { f.closest('details').open = true; }")
    page.select_option('select[name="rc"]', "1")
    wait_for(page, "rc", "1")
    bare = next(a for a, x in catalog.algorithms.items()
                if {r.value for r in x.models_in_memory} == {"policy"})
    page.select_option('select[name="a"]', bare)
    wait_for(page, "a", bare)
    assert "rc" not in page_query(page)
    assert "does not apply to" in page.text_content(".tn-calc__results .tn-calc__switch")
    assert bar_texts(page) == expected_bar(catalog, page_query(page))


def one_of_each_kind(catalog: Catalog) -> list[str]:
    """The first algorithm of each kind the calculator tells apart: the models it keeps in
    memory, critic, reward model, memory class, online or offline, whether it has a group size
    and run semantics of its own."""
    kinds: dict[tuple[object, ...], str] = {}
    for algo in catalog.algorithms.values():
        kind = (tuple(sorted(map(str, algo.models_in_memory))), algo.needs_critic,
                algo.needs_reward_model, str(algo.memory_profile), algo.online,
                algo.typical_g is None, algo.semantics is None)
        kinds.setdefault(kind, algo.id)
    return list(kinds.values())


@pytest.mark.parametrize("which", ["kinds", pytest.param("all", marks=pytest.mark.sweep)])
def test_every_algorithm_is_priced_after_a_switch(tab: Any, catalog: Catalog,
                                                  which: str) -> None:
    """From the default run, each catalog algorithm in turn: no summary number is '–', and the
    page computes what Python computes for the resulting link. `make test` switches to one
    algorithm of each kind (``one_of_each_kind``), the ``sweep`` group to every one."""
    page = tab
    open_calc(page)
    algos = one_of_each_kind(catalog) if which == "kinds" else list(catalog.algorithms)
    assert which == "all" or len(algos) > 1
    for algo in algos:
        page.select_option('select[name="a"]', algo)
        page.wait_for_function("a => window.tnCalculator.last().names.algorithm === a", arg=algo)
        shown, search, values = page.evaluate(SWITCHED_JS)
        bill = estimate(catalog, dict(parse_qsl(search.lstrip("?"))))
        # a run Tinker cannot do (a critic: issue 44) has no Tinker bill; nothing else is '–'
        assert "–" not in [v for k, v in shown.items()
                           if k != "tinker.total" or not bill["tinker.no"]], algo
        assert shown == expected_bar(catalog, dict(parse_qsl(search.lstrip("?")))), algo
        assert all(math.isfinite(values[k]) for k in ("self.total", "mem.peak")), algo


def test_without_javascript_the_form_is_off_and_says_why(browser: Any, built_site: BuiltSite,
                                                         catalog: Catalog) -> None:
    """JavaScript off, through a link with a setting: the notice at the form says the page
    needs script and which run its numbers are, the fields are disabled (not focusable), the
    presets and the summary bar (script-only) are hidden, the static numbers are the default
    run's, and the notice's links lead to pages of the built site."""
    with served_site_context(browser, built_site.root, SUB_PATH_URL, java_script_enabled=False,
                             viewport={"width": 390, "height": 844}) as (context, watch, _):
        page = context.new_page()
        page.goto(CALC + "?steps=1000")
        notice = page.locator(".tn-calc__noscript")
        assert notice.is_visible()
        text = notice.text_content()
        assert "needs JavaScript" in text and "?steps=1000" in text
        default = estimate(catalog, calcsite.preset_queries(catalog)[0])
        assert calcsite.describe_run(default) in " ".join(text.split())
        assert page.eval_on_selector(".tn-calc__fieldset", "f => f.disabled")
        assert not page.locator(".tn-calc__presets").is_visible()
        assert not page.locator(BAR).is_visible()
        reached = set()
        for _ in range(80):  # the tab order reaches no field (a group's title, yes)
            page.keyboard.press("Tab")
            reached.add(page.evaluate("document.activeElement.closest('.tn-calc__form')"
                                      " ? document.activeElement.tagName : ''"))
        assert "SUMMARY" in reached, "the tab order never reached the form"
        assert reached <= {"", "SUMMARY"}, reached
        static = page.text_content('.tn-calc__static [data-key="tinker.total"]')
        graph = graph_for(catalog)
        assert static == fmt_value(graph.quantity("tinker.total").format,
                                   default["tinker.total"])
        hrefs = notice.locator("a").evaluate_all("els => els.map(a => a.href)")
        assert len(hrefs) == 3
        for href in hrefs:
            page.goto(href)
            assert page.locator("h1").count() == 1, href
        assert watch.missing == []


def test_a_preset_opens_its_own_settings(tab: Any, catalog: Catalog) -> None:
    """Each preset's settings, its price list included, are the page's link after the click
    (Material's instant navigation rewrites the links' href attributes to absolute URLs)."""
    page = tab
    open_calc(page)
    for i, query in enumerate(calcsite.preset_queries(catalog)):
        page.click(f".tn-calc__preset >> nth={i}")
        page.wait_for_function("q => Object.entries(q).every(([k, v]) =>"
                               " new URLSearchParams(location.search).get(k) === v)", arg=query)
        assert query.items() <= page_query(page).items()


def test_the_result_says_how_fresh_its_prices_are(tab: Any, catalog: Catalog) -> None:
    """For each price list, the result's Tinker card says its date, and a stale-prices warning
    shows exactly when asof.view (judged on the build day the page's footer states) calls the
    list stale; the algorithm pages' cost panels say the date too."""
    page = tab
    for plist in catalog.price_lists:
        open_calc(page, f"?p={plist}")
        built = dt.date.fromisoformat(
            page.get_attribute("[data-tn-build-date] time", "datetime"))
        expected = asof.view(catalog, plist, built)
        card = page.text_content(".tn-calc__results .tn-calc__card")
        assert f"as of {expected['date']}" in card, plist
        warning = page.locator(".tn-calc__results .tn-calc__stale:not(.tn-calc__stale--gpu)")
        assert warning.count() == (1 if expected["stale"] else 0), plist
        if expected["newer"]:
            assert expected["newer"] in warning.text_content()
    page.goto(f"algorithms/{inputs.DEFAULT_ALGORITHM}/")
    latest = catalog.price_lists[inputs.latest_price_list(catalog)].effective.isoformat()
    assert f"Tinker prices as of {latest}" in page.text_content(".tn-calc-panel")
