"""The Calculator page computes in the browser exactly what the Python reference computes.

Each case is a calculator link (its query string). The page, built once per session and served
on a loopback port, is opened in headless Chromium through that link; the test then compares,
for every shown quantity of the graph, the browser's value with Python's (exact float
equality), every shown number with ``formatting.fmt_value`` of Python's value, and the listed
inputs with ``helpers_figures.figure_keys`` (the rules applied in Python). The last tests add a
cost line and a quantity to the graph in Python only and show the unchanged calculator.js
computing and showing them.

The module's tests share one browser page (``calc_tab``): each test navigates it to its own
link after ``SharedTab.reset`` has cleared the storage, routes and errors an earlier test left and
set the test's viewport and colour scheme, so every test still starts from a fresh document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import helpers_figures
import pytest
from conftest_site import SUB_PATH_URL
from helpers_browser import NO_SEARCH_INDEX
from helpers_calc import real_catalog, shown_numbers
from helpers_security import routed_site

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import model, resources, tree
from tinkernomics.derived.calculator.estimate import estimate, graph_for
from tinkernomics.derived.calculator.graph import Line, Quantity
from tinkernomics.markup.templatejson import template_json
from tinkernomics.site.calculator import feature as calcsite
from tinkernomics.site.calculator import pagedata
from tinkernomics.site.calculator import presets as calcpresets
from tinkernomics.site.calculator.formatting import fmt_count, fmt_number, fmt_usd, fmt_value
from tinkernomics.site.pages.views import Links

pytestmark = pytest.mark.browser


CASES: dict[str, dict[str, str]] = {
    "defaults": {},
    "fireworks-episode": dict(calcpresets.presets()[1][1]),
    "opd-teacher": dict(calcpresets.presets()[2][1]),
    "ppo-full": dict(calcpresets.presets()[3][1]),
    "moe-multiturn-cache-overrides": {
        "a": "cispo", "m": "gpt-oss-120b", "hw": "gb200", "steps": "37", "n": "48", "G": "16",
        "K": "2", "in": "1234", "out": "777", "T": "5", "d": "3333", "cache": "1",
        "mt": "41.5", "mp": "27", "md": "3.25", "gp": "7.77", "tf": "75", "kv_cache": "12.5",
        "ck": "3", "mo": "2.5", "r": "8",
    },
    "lora-site-accounting": {"lf": "site"},
    "lora-site-accounting-rank-dmodel": {"lf": "site", "a": "ppo", "m": "qwen3-32b", "r": "64",
                                         "D": "5120", "K": "2"},
    "no-price-row": {"m": "llama-3.1-8b", "p": "2026-07-17", "a": "dr_grpo"},
    "offline-dpo": {"a": "dpo", "G": "2", "steps": "500", "n": "128", "ft": "full"},
    "ppo-rule-reward-no-reference": {"a": "ppo", "rw": "0", "ref": "0"},
    "invalid-values": {"steps": "abc", "G": "0", "in": "-5", "K": "9999", "T": "1.5",
                       "md": "1e3", "hw": "nope", "ref": "0", "lf": "Site", "rw": "yes"},
}


class SharedTab:
    """One page in one browser context, reused by a module's tests (a new page costs a
    renderer process; navigating an open one does not). ``reset`` undoes what a test can leave
    behind before the next one navigates: storage, routes, errors, viewport, colour scheme.
    Its pages search an empty index (``NO_SEARCH_INDEX``). The context is a new one (``options``
    as for ``new_context``) or ``context``, one the caller made and closes (routed_site's)."""

    def __init__(self, browser: Any = None, *, context: Any = None, **options: Any) -> None:
        options = {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light",
                   **options}
        self.owned = context is None
        self.context = browser.new_context(**options) if context is None else context
        self.context.add_init_script(NO_SEARCH_INDEX)
        self.page = self.context.new_page()
        size = self.page.viewport_size
        self.size = (size["width"], size["height"])
        self.scheme = options["color_scheme"] if self.owned else "light"
        self.errors: list[str] = []
        self.page_errors: list[str] = []
        self.page.on("pageerror", self._page_error)
        self.page.on("console", self._console)

    def _page_error(self, error: Any) -> None:
        self.errors.append(str(error))
        self.page_errors.append(str(error))

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def reset(self, *, width: int = 1280, height: int = 900, scheme: str = "light") -> Any:
        """The page, ready for a new test's first navigation (it still shows the last one)."""
        page = self.page
        page.unroute_all(behavior="ignoreErrors")
        page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); }"
                      " catch (e) { /* about:blank has no storage */ } }")
        if (width, height) != self.size:
            page.set_viewport_size({"width": width, "height": height})
            self.size = (width, height)
        if scheme != self.scheme:
            page.emulate_media(color_scheme=scheme)
            self.scheme = scheme
        self.errors, self.page_errors = [], []
        return page

    def open(self, url: str) -> Any:
        """The reset page at ``url``, once the calculator there is ready."""
        page = self.reset()
        page.goto(url)
        page.wait_for_selector("[data-tn-calc][data-tn-ready]")
        return page

    def close(self) -> None:
        if self.owned:
            self.context.close()
        else:
            self.page.close()


