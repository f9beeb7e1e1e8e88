"""The site's scripts on hostile addresses and ids (issue 40), in Chromium on the built site.

- A malformed ``#fragment`` on the algorithms index (``#%``, a cut UTF-8 escape) threw an
  uncaught ``URIError`` from ``algorithms-table.js``: the table must get ready with no page error.
- An algorithm id that every JavaScript object already holds (``constructor``, ``__proto__``,
  ``toString``) broke the compare view, which kept columns as properties of a plain object:
  ``compare.js`` must show such columns like any other. The catalog may refuse such ids; the
  view must not depend on it, so the test renames built columns rather than building a catalog.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_browser import NO_SEARCH_INDEX, wait_scripts_ready
from helpers_security import Watch, routed_site

from tinkernomics.site.algorithmfiles import COLUMN
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES

pytestmark = [pytest.mark.build, pytest.mark.browser]

BAD_HASHES = ("#%", "#%E0%A4%A", "#row-%", "#%zz%", "#%00")
HOSTILE_IDS = ("constructor", "__proto__", "toString")
COMPARE = SUB_PATH_URL + "compare/"


@pytest.fixture(scope="module")
def tab(built_site: BuiltSite, browser: Any) -> Iterator[tuple[Any, Watch, list[str]]]:
    with routed_site(browser, built_site.root, SUB_PATH_URL) as (context, watch):
        context.add_init_script(NO_SEARCH_INDEX)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        yield page, watch, errors


@pytest.mark.parametrize("fragment", BAD_HASHES)
def test_a_malformed_fragment_is_no_error(tab, fragment: str) -> None:
    page, _, errors = tab
    page.goto("about:blank")  # a new document: from the index, only the fragment would change
    errors.clear()
    page.goto(SUB_PATH_URL + "algorithms/" + fragment, wait_until="load")
    wait_scripts_ready(page)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
    assert errors == []
    assert page.locator(".tn-algorithms table tbody tr:not([hidden])").count() > 0


def _hostile_compare(built_site: BuiltSite) -> tuple[str, dict[str, str]]:
    """The compare page with its first featured column renamed ``toString`` (a column the page
    holds) and options for ``constructor`` and ``__proto__`` (columns fetched from their
    algorithm files, copies of another algorithm's file)."""
    page = (built_site.root / "compare" / "index.html").read_text(encoding="utf-8")
    featured = re.findall(r'<th scope="col" data-tn-algo="([^"]+)"', page)
    static, source = featured[0], featured[1]
    page = (page.replace(f'data-tn-algo="{static}"', 'data-tn-algo="toString"')
            .replace(f'value="{static}"', 'value="toString"'))
    extra = "".join(f'<option value="{i}">{i}</option>' for i in HOSTILE_IDS[:2])
    page = page.replace("</select>", extra + "</select>")
    data = json.loads((built_site.root / ALGORITHM_FILES / f"{source}.json").read_text("utf-8"))
    files = {i: json.dumps({**data, COLUMN: data[COLUMN].replace(f'data-tn-algo="{source}"',
                                                                  f'data-tn-algo="{i}"')})
             for i in HOSTILE_IDS[:2]}
    return page, files


def _answer(body: str, kind: str) -> Any:
    return lambda route: route.fulfill(status=200, body=body, content_type=kind)


def test_ids_objects_already_hold_are_compared(built_site: BuiltSite, tab) -> None:
    page, watch, errors = tab
    errors.clear()
    html, files = _hostile_compare(built_site)
    def the_page(url: str) -> bool:  # not its compare/shared.json, which is the site's
        return url.startswith(COMPARE + "?")

    answers: dict[Any, tuple[str, str]] = {
        the_page: (html, "text/html"),
        **{f"{SUB_PATH_URL}{ALGORITHM_FILES}{i}.json": (t, "application/json")
           for i, t in files.items()}}
    for url, (body, kind) in answers.items():
        page.context.route(url, _answer(body, kind))
    try:
        page.goto(COMPARE + "?a=constructor&a=toString&a=__proto__", wait_until="load")
        page.wait_for_function("""() => {
          const root = document.querySelector('[data-tn-compare]');
          const said = root.querySelector('.tn-compare__status').textContent;
          return root.getAttribute('data-tn-shown') === 'constructor toString __proto__' ||
                 /could not/.test(said);
        }""")
        shown = page.evaluate("""() => Array.from(document.querySelectorAll(
            '[data-tn-compare] thead th[data-tn-algo]')).map(th => th.dataset.tnAlgo)""")
        said = page.locator(".tn-compare__status").inner_text()
    finally:
        for url in answers:
            page.context.unroute(url)
    assert shown == ["constructor", "toString", "__proto__"], said
    assert said.startswith("Comparing") and errors == [] and watch.foreign == []
    rows = page.evaluate("""() => Array.from(document.querySelectorAll(
        '[data-tn-compare] tbody tr')).map(r => r.querySelectorAll('td').length)""")
    assert rows and all(n == 3 for n in rows)
