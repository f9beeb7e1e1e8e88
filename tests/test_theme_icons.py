"""The theme's icons painted by the site's stylesheet (macros/theme_icons.py, the theme adapter's
rule 11, issue 47): no built page carries one of Material's icons as inline SVG in its chrome,
every icon a page names has its rule in ``site.css``, holding the theme's own icon file; an icon
of another shape, or read without a page (Material's ``icons.html`` writes one into CSS), stays
the theme's own markup."""

from __future__ import annotations

import re
from typing import Any

import jinja2
import pytest
from helpers_site import load_macros_file, load_theme

from tinkernomics.site.postbuild import stylesheets

THEME = load_theme()


def _icons_module() -> Any:
    return load_macros_file("theme_icons.py", "macros.theme_icons")


ICONS = _icons_module()
PLAIN = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
         '<path d="M3 6h18v2H3z"/></svg>')
COLOURED = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 89 89">'
            '<path fill="#f00" d="M3 6h18v2H3z"/></svg>')
TEMPLATES = {
    "page.html": '<a>{% include "DIR" ~ "set/plain.svg" %}</a>'
                 '<b>{% include "DIR" ~ "set/coloured.svg" %}</b>',
    "css.html": '{% import "DIR" ~ "set/plain.svg" as icon %}url({{ icon | string }})',
    "set/plain.svg": PLAIN,
    "set/coloured.svg": COLOURED,
}


@pytest.fixture
def env() -> tuple[jinja2.Environment, Any]:
    loader = jinja2.DictLoader({
        (ICONS.ICONS + k if k.endswith(".svg") else k): v.replace("DIR", ICONS.ICONS)
        for k, v in TEMPLATES.items()})
    env = jinja2.Environment(loader=loader, autoescape=False)
    return env, ICONS.share_icons(env)


def test_a_plain_icon_in_a_page_becomes_a_painted_element(env: tuple[Any, Any]) -> None:
    environment, icons = env
    page = environment.get_template("page.html").render(page=None)
    assert '<a><svg class="tn-icon-plain"></svg></a>' in page
    assert "<b>" + COLOURED + "</b>" in page  # not one colour: the theme's own markup
    css = icons.stylesheet()
    assert css.startswith(".tn-icon-plain" + ICONS.PAINT)
    rule = re.search(r'\.tn-icon-plain\{aspect-ratio:24/24;'
                     r'--tn-icon:url\("data:image/svg\+xml;[^,]*,(.*)"\)\}', css)
    assert rule is not None and rule.group(1) == PLAIN.replace('"', "'")
    assert "coloured" not in css


def test_an_icon_read_without_a_page_is_the_theme_file(env: tuple[Any, Any]) -> None:
    environment, icons = env
    assert environment.get_template("css.html").render() == f"url({PLAIN})"
    assert icons.stylesheet() == ""  # nothing painted, no rule


def test_two_icons_of_one_file_name_keep_apart() -> None:
    icons = ICONS.Icons()
    assert icons.template("set/a-b", PLAIN) == '{{ tn_icon("a-b", page is defined) }}'
    assert icons.template("other/a_b", PLAIN) == '{{ tn_icon("other-a-b", page is defined) }}'
    assert icons.template("other/a-b", PLAIN) is None  # both of its slugs taken
    assert icons.template("set/a-b", PLAIN) is not None


def test_a_data_url_escapes_what_a_css_url_and_a_url_cannot_hold() -> None:
    url = ICONS.data_url('<svg a="#1%">\n')
    assert url.endswith("<svg a='%231%25'>") and '"' not in url


def _chrome(page: str) -> str:
    """The page without its article (what the theme writes around the content)."""
    start, end = page.find("<article"), page.rfind("</article>")
    return page if start < 0 else page[:start] + page[end:]


@pytest.fixture(scope="module")
def theme_pages(built_site: Any) -> dict[str, str]:
    pages = {p.relative_to(built_site.root).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted(built_site.root.rglob("*.html"))}
    return {name: text for name, text in pages.items() if 'class="md-header' in text}


def test_no_page_carries_an_icon_as_inline_svg(theme_pages: dict[str, str]) -> None:
    assert len(theme_pages) > 10 and "404.html" in theme_pages
    inline = sorted(name for name, text in theme_pages.items() if "<path" in _chrome(text))
    assert not inline, f"pages with the theme's icons inline: {inline[:5]}"


def test_every_icon_a_page_names_has_its_rule_in_the_site_stylesheet(
        built_site: Any, theme_pages: dict[str, str]) -> None:
    css = (built_site.root / stylesheets.FOLDER / stylesheets.BUNDLE).read_text(encoding="utf-8")
    named = {key for text in theme_pages.values()
             for key in re.findall(r'<svg class="tn-icon-([a-z0-9-]+)"></svg>', text)}
    assert {"magnify", "menu", "library"} <= named
    missing = sorted(key for key in named
                     if not re.search(rf"\.tn-icon-{key}\{{aspect-ratio:[\d.]+/[\d.]+;"
                                      r"--tn-icon:url\(", css))
    assert not missing
    magnify = (THEME.templates() / ICONS.ICONS / "material" / "magnify.svg").read_text()
    assert ICONS.data_url(magnify) in css  # the theme's own file, as it ships