@pytest.fixture(scope="module")
def calc_tab(browser: Any) -> Iterator[SharedTab]:
    """The module's one page on the session's shared Chromium (see tests/helpers_browser.py)."""
    tab = SharedTab(browser)
    yield tab
    tab.close()


def open_calculator(tab: SharedTab, base: str, query: dict[str, str], *, width: int = 1280,
                    scheme: str = "light", html: str | None = None) -> tuple[Any, list[str]]:
    """The calculator through a link, in the reset tab; with ``html``, that HTML is served as
    the page. Returns the page and the errors it reports from now on."""
    page = tab.reset(width=width, scheme=scheme)
    if html is not None:
        page.route(lambda url: urlsplit(url).path == "/calculator/", lambda route: route.fulfill(
            status=200, content_type="text/html; charset=utf-8", body=html))
    suffix = "?" + urlencode(query) if query else ""
    page.goto(base + "calculator/" + suffix)
    page.wait_for_selector("[data-tn-calc][data-tn-ready]")
    return page, tab.errors


SWEPT_CASES = ("lora-site-accounting", "fireworks-episode", "ppo-full")
"""Cases another case covers (``lora-site-accounting-rank-dmodel`` sets the same accounting
with more; the Fireworks and PPO presets: ``moe-multiturn-cache-overrides`` prices several
turns and more, ``lora-site-accounting-rank-dmodel`` PPO's critic): `make test-sweep`'s (.ci/run
runs it too)."""


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.sweep) if c in SWEPT_CASES
                                  else c for c in CASES])
def test_browser_equals_python(calc_tab: SharedTab, site_server: str, catalog: Catalog,
                               case: str) -> None:
    assert_page_equals_python(calc_tab, site_server, catalog, CASES[case])


def assert_page_equals_python(tab: SharedTab, base: str, catalog: Catalog,
                              query: dict[str, str], html: str | None = None) -> list[Any]:
    """Open the calculator (its HTML replaced by ``html`` if given) and compare with Python."""
    e = estimate(catalog, query)
    graph = graph_for(catalog)
    page, errors = open_calculator(tab, base, query, html=html)
    last = page.evaluate("(({numbers, figures}) => ({numbers, figures}))"
                         "(window.tnCalculator.last())")
    shown = page.eval_on_selector_all(
        ".tn-calc__results [data-key]", "els => els.map(e => [e.dataset.key, e.textContent])")
    assert errors == []
    # Playwright hands over whole JS numbers as Python ints written out in decimal; float()
    # gives back the very double the browser held.
    got = {k: None if v is None else float(v) for k, v in last["numbers"].items()}
    assert set(got) == set(e.numbers)
    differ = {k: (got[k], e.numbers[k]) for k in e.numbers if got[k] != e.numbers[k]}
    assert differ == {}, f"browser and Python disagree on {query}"
    assert last["figures"] == helpers_figures.figure_keys(e, helpers_figures.registry(catalog))
    assert shown, "the page shows no numbers"
    for key, text in shown:
        assert text == fmt_value(graph.quantity(key).format, e.numbers[key]), key
    return shown


