"""The theme adapter's icon rule (rule 11 of ``theme.py``, which is full; the MkDocs hooks load
this file by path beside it, as they load ``theme.py``).

Material writes every icon of its chrome into every page as inline SVG, each from its own file:
``{% include ".icons/" ~ name ~ ".svg" %}`` (``ICONS``) in its partials -- the logo twice
(header and drawer), the menu, the two palette toggles, search, back and clear, back to top:
2.9 KB of each page, the same bytes on every page (2.9 MB at 1,000 algorithms, issue 47).

``share_icons`` (the hooks' ``on_env``) puts a loader in front of the theme's. A template under
``ICONS`` whose file is a plain icon (``PLAIN``: one ``<svg>`` with a ``viewBox`` holding paths
with nothing but their ``d``, so it paints in one colour, the element's ``fill``) becomes a call
of ``tn_icon``: included in a page it writes an empty ``<svg class="tn-icon tn-icon--<slug>">``
with the icon's ``viewBox`` (its size and aspect, as before), which the site's stylesheet paints:
``stylesheet()``, written by the hooks as ``theme-icons.css`` (``STYLESHEET``) before the outputs
step joins it into ``site.css`` (``tinkernomics/site/postbuild/stylesheets.py``), masks the
element's ``currentcolor`` background with the icon's own SVG file (a ``data:`` URL, as Material
paints its CSS icons). Material fills its icons with ``currentcolor``, so they look the same;
in forced colours they take the system colour of text, and they print.

Everything else is Material's own markup: an icon file of another shape, an icon whose slug
another icon has, and an icon read without the page's context (Material's ``icons.html``
imports an icon to write it into a CSS ``data:`` URL, as do its blog templates: ``page`` is
not defined there; a page's context defines it, as None on the 404 page). Zensical runs no
hooks: its pages keep the inline icons. A build writes the rules of the icons its pages used
(``Icons.used``); a ``--dirty`` rebuild may miss one that only a page it skipped uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ICONS = ".icons/"
"""Where Material's templates include an icon from: ``.icons/<set>/<name>.svg``."""

PLAIN = re.compile(r'<svg xmlns="http://www\.w3\.org/2000/svg" viewBox="([\d. -]+)">'
                   r'((?:<!--[^<>]*-->)?(?:<path d="[^"<>]*"/>)+)</svg>\s*')
"""A one-colour icon file as Material ships them (group 1: its viewBox)."""

STYLESHEET = "assets/stylesheets/theme-icons.css"
"""Where the hooks write ``stylesheet()`` in the built site."""

BASE_RULES = (
    ".tn-icon{background-color:currentcolor;"
    "-webkit-mask:var(--tn-icon) center/contain no-repeat;"
    "mask:var(--tn-icon) center/contain no-repeat;"
    "-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
    "@media (forced-colors:active){.tn-icon{forced-color-adjust:none;"
    "background-color:CanvasText}a .tn-icon{background-color:LinkText}"
    "button .tn-icon{background-color:ButtonText}}\n")
"""Every icon: its element's text colour through the icon's shape (``--tn-icon``). In forced
colours a background would be forced to the page's (the icon vanishes): the icon takes the
system colour an inline icon gets there instead."""


def slug(name: str) -> str:
    """``material/weather-night`` -> ``material-weather-night`` (a class name's part)."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")


def data_url(svg: str) -> str:
    """``svg`` as a ``data:`` URL to write in a double-quoted CSS ``url("...")``."""
    text = svg.strip().replace('"', "'").replace("%", "%25").replace("#", "%23")
    return "data:image/svg+xml;charset=utf-8," + text


class Icons:
    """The plain icons of one build: ``tn_icon``'s markup and the stylesheet's rules."""

    def __init__(self) -> None:
        self.plain: dict[str, tuple[str, str, str]] = {}  # slug -> (name, file text, viewBox)
        self.used: dict[str, str] = {}  # slug -> the file's text, icons written as classes

    def template(self, name: str, source: str) -> str | None:
        """The template source standing for icon ``name`` (file text ``source``), or None to
        load Material's file as it is."""
        key, plain = slug(name), PLAIN.fullmatch(source)
        if plain is None or self.plain.get(key, (name,))[0] != name:
            return None
        self.plain[key] = (name, source, plain.group(1))
        return f'{{{{ tn_icon("{key}", page is defined) }}}}'  # a slug: [a-z0-9-] only

    def markup(self, key: str, in_page: bool) -> str:
        """What ``tn_icon`` writes: the class-painted ``<svg>`` in a page, else the file."""
        _, source, view = self.plain[key]
        if not in_page:
            return source
        self.used[key] = source
        return f'<svg class="tn-icon tn-icon--{key}" viewBox="{view}"></svg>'

    def stylesheet(self) -> str:
        """The rules of every icon the build wrote as a class (``BASE_RULES`` first)."""
        rules = [f'.tn-icon--{key}{{--tn-icon:url("{data_url(svg)}")}}\n'
                 for key, svg in sorted(self.used.items())]
        return BASE_RULES + "".join(rules)


def share_icons(env: Any) -> Icons:
    """Rule 11 for this build's ``env`` (the hooks' ``on_env``): ``tn_icon`` and a loader that
    hands plain icons to it; the build's ``Icons``."""
    import jinja2
    from markupsafe import Markup

    icons, own = Icons(), env.loader

    def load(name: str) -> tuple[str, None, Callable[[], bool]] | None:
        source, filename, uptodate = own.get_source(env, name)
        if name.startswith(ICONS) and name.endswith(".svg"):
            mine = icons.template(name.removeprefix(ICONS).removesuffix(".svg"), source)
            if mine is not None:
                return mine, None, lambda: True
        return source, filename, uptodate

    env.globals["tn_icon"] = lambda key, in_page: Markup(icons.markup(key, bool(in_page)))
    env.loader = jinja2.FunctionLoader(load)
    return icons
