"""The policy is a second wall in Chromium (issue 40): markup a sanitiser missed, put into a
built page BEFORE the policy pass, does not run, load from another host or redirect.

Each page is a page of the session's built site with its policy taken out, the payloads of
``helpers_hostile.INJECTED`` added to its article, and the pass run again, as the build runs it;
it is then answered at its path under the site URL's, beside the built site served on a loopback
port (``helpers_security.served_site_context``). A control page
with the old pass's policy (every inline script it finds hashed) shows the same payloads do run
where the policy blesses what it finds, so a quiet result is the policy's doing. The compare
view's columns (data in the algorithm files) are opened directly the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest_site import REPO_ROOT, SUB_PATH_URL, BuiltSite
from helpers_browser import NO_SEARCH_INDEX
from helpers_hostile import INJECTED, REDIRECT, inject
from helpers_security import Served, Watch, served_site_context, visit

from tinkernomics.site.algorithmfiles import COLUMN, file_text
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES
from tinkernomics.site.postbuild import csp
from tinkernomics.site.postbuild.knownscripts import known_scripts

pytestmark = [pytest.mark.build, pytest.mark.browser]

PAGE = "formulas/index.html"
"""A built page with the theme's scripts and no calculator (a quick, complete load)."""
REFRESHES = sorted(n for n in INJECTED if "refresh" in n)
REFRESH_GRACE_MS = 1000
"""How long a page is given after its load to follow a refresh of delay 0 (an idle browser
follows one at once; a busy 2-core machine has taken over 250 ms)."""
CONTROL_WAIT_MS = 15_000
"""How long the control may take to show that the old pass lets a refresh through: it returns
as soon as the page has left, so only a failing control waits this long."""


Tab = tuple[Any, Watch, Served]


@pytest.fixture(scope="module")
def tab(built_site: BuiltSite, browser: Any) -> Iterator[Tab]:
    with served_site_context(browser, built_site.root, SUB_PATH_URL) as (context, watch, site):
        context.add_init_script(NO_SEARCH_INDEX)
        yield context.new_page(), watch, site


def _open(tab: Tab, rel: str, html: str, kind: str = "text/html") -> dict[str, Any]:
    """``html`` answered at ``rel`` under the site's path, visited; what it did, with whether
    it left for the refresh target (the page's address after a grace time)."""
    page, watch, site = tab
    url = watch.base + rel
    site.put(url, html, kind)
    try:
        result = visit(page, url, watch)
        page.wait_for_timeout(REFRESH_GRACE_MS)
        result["left"] = page.url != url
        result["asked"] = [u for u in watch.missing if REDIRECT in u]
    finally:
        site.drop(url)
        watch.missing.clear()
    return result


def _built(built_site: BuiltSite, rel: str) -> str:
    return (built_site.root / rel).read_text(encoding="utf-8")


def _old_pass(page: str) -> str:
    """The page as the old pass wrote it: every inline script found in it hashed."""
    old = csp.policy(csp.inline_scripts(page))
    meta = f'<meta http-equiv="Content-Security-Policy" content="{old}">'
    return page.replace("<head>", "<head>" + meta, 1)


SCRIPTS = "".join(v for k, v in INJECTED.items() if "refresh" not in k)


def test_control_the_old_pass_lets_injected_script_run(built_site: BuiltSite, tab) -> None:
    result = _open(tab, "probe-old/", _old_pass(inject(_built(built_site, PAGE), SCRIPTS)))
    assert result["pwned"] >= 4  # <script>, svg and math <script>, srcdoc all ran
    page, watch, site = tab
    url = watch.base + "probe-old-refresh/"
    site.put(url, _old_pass(inject(_built(built_site, PAGE), INJECTED["meta-refresh"])))
    try:
        page.goto(url, wait_until="load")
        page.wait_for_url("**/" + REDIRECT, timeout=CONTROL_WAIT_MS)
    finally:
        site.drop(url)


def test_no_injected_script_runs_or_loads_from_another_host(built_site: BuiltSite, tab) -> None:
    hostile = csp.with_policy(inject(_built(built_site, PAGE), SCRIPTS),
                              known_scripts(REPO_ROOT)).text
    result = _open(tab, "probe/", hostile)
    assert result["pwned"] == 0
    assert result["dialogs"] == [] and result["foreign"] == []
    assert any("script-src" in v for v in result["violations"]), result["violations"]


@pytest.fixture(scope="module")
def refreshed(built_site: BuiltSite, tab) -> dict[str, dict[str, Any]]:
    """What each refresh payload's page did: every page opened in a tab of its own (the
    module's context), then all given ``REFRESH_GRACE_MS`` together, so each waits at least
    that long after its load (a grace per page in turn cost a second a payload). A page's own
    requests tell which of them asked for the refresh target or another host."""
    first, watch, site = tab
    opened: dict[str, tuple[Any, str, list[str], dict[str, Any]]] = {}
    try:
        for name in REFRESHES:
            url = watch.base + f"probe-{name}/"
            site.put(url, csp.with_policy(inject(_built(built_site, PAGE), INJECTED[name]),
                                          known_scripts(REPO_ROOT)).text)
            page, requests = first.context.new_page(), []
            page.on("request", lambda request, found=requests: found.append(request.url))
            opened[name] = page, url, requests, visit(page, url, watch)
        first.wait_for_timeout(REFRESH_GRACE_MS)
        return {name: {**result, "left": page.url != url,
                       "asked": [u for u in requests if REDIRECT in u],
                       "foreign": [*result["foreign"], *(u for u in requests
                                                         if not u.startswith(watch.base))]}
                for name, (page, url, requests, result) in opened.items()}
    finally:
        for page, url, _, _ in opened.values():
            page.close()
            site.drop(url)
        watch.missing.clear()


@pytest.mark.parametrize("name", REFRESHES)
def test_no_refresh_redirects(refreshed: dict[str, dict[str, Any]], name: str) -> None:
    result = refreshed[name]
    assert not result["left"] and result["asked"] == [] and result["foreign"] == []
    assert result["pwned"] == 0


def test_a_compare_column_runs_nothing_when_opened(built_site: BuiltSite, tab) -> None:
    """A compare column is data inside its algorithm's file (``site.algorithmfiles``), no HTML
    file of its own: with the payloads in it, the file opened as the site serves it (JSON)
    runs nothing."""
    path = next(p for p in sorted((built_site.root / ALGORITHM_FILES).glob("*.json"))
                if COLUMN in json.loads(p.read_text(encoding="utf-8")))
    data = json.loads(path.read_text(encoding="utf-8"))
    data[COLUMN] = inject(data[COLUMN], SCRIPTS)
    assert not list((built_site.root / "compare").rglob("*/*.html"))
    rel = path.relative_to(built_site.root).as_posix().replace(".json", "-probe.json")
    result = _open(tab, rel, file_text(data), "application/json")
    assert result["pwned"] == 0 and result["foreign"] == []