@pytest.mark.parametrize(("query", "formula_id"), [
    ({}, "flops_lora_training_sourced"),
    ({"lf": "site"}, "flops_lora_training"),
    ({"lf": "site", "ft": "full"}, "flops_training"),
])
def test_page_names_the_training_formula(calc_tab: SharedTab, site_server: str, catalog: Catalog,
                                         query: dict[str, str], formula_id: str) -> None:
    """The results say which formula priced training, with its status; R and D show only when
    the formula uses them, and the accounting setting only under LoRA."""
    page, errors = open_calculator(calc_tab, site_server, query)
    note = page.locator(".tn-calc__training-formula")
    shown_id = note.get_attribute("data-formula")
    badge = note.locator(".tn-badge").first.text_content()
    hidden = {k: page.locator(f'[data-field="{k}"]').is_hidden() for k in ("lf", "r", "D")}
    chosen = page.eval_on_selector('select[name="lf"]', "el => el.value")
    assert errors == []
    formula = catalog.formulas[formula_id]
    assert shown_id == formula_id
    assert badge == formula.status.value
    declared = {v.name for v in formula.variables}
    assert hidden == {"lf": query.get("ft") == "full", "r": "R" not in declared,
                      "D": "D" not in declared}
    assert chosen == query.get("lf", "sourced")


def test_fireworks_numbers_on_the_page(calc_tab: SharedTab, site_server: str,
                                       catalog: Catalog) -> None:
    """The Fireworks preset link shows the prefill and sample totals of the hand computation."""
    page, errors = open_calculator(calc_tab, site_server, CASES["fireworks-episode"])

    def text(key: str) -> str:
        return page.text_content(f'#calc-tinker + .tn-scroll [data-key="{key}"]')

    # 1,000 × (8 × 8,000 + 12,000 × 8 × 7 / 2) prefill tokens, 1,000 × 8 × 2,000 sampled
    assert page.text_content('[data-key="tokens.prefill"]') == "400,000,000"
    assert page.text_content('[data-key="tokens.sample"]') == "16,000,000"
    # priced at the catalog's row, as Python prices it (test_calc_multiturn has the sums)
    expected = shown_numbers(catalog, estimate(catalog, CASES["fireworks-episode"]))
    assert text("tinker.prefill") == expected["tinker.prefill"]
    assert text("tinker.sample") == expected["tinker.sample"]
    assert errors == []


def test_editing_a_field_updates_url_and_numbers(calc_tab: SharedTab, site_server: str,
                                                 catalog: Catalog) -> None:
    page, errors = open_calculator(calc_tab, site_server, {})
    page.fill('input[name="steps"]', "250")
    page.wait_for_function("() => window.tnCalculator.last().env['run.steps'] === 250")
    url = page.url
    total = page.text_content('.tn-calc__cards [data-key="tinker.total"]')
    page.select_option('select[name="a"]', "ppo")
    page.wait_for_function("() => window.tnCalculator.last().names.algorithm === 'ppo'")
    ppo_query = page.evaluate("location.search")
    assert errors == []
    assert "steps=250" in url
    # the empty link opened the default run (inputs.default_query()), whose settings the link keeps
    query = dict(parse_qsl(urlsplit(url).query))
    assert query == {**calcsite.preset_queries(catalog)[0], "steps": "250"}
    assert total == fmt_usd(estimate(catalog, query)["tinker.total"])
    # changing the algorithm keeps G and K (PPO reads both: inputs.Input.keeps; the switch
    # tests are in test_calc_ux_browser.py)
    ppo = dict(parse_qsl(ppo_query.lstrip("?")))
    assert ppo["a"] == "ppo" and (ppo["G"], ppo["K"]) == (query["G"], query["K"])


