"""No page puts a ``<style>`` in a ``<noscript>`` of its body (issue 47): HTML allows that only
in the head, and the Nu checker reports one in the body as an error. What a page hides without
JavaScript is in the head's ``<noscript>`` style (``site_overrides/main.html``), which the
no-JavaScript browser tests check still hides it."""

from __future__ import annotations

import re

import pytest
from conftest_site import BuiltSite

pytestmark = pytest.mark.build

_BODY = re.compile(r"<body\b.*</body>", re.S | re.I)
_NOSCRIPT_STYLE = re.compile(r"<noscript\b[^>]*>(?:(?!</noscript>).)*<style\b", re.S | re.I)


def test_no_page_body_holds_a_style_in_a_noscript(built_site: BuiltSite) -> None:
    pages = sorted(p for p in built_site.root.rglob("index.html")
                   if not p.relative_to(built_site.root).as_posix().startswith(("embed/", "api/")))
    assert any(p.parent.name == "compare" for p in pages)
    found = []
    for page in pages:
        body = _BODY.search(page.read_text(encoding="utf-8"))
        if body and _NOSCRIPT_STYLE.search(body.group()):
            found.append(page.relative_to(built_site.root).as_posix())
    assert not found, found
