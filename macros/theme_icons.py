"""The theme adapter's icon rule (rule 11 of ``theme.py``, which is full; the MkDocs hooks load
this file by path beside it, as they load ``theme.py``).

Material writes every icon of its chrome into every page as inline SVG, each from its own file:
``{% include ".icons/" ~ name ~ ".svg" %}`` (``ICONS``) in its partials -- the logo twice
(header and drawer), the menu, the two palette toggles, search, back and clear, back to top:
2.9 KB of each page, the same bytes on every page (2.9 MB at 1,000 algorithms, issue 47).

``share_icons`` (the hooks' ``on_env``) puts a loader in front of the theme's. A template under
``ICONS`` whose file is a plain icon (``PLAIN``: one ``<svg>`` with a ``viewBox`` holding paths
with nothing but their ``d``, so it paints in one colour, the element's ``fill``) becomes a call
of ``tn_icon``: included in a page it writes an empty ``<svg class="tn-icon-<slug>">`` (36 bytes
instead of 120 to 900), which the site's stylesheet paints: ``stylesheet()``, written by the
hooks as ``theme-icons.css`` (``STYLESHEET``) before the outputs step joins it into ``site.css``
(``tinkernomics/site/postbuild/stylesheets.py``), gives the element the icon's aspect (its
``viewBox``'s: Material sizes its icons by height, some with ``width: auto``) and masks its
``currentcolor`` background with the icon's own SVG file (a ``data:`` URL, as Material paints
its CSS icons). Material fills its icons with ``currentcolor``, so they look the same; in
forced colours they take the system colour of text; ``print-color-adjust`` keeps a background
in print (where Material hides its header and sidebars anyway).

Everything else is Material's own markup: an icon file of another shape, an icon whose two
slugs (``Icons.key``) other icons have, and an icon read without the page's context
(Material's ``icons.html`` imports an icon to write it into a CSS ``data:`` URL, as do its blog
templates: ``page`` is not defined there; a page's context defines it, as None on the 404
page). Zensical runs no hooks: its pages keep the inline icons. A build writes the rules of the
icons its pages used (``Icons.used``); a ``--dirty`` rebuild may miss one that only a page it
skipped uses.

A theme release that moves this (``tests/test_theme_icons.py`` fails: a page with an inline
icon, an icon without its rule): read how its partials include an icon and set ``ICONS`` and
``PLAIN``; until then pages keep the theme's inline icons, as they do for any icon not matched.
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

CLASS = "tn-icon-"
"""An icon's class: this and its slug (``tn-icon-magnify``)."""

PAINT = ("{background-color:currentcolor;"
         "-webkit-mask:var(--tn-icon) center/contain no-repeat;"
         "mask:var(--tn-icon) center/contain no-repeat;"
         "-webkit-print-color-adjust:exact;print-color-adjust:exact}\n")
FORCED = ("@media (forced-colors:active){{{0}{{forced-color-adjust:none;"
          "background-color:CanvasText}}a {0}{{background-color:LinkText}}"
          "button {0}{{background-color:ButtonText}}}}\n")
"""Every icon (``PAINT``): its element's text colour through the icon's shape (``--tn-icon``).
In forced colours (``FORCED``) a background is forced to the page's own and the icon would
vanish: it takes the system colour an inline icon gets there instead."""


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
        self.used: set[str] = set()  # the slugs written as classes

    def key(self, name: str) -> str | None:
        """The slug of icon ``name``: its file name's (``magnify``), else, if another icon
        has that, its whole name's (``material-magnify``), else None."""
        for key in (slug(name.rpartition("/")[2]), slug(name)):
            if self.plain.get(key, (name,))[0] == name:
                return key
        return None

    def template(self, name: str, source: str) -> str | None:
        """The template source standing for icon ``name`` (file text ``source``), or None to
        load Material's file as it is."""
        key, plain = self.key(name), PLAIN.fullmatch(source)
        if plain is None or key is None:
            return None
        self.plain[key] = (name, source, plain.group(1))
        return f'{{{{ tn_icon("{key}", page is defined) }}}}'  # a slug: [a-z0-9-] only

    def markup(self, key: str, in_page: bool) -> str:
        """What ``tn_icon`` writes: the class-painted ``<svg>`` in a page, else the file."""
        if not in_page:
            return self.plain[key][1]
        self.used.add(key)
        return f'<svg class="{CLASS}{key}"></svg>'

    def stylesheet(self) -> str:
        """The rules of every icon the build wrote as a class: ``PAINT``, ``FORCED``, and each
        icon's shape and aspect (its viewBox's: the element has none)."""
        if not self.used:
            return ""
        keys = sorted(self.used)
        every = ",".join(f".{CLASS}{key}" for key in keys)
        rules = [every + PAINT, FORCED.format(f":is({every})")]
        for key in keys:
            _, source, view = self.plain[key]
            width, height = view.split()[2:]
            rules.append(f'.{CLASS}{key}{{aspect-ratio:{width}/{height};'
                         f'--tn-icon:url("{data_url(source)}")}}\n')
        return "".join(rules)


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