def test_preset_link_reproduces_the_estimate(calc_tab: SharedTab, site_server: str) -> None:
    page, errors = open_calculator(calc_tab, site_server, {})
    preset = calcsite.preset_queries(real_catalog())[1]  # what the second preset sets
    page.click(".tn-calc__preset >> nth=1")
    page.wait_for_function("(m) => window.tnCalculator.last().names.model === m", arg=preset["m"])
    first = page.evaluate("window.tnCalculator.last().numbers")
    page.goto(page.url)  # the link alone
    page.wait_for_selector("[data-tn-calc][data-tn-ready]")
    again = page.evaluate("window.tnCalculator.last().numbers")
    url = page.url
    assert errors == []
    assert first == again
    assert f"m={preset['m']}" in url and f"T={preset['T']}" in url


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_page_fits_the_viewport(calc_tab: SharedTab, site_server: str, width: int,
                                scheme: str) -> None:
    page, errors = open_calculator(calc_tab, site_server, CASES["ppo-full"], width=width,
                                   scheme=scheme)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert errors == []
    assert overflow <= 0


TRICKY = [0.0, 0.125, 0.0625, 2.5, 12.25, 99.96, 99.95, 999.995, 1234.5, -1234.5, 0.005, 0.0005,
          0.001, 1e-7, 1e15, 9.995e17, 33.086247460769475, 2264.96, -0.0001, 123456789.5]


def test_number_formatting_matches_python(calc_tab: SharedTab, site_server: str) -> None:
    """calculator.js formats like formatting.fmt_* on ties, tiny and huge values, negatives."""
    page, errors = open_calculator(calc_tab, site_server, {})
    got = page.evaluate(
        """values => values.map(v => [window.tnCalculator.format.number(v),
            window.tnCalculator.format.count(v), window.tnCalculator.format.usd(v)])""",
        TRICKY)
    assert errors == []
    expected = [[fmt_number(v), fmt_count(v), fmt_usd(v)] for v in TRICKY]
    assert got == expected
    prices = [0.6, 2.0, 6.225, 1.335, 0.195, 8.6, 1234.5, 10.0]
    rates = page.evaluate("v => v.map(x => window.tnCalculator.format.value('rate', x))", prices)
    assert rates == [fmt_value("rate", v) for v in prices]  # issue 44: $0.60, never $0.6
    assert rates[0] == "$0.60" and rates[1] == "$2"


def test_calculator_survives_instant_navigation(browser: Any, built_site: Any) -> None:
    """Reached through Material's instant navigation (no full reload), and again after leaving.
    At the site's own URL: Material navigates instantly only to the pages its sitemap lists,
    which name the site URL, so on a loopback port every click is a full load. calculator.js is
    fetched only once a page has a calculator (calculator-loader.js), and once per visit."""
    with routed_site(browser, built_site.root, SUB_PATH_URL) as (context, _):
        tab = SharedTab(context=context)
        errors = tab.page_errors
        page = tab.page
        fetched: list[str] = []
        page.on("request", lambda r: r.url.endswith("/calculator.js") and fetched.append(r.url))
        page.goto(SUB_PATH_URL + "formulas/")
        page.wait_for_load_state("load")
        assert fetched == [], "a page without a calculator loaded calculator.js"
        page.evaluate("window.tnSamePage = true")
        page.click('.md-nav--primary a[href$="calculator/"]')
        page.wait_for_selector("[data-tn-calc][data-tn-ready]")
        assert page.evaluate("window.tnCalculator.last().names.algorithm") == "grpo"
        page.click('.md-nav--primary a[href$="formulas/"]')
        page.wait_for_selector("[data-tn-calc]", state="detached")
        page.go_back()
        page.wait_for_selector("[data-tn-calc][data-tn-ready]")
        page.fill('input[name="G"]', "4")
        page.wait_for_function("() => window.tnCalculator.last().env['run.G'] === 4")
        same, reloads = page.evaluate("[window.tnSamePage === true,"
                                      " performance.getEntriesByType('navigation').length]")
    assert errors == []
    assert same, "instant navigation did a full load"
    assert reloads == 1  # one real page load: the rest was instant navigation
    assert fetched == [SUB_PATH_URL + "assets/javascripts/calculator.js"]  # once per visit


# --------------------------------------------------------------------------- a new quantity

EGRESS_LINE = (
    Line("tinker", "egress", "Trajectory egress", "storage", "1 - missing(price.prefill)",
         "{amount:number} GB × {rate:rate} per GB"),
    "tokens.sequence * 4.0 / 1e9", "0.09", "1.0",
)
"""A cost line that is not in the model: 4 bytes per trajectory token at $0.09 per GB."""
PER_EPISODE = Quantity("self.usd_per_episode", "self.total / tokens.episodes", format="usd",
                       label="Self-hosted cost per episode")


