"""The calculator's keys live in Python only (issue 41): the page's shipped declarations
(``inputs.link_inputs``, by ``pagedata``) are given renamed keys, with the form's fields renamed
to match, and calculator.js follows: it reads the renamed link, writes links with the new names
and never the old ones, and a change of the renamed model field takes effect.

The renamed page is the real built page with its data rewritten (``rename``), served in place of
``calculator/`` (test_calc_browser.open_calculator); the algorithm files are the site's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from test_calc_browser import SharedTab, open_calculator

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import inputs
from tinkernomics.markup.templatejson import template_json

pytestmark = pytest.mark.browser

RENAMED = {inputs.key(field): "renamed_" + field.replace(".", "_")
           for field in ("model", "algorithm", "price_list", "hardware", "lora", "run.G")}
"""Choice keys and a typical-valued number's key, with their new names (``m`` ->
``renamed_model``, ``G`` -> ``renamed_run_G``...)."""
_DATA = re.compile(r'(<template class="tn-calc__data"[^>]*>)(.*?)(</template>)', re.S)


def _key(key: str) -> str:
    return RENAMED.get(key, key)


def rename(html: str) -> str:
    """The page with every renamed key renamed in its shipped data and its form fields."""
    def data(match: re.Match[str]) -> str:
        d = json.loads(match.group(2))
        for inp in d["inputs"]:
            inp["key"] = _key(inp["key"])
            inp["dependents"] = [_key(k) for k in inp["dependents"]]
            inp["keeps"] = [_key(k) for k in inp["keeps"]]
        d["defaults"]["query"] = {_key(k): v for k, v in d["defaults"]["query"].items()}
        return match.group(1) + template_json(d, sort_keys=True) + match.group(3)

    found, count = _DATA.subn(data, html)
    assert count == 1
    for old, new in RENAMED.items():
        found = found.replace(f'name="{old}"', f'name="{new}"')
        found = found.replace(f'data-field="{old}"', f'data-field="{new}"')
    return found


@pytest.fixture(scope="module")
def renamed_html(built_site: Any) -> str:
    return rename((built_site.root / "calculator" / "index.html").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[SharedTab]:
    shared = SharedTab(browser)
    yield shared
    shared.close()


def _query(page: Any) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(page.url).query, keep_blank_values=True))


def test_page_follows_renamed_keys(tab: SharedTab, site_server: str, renamed_html: str,
                                   catalog: Catalog) -> None:
    model = sorted(m for m in catalog.models if m != inputs.default_model(catalog))[0]
    hw = sorted(h for h in catalog.hardware if h != inputs.DEFAULT_HARDWARE)[0]
    algo = next(a for a in sorted(catalog.algorithms.values(), key=lambda a: a.id)
                if inputs.typical(a)["G"] is not None)
    query = {_key(inputs.key("model")): model, _key(inputs.key("hardware")): hw,
             _key(inputs.key("lora")): inputs.FULL, _key(inputs.key("algorithm")): algo.id}
    page, errors = open_calculator(tab, site_server, query, html=renamed_html)
    last = page.evaluate("() => window.tnCalculator.last()")
    assert (last["names"]["model"], last["names"]["hw"]) == (model, hw)
    assert last["choice"]["lora"] is False
    assert last["env"]["run.G"] == inputs.typical(algo)["G"]  # the algorithm's, by input name
    written = _query(page)
    assert written[_key(inputs.key("model"))] == model
    assert written[_key(inputs.key("algorithm"))] == last["names"]["algorithm"]
    assert not set(RENAMED) & set(written), written
    other = inputs.default_model(catalog)
    page.select_option(f'select[name="{_key(inputs.key("model"))}"]', other)
    page.wait_for_function("(m) => window.tnCalculator.last().names.model === m", arg=other)
    assert _query(page)[_key(inputs.key("model"))] == other
    assert errors == []
