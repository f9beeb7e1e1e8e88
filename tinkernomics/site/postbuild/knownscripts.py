"""The inline scripts the site's templates write: the only ones a page's policy allows.

Read by the Content-Security-Policy pass (``csp``, last over the finished site). The pass
does not bless what it finds in a page: a ``<script>`` that reached a page some other way
(catalog text the sanitiser missed) matches no known source, gets no hash, and the browser
refuses to run it. The known sources are read from the templates themselves, once a build:

- the theme's own inline scripts: the templates in the folder the theme adapter names
  (``ThemeProfile``'s ``script_templates``) of each installed package it names
  (``script_packages``; Material's and Zensical's, the same scripts): its local-storage
  helpers, palette, tabs, announcement and consent scripts. The theme's other templates (its
  redirect page) are not sources: the site writes no such page, and a redirect script is not
  one to allow anywhere. Without a profile (``NO_THEME``) no theme script is allowed;
- every inline ``<script>`` in the project's template overrides (``site_overrides/``) and in
  the package's ``templates/`` folders;
- every ``.js`` file in the package's ``templates/`` folders, whole, as a template inserts it
  into a ``<script>`` (the embed pages' theme script).

A template's script body is taken literally, except a ``{{ ... }}`` expression written inside a
string literal (``new URL("{{ base_url }}", location)``): there any text without quotes,
backslashes, angle brackets or whitespace is allowed (a path or URL), so a match is the
template's own code with another harmless string. A body with any other Jinja (a statement,
a comment, an expression outside quotes, a whole-body expression) allows nothing: write such a
script as a ``.js`` file in a ``templates/`` folder, or a file served from the site.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tinkernomics.site.build import NO_THEME, ThemeProfile

OVERRIDES = "site_overrides"
"""The project's theme overrides (mkdocs.yml ``custom_dir``), relative to the project root."""
PACKAGE_SITE = Path(__file__).resolve().parent.parent
"""``tinkernomics/site``: each feature's ``templates/`` folder is a source."""

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_SRC = re.compile(r"\ssrc\s*=", re.I)
_TYPE = re.compile(r"""\stype\s*=\s*["']?([^"'\s>]+)""", re.I)
JS_TYPES = frozenset({"", "text/javascript", "application/javascript", "module"})
"""``type`` values a browser runs as script (no type at all included)."""
_JINJA = re.compile(r"(\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})", re.S)
_IN_STRING = r"""[^"'`\\<>\s]*"""
"""What a quoted ``{{ ... }}`` may become: a path or URL, never the end of its string."""


def inline_scripts(page: str) -> list[str]:
    """The text of every inline script in ``page`` a browser would run (no ``src``, a
    JavaScript type)."""
    found = []
    for match in _SCRIPT.finditer(page):
        attrs, body = match.group(1), match.group(2)
        kind = m.group(1).lower() if (m := _TYPE.search(attrs)) else ""
        if not _SRC.search(attrs) and kind in JS_TYPES:
            found.append(body)
    return found


@dataclass(frozen=True)
class KnownScripts:
    """The inline scripts the templates write: exact bodies, and bodies with quoted values."""

    exact: frozenset[str]
    patterns: tuple[re.Pattern[str], ...] = ()

    def allows(self, body: str) -> bool:
        return body in self.exact or any(p.fullmatch(body) for p in self.patterns)


def body_pattern(body: str) -> str | re.Pattern[str] | None:
    """A template's script body as the text it renders to (a plain body), a pattern (quoted
    ``{{ ... }}`` values), or None when its Jinja could write any script."""
    parts = _JINJA.split(body)
    if len(parts) == 1:
        return body
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.escape(part))
            continue
        before, after = parts[i - 1], parts[i + 1]
        quoted = before[-1:] in ("'", '"') and after[:1] == before[-1:]
        if not (part.startswith("{{") and quoted):
            return None
        out.append(_IN_STRING)
    return re.compile("".join(out), re.S)


def theme_script_files(theme: ThemeProfile) -> Iterator[Path]:
    """The templates of the theme's inline scripts, in each installed package it names."""
    if not theme.script_templates:
        return
    for name in theme.script_packages:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            yield from sorted((Path(location) / theme.script_templates).glob("*.html"))


def template_files(project_root: Path | None, theme: ThemeProfile = NO_THEME) -> Iterator[Path]:
    """Every template file whose inline scripts are known sources (see the module docstring)."""
    yield from theme_script_files(theme)
    if project_root is not None:
        yield from sorted((project_root / OVERRIDES).rglob("*.html"))
    yield from sorted(PACKAGE_SITE.glob("*/templates/*.html"))


def script_files() -> list[Path]:
    """The package's script templates, each inserted whole into an inline ``<script>``."""
    return sorted(PACKAGE_SITE.glob("*/templates/*.js"))


def collect(bodies: Iterable[str]) -> KnownScripts:
    exact: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for body in bodies:
        found = body_pattern(body)
        if isinstance(found, str):
            exact.add(found)
        elif found is not None:
            patterns.append(found)
    return KnownScripts(frozenset(exact), tuple(patterns))


@functools.lru_cache(maxsize=4)
def known_scripts(project_root: Path | None = None, theme: ThemeProfile = NO_THEME) -> KnownScripts:
    """The inline scripts the site's templates write (read once per project and theme)."""
    known = collect(b for path in template_files(project_root, theme)
                    for b in inline_scripts(path.read_text(encoding="utf-8")))
    texts = [path.read_text(encoding="utf-8") for path in script_files()]
    whole = {*texts, *(t.strip() for t in texts)}
    return KnownScripts(known.exact | whole, known.patterns)