@pytest.fixture(scope="module")
def extended(monkeypatch_module: Any, catalog: Catalog) -> Catalog:
    """A fresh catalog whose graph has one more Tinker line and one more quantity (Python only)."""
    graph_for(catalog)  # the plain graph, built before the patch
    original_lines, original_break_even = model.tinker_lines, resources.break_even
    monkeypatch_module.setattr(model, "tinker_lines", lambda: [*original_lines(), EGRESS_LINE])
    monkeypatch_module.setattr(resources, "break_even",
                               lambda: [*original_break_even(), PER_EPISODE])
    return real_catalog.__wrapped__()  # a new object (not the session's): its own graph


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def extended_page(built_site: Any, catalog: Catalog) -> str:
    """The built calculator page with its data replaced by the extended graph's."""
    html = (Path(built_site.root) / "calculator" / "index.html").read_text(encoding="utf-8")
    links = Links(pagedata.CALCULATOR)
    presets = [{"label": label, "href": "?" + calcsite.query_string(q)}
               for (label, _), q in zip(calcpresets.presets(), calcsite.preset_queries(catalog),
                                        strict=True)]
    data = template_json(pagedata.page_data(catalog, links, presets), sort_keys=True)
    return re.sub(r'(<template class="tn-calc__data"[^>]*>).*?(</template>)',
                  lambda match: match.group(1) + data + match.group(2), html, count=1,
                  flags=re.DOTALL)


@pytest.fixture(scope="module")
def extended_html(built_site: Any, extended: Catalog) -> str:
    """``extended_page`` once for the module's cases (the same page for each)."""
    return extended_page(built_site, extended)


@pytest.mark.parametrize("case", ["defaults", "opd-teacher", "no-price-row"])
def test_new_quantity_needs_no_javascript(calc_tab: SharedTab, site_server: str,
                                          extended_html: str, extended: Catalog,
                                          catalog: Catalog, case: str) -> None:
    """A cost line and a quantity added in Python alone: computed identically in Chromium,
    shown in the Tinker table, and counted in the Tinker total."""
    query = CASES[case]
    shown = dict(assert_page_equals_python(calc_tab, site_server, extended, query,
                                           html=extended_html))
    e, plain = estimate(extended, query), estimate(catalog, query)
    assert "tinker.egress" not in plain.numbers
    assert "self.usd_per_episode" in e.numbers and "tinker.egress" in e.numbers
    if plain["tinker.total"] is None:  # no price row: no Tinker bill, so no egress either
        assert e["tinker.egress"] is None and "tinker.egress" not in shown
        return
    assert e["tinker.egress"] == e["tokens.sequence"] * 4.0 / 1e9 * 0.09 / 1.0
    assert e["tinker.total"] == pytest.approx(plain["tinker.total"] + e["tinker.egress"])
    assert shown["tinker.egress"] == fmt_usd(e["tinker.egress"])
    assert e["self.usd_per_episode"] == plain["self.total"] / plain["tokens.episodes"]


def test_javascript_evaluates_any_tree(calc_tab: SharedTab, site_server: str) -> None:
    """The browser's generic evaluator against tree.evaluate on expressions it never saw."""
    cases = ["min(a, b) * ceil(c / 3) + max(a, 2.5) ** 0.5", "coalesce(m, a) - missing(m)",
             "a / b if c > 4 else -a", "(a == 2.0) + (b <= 3) + (c >= 9)", "m * 2 + a",
             "coalesce(m * 2, b * 1e15) / 7"]
    env = {"a": 2.0, "b": 3.0, "c": 10.0, "m": None}
    graph = [[f"q{i}", "number", 1, None, tree.to_tree(x)] for i, x in enumerate(cases)]
    page, errors = open_calculator(calc_tab, site_server, {})
    got = page.evaluate("([g, env]) => window.tnCalculator.evaluate(g, env)", [graph, env])
    assert errors == []
    for i, expression in enumerate(cases):
        assert got[f"q{i}"] == tree.evaluate(tree.to_tree(expression), env), expression
