"""The policy pass does not bless what it finds (issue 40): only the inline scripts the
templates write get hashes, every ``http-equiv`` but the policy's own and every ``srcdoc`` is
disarmed, and a file without ``<head>`` (the compare view's column files) gets a policy that runs
nothing. Unit checks on ``postbuild.csp`` and ``postbuild.knownscripts``, no build; the same
payloads in Chromium are in test_security_wall_browser.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from helpers_hostile import INJECTED, MARK, inject
from helpers_site import load_theme

from tinkernomics.site.build import NO_THEME
from tinkernomics.site.postbuild import csp, knownscripts

PROFILE = load_theme().profile()
"""The theme's facts as the theme adapter declares them (where its inline scripts are)."""
KNOWN = knownscripts.known_scripts(None, PROFILE)
META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def _theme_script() -> str:
    """A script the theme's templates write as it is (no template values): the first of its
    partials' (found by reading them, not by its text, which a theme release may change)."""
    return next(body for path in knownscripts.theme_script_files(PROFILE)
                for body in knownscripts.inline_scripts(path.read_text(encoding="utf-8"))
                if body in KNOWN.exact)


def _page(*body: str) -> str:
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>t</title>"
            f"<script>{_scope_script()}</script></head><body><article>"
            f"<script>{_theme_script()}</script>{''.join(body)}</article></body></html>")


def _scope_script() -> str:
    """Material's scope script as a page two folders down has it (a template with a value)."""
    base = next(p for p in knownscripts.theme_script_files(PROFILE) if p.name == "base.html")
    body = knownscripts.inline_scripts(base.read_text(encoding="utf-8"))[0]
    return re.sub(r"\{\{.*?\}\}", "../..", body)


def _script_src(page: str) -> list[str]:
    found = META.search(page)
    assert found is not None, "no policy"
    return next(d for d in found.group(1).split(";") if "script-src" in d).split()


def _hashes(page: str) -> set[str]:
    return {s for s in _script_src(page) if s.startswith("'sha256-")}


def test_the_theme_scripts_are_known() -> None:
    page = _page()
    result = csp.with_policy(page, KNOWN)
    assert _hashes(result.text) == {csp.script_hash(s) for s in csp.inline_scripts(page)}
    assert len(_hashes(result.text)) == 2 and result.blocked == 0


@pytest.mark.parametrize("name", sorted(INJECTED))
def test_injected_markup_gets_no_hash(name: str) -> None:
    """A payload put into a page before the pass adds no hash: the policy is the one the page
    would have without it (on the old pass every injected script was hashed)."""
    clean = csp.with_policy(_page(), KNOWN).text
    result = csp.with_policy(inject(_page(), INJECTED[name]), KNOWN)
    assert _hashes(result.text) == _hashes(clean)
    assert _script_src(result.text) == _script_src(clean)


def test_a_script_that_copies_a_theme_script_with_its_own_code_is_not_known() -> None:
    scope = _scope_script()
    escaped = scope.replace('"../.."', f'"x",location),{MARK}//"')
    assert KNOWN.allows(scope)
    assert not KNOWN.allows(escaped)
    assert not KNOWN.allows(scope + ";" + MARK)


def test_without_the_themes_facts_no_theme_script_is_known() -> None:
    """The package knows the theme's scripts only from the adapter's profile."""
    assert not knownscripts.known_scripts(None, NO_THEME).allows(_theme_script())
    assert not list(knownscripts.theme_script_files(NO_THEME))


def test_template_bodies_become_literals_patterns_or_nothing() -> None:
    assert knownscripts.body_pattern("var a = 1;") == "var a = 1;"
    pattern = knownscripts.body_pattern('u = new URL("{{ base_url }}");')
    assert isinstance(pattern, re.Pattern)
    assert pattern.fullmatch('u = new URL("../../a/");')
    assert not pattern.fullmatch('u = new URL("x");alert(1);//");')
    for body in ("{{ page.inline_js }}", "var a = {{ n }};", "{% if x %}a(){% endif %}",
                 "a(); {# note #}"):
        assert knownscripts.body_pattern(body) is None, body


class _Metas(HTMLParser):
    """Every start tag with an ``http-equiv`` or ``srcdoc`` attribute, as Python reads it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(tag, n) for n, _ in attrs if n in ("http-equiv", "srcdoc")]


@pytest.mark.parametrize("name", [n for n in sorted(INJECTED)
                                  if "refresh" in n or "srcdoc" in n or "policy" in n])
def test_no_http_equiv_or_srcdoc_survives_but_the_policy(name: str) -> None:
    result = csp.with_policy(inject(_page(), INJECTED[name]), KNOWN)
    names = re.findall(r"(?<![\w-])(?:http-equiv|srcdoc)(?=[\s/>=])", result.text, re.I)
    assert names == ["http-equiv"], names
    parser = _Metas()
    parser.feed(result.text)
    assert parser.found == [("meta", "http-equiv")]
    assert result.renamed >= 1


def test_the_pass_is_idempotent_and_replaces_its_old_policy() -> None:
    once = csp.with_policy(inject(_page(), INJECTED["meta-refresh"]), KNOWN).text
    assert csp.with_policy(once, KNOWN).text == once
    assert len(META.findall(once)) == 1


def test_a_file_without_head_gets_a_policy_that_runs_nothing() -> None:
    fragment = '<table><tr><td data-tn-algo="x">X</td></tr></table>'
    result = csp.with_policy(fragment + INJECTED["script"])
    assert result.text.startswith(f'<meta http-equiv="Content-Security-Policy" content='
                                  f'"{csp.FRAGMENT_POLICY}">')
    assert "script-src" not in csp.FRAGMENT_POLICY and "default-src 'none'" in csp.FRAGMENT_POLICY
    assert result.blocked == 1
    doc = csp.with_policy("<!doctype html><html lang=en><p>x</p>").text
    assert doc.startswith("<!doctype html><html lang=en><meta http-equiv=")


def test_add_policies_reports_what_it_disarmed(tmp_path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text(inject(_page(), INJECTED["script"]
                                                      + INJECTED["meta-refresh"]), "utf-8")
    (tmp_path / "frag.html").write_text("<p>x</p>", "utf-8")
    report = csp.add_policies(tmp_path, KNOWN)
    assert report.changed == 2
    assert report.blocked == {"a/index.html": 1} and report.renamed == {"a/index.html": 1}
    assert len(report.warnings()) == 2 and "a/index.html" in report.warnings()[0]
    assert csp.add_policies(tmp_path, KNOWN).changed == 0
