"""Calculator links in the browser: every key declared in Python survives a shareable link, and
an invalid number in a link is marked and left out of the link (issues 26 and 27).

The keys, their order, what a change clears and the valid numbers come from one declaration
(``inputs.INPUTS``, shipped by ``pagedata``); these tests read it, so a key added in Python is
tested here without a change. The real site is built once per session (``built_site``); the
tests share one page (``tab``, test_calc_browser.SharedTab), reset and navigated to each link.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from test_calc_browser import SharedTab

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import inputs, offline
from tinkernomics.derived.calculator.estimate import estimate

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(site_server: str) -> str:
    return site_server + "calculator/"


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[SharedTab]:
    shared = SharedTab(browser)
    yield shared
    shared.close()


def _open(tab: SharedTab, url: str) -> tuple[Any, list[str]]:
    return tab.open(url), tab.errors


SET_FIELD = """async ([key, value]) => {
  const root = document.querySelector("[data-tn-calc]");
  let el = root.querySelector(".tn-calc__form").elements.namedItem(key);
  const done = new Promise(
    resolve => root.addEventListener("tn-calc:update", resolve, {once: true}));
  if (el instanceof RadioNodeList || el.closest("[data-field]").tagName === "FIELDSET") {
    /* a list key: one box per id; tick exactly the listed ones */
    const boxes = Array.from(root.querySelectorAll(`input[name="${key}"]`));
    const ids = value.split(",");
    if (!ids.every(id => boxes.some(b => b.value === id))) throw new Error(key + ": no box");
    boxes.forEach(b => { b.checked = ids.includes(b.value); });
    el = boxes[0];
    el.dispatchEvent(new Event("change", {bubbles: true}));
    await done;
    return;
  }
  if (el.type === "checkbox") el.checked = value === "1"; else el.value = value;
  if (el.type !== "checkbox" && el.value !== value) throw new Error(key + ": no option " + value);
  const discrete = el.tagName === "SELECT" || el.type === "checkbox";
  el.dispatchEvent(new Event(discrete ? "change" : "input", {bubbles: true}));
  await done;
}"""


def _number(i: inputs.Input) -> str:
    """A valid value of a number key, inside its range and unlike its default."""
    if i.kind == "int":
        return str(int(min(i.lo + 3, i.hi)))
    return str(min(i.lo + 1.5, i.hi))


def link_values(catalog: Catalog) -> dict[str, str]:
    """A value for every declared key, none of them the default: an algorithm that keeps a
    teacher, a price list, model and variant the catalog prices, full fine-tuning, ..."""
    plist, row = next((p, r) for p in catalog.price_lists.values() for r in p.rows if r.variant)
    algo = next(a for a in catalog.algorithms
                if "teacher" in {r.value for r in catalog.algorithms[a].models_in_memory})
    values = {"a": algo, "p": plist.id, "m": row.model, "v": row.variant or "",
              "tm": next(x for x in catalog.models if x != row.model), "ft": "full",
              "cm": next(x for x in catalog.models if x != row.model),
              "rm": next(x for x in catalog.models if x != row.model),
              "lf": inputs.LORA_FLOPS[-1], "cache": "1", "ref": "0", "rw": "1",
              "hw": next(h for h in catalog.hardware if h != inputs.DEFAULT_HARDWARE)}
    for i in inputs.link_inputs(catalog):
        if i.kind in inputs.NUMBER_KINDS:
            values[i.key] = _number(i)
        if i.kind == "list":  # the first and last ids it offers, not the default set
            values[i.key] = f"{i.options[0][0]},{i.options[-1][0]}"
    return values


def test_every_declared_key_survives_a_shareable_link(tab: SharedTab, server: str,
                                                      catalog: Catalog) -> None:
    """Each key set in the form in link order (a key's dependents after it), read back from
    the URL, and the same after reloading that URL; the page then computes what Python does."""
    values = link_values(catalog)
    declared = [i.key for i in inputs.link_inputs(catalog)]
    assert set(values) == set(declared), "a declared key has no test value"
    page, errors = _open(tab, server)
    page.evaluate("async pairs => { const set = " + SET_FIELD + ";"
                  " for (const pair of pairs) await set(pair); }",  # one key after another
                  [[key, values[key]] for key in declared])
    before = page.evaluate("location.search")
    page.goto(page.url)
    page.wait_for_selector("[data-tn-calc][data-tn-ready]")
    after = page.evaluate("location.search")
    last = page.evaluate("(({env, numbers}) => ({env, numbers}))(window.tnCalculator.last())")
    assert errors == []
    query = dict(parse_qsl(before.lstrip("?")))
    assert query == values
    assert list(query) == declared  # in the declared order
    assert after == before
    for i in inputs.link_inputs(catalog):
        if i.kind in inputs.NUMBER_KINDS:
            assert last["env"][i.name] == float(values[i.key]), i.key
    expected = estimate(catalog, query).numbers
    got = {k: None if v is None else float(v) for k, v in last["numbers"].items()}
    assert got == expected


INVALID_LINKS = [
    {"steps": "-5"}, {"steps": "1e308"}, {"G": "NaN"}, {"G": "2.5"},
    {"steps": "abc", "in": "-5", "T": "1.5", "mo": "x", "md": "1e3", "K": "9999"},
    {"a": "rest_em", "m": "qwen3-8b", "K": "2.5"},
]


@pytest.mark.parametrize("query", INVALID_LINKS, ids=lambda q: urlencode(q))
def test_invalid_numbers_are_marked_and_left_out_of_the_link(tab: SharedTab, server: str,
                                                             catalog: Catalog,
                                                             query: dict[str, str]) -> None:
    """The fields the page marks are those ``inputs.invalid_keys`` lists; they show what the
    link said, the link the page writes drops them, and the estimate is Python's."""
    expected = inputs.invalid_keys(catalog, query)
    assert expected, "each case has an invalid number"
    page, errors = _open(tab, server + "?" + urlencode(query))
    marked, search, shared, numbers = page.evaluate("""() => [
        Array.from(document.querySelectorAll('.tn-calc__form input[aria-invalid="true"]'))
          .map(e => [e.name, e.value]),
        location.search, document.querySelector(".tn-calc__link").value,
        window.tnCalculator.last().numbers]""")
    assert errors == []
    assert sorted(k for k, _ in marked) == sorted(expected)
    for key, shown in marked:
        assert shown == query.get(key, ""), key
    kept = dict(parse_qsl(search.lstrip("?")))
    assert not set(kept) & set(expected)
    assert dict(parse_qsl(urlsplit(shared).query)) == kept
    assert {k: None if v is None else float(v) for k, v in numbers.items()} == \
        estimate(catalog, query).numbers


def test_python_marks_what_the_issue_lists(catalog: Catalog) -> None:
    """``invalid_keys``: signs, exponents, NaN and fractions in a whole number; nothing for a
    valid link; a typical-valued key left unset for an algorithm without a typical value."""
    assert inputs.invalid_keys(catalog, {}) == []
    assert inputs.invalid_keys(catalog, {"steps": "-5", "G": "NaN", "K": "2.5",
                                         "n": "1e308", "mo": "2.5"}) == ["steps", "n", "G", "K"]
    assert inputs.invalid_keys(catalog, {"K": "9999"}) == []  # valid, clamped to its range
    # an offline method's data shape stands for G (issue 44): no G to ask for
    shaped = [a for a, x in catalog.algorithms.items() if offline.overrides(x)]
    assert all(inputs.invalid_keys(catalog, {"a": a}) == [] for a in shaped)
    no_g = [a for a, x in catalog.algorithms.items()
            if x.typical_g is None and not offline.overrides(x)]
    for a in no_g:
        assert inputs.invalid_keys(catalog, {"a": a}) == ["G"]
        assert inputs.invalid_keys(catalog, {"a": a, "G": "4"}) == []


def test_a_failed_load_is_shown_not_thrown(tab: SharedTab, server: str) -> None:
    """An algorithm file that does not load: the result area says so, no uncaught error."""
    page = tab.reset()
    errors = tab.page_errors
    page.route("**/calculator/algorithms/ppo.json", lambda route: route.fulfill(status=404))
    page.goto(server + "?a=ppo")
    page.wait_for_selector("[data-tn-calc][data-tn-error] .tn-calc__error")
    message = page.text_content(".tn-calc__error")
    role = page.get_attribute(".tn-calc__error", "role")
    assert errors == []
    assert "ppo.json: HTTP 404" in (message or "")
    assert role == "alert"
