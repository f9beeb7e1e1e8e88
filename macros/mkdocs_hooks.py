"""MkDocs hooks (mkdocs.yml ``hooks:``): the search plugin parses only what it indexes, and
``mkdocs serve`` draws no chart PNGs.

Thin, like the macros adapter beside it: the work is ``tinkernomics.site.pages.searchcut``.
When a page's HTML is ready (``on_page_content``, after every other plugin's), the parts the
search index ignores are taken out; Material's search plugin indexes the rest in its
``on_page_context`` (default priority, 0), and after it, before the theme renders the page, the
parts go back. The page and the search index are what they would be
without these hooks; only the parsing of the excluded HTML is saved. Zensical has its own
search and does not run MkDocs hooks.

Material's scripts block is written again by ``site_overrides/main.html`` to defer the theme's
bundle; ``on_env`` gives it the bundle's path, read from the theme's ``base.html``, and fails the
build if that block ever holds more than the bundle and the ``extra_javascript`` loop.

Chart PNGs serve link previews and image-only hosts, not a local preview: under ``mkdocs serve``
(``on_startup``'s command) the charts feature writes every other file and no PNG
(``$TINKERNOMICS_CHART_IMAGES``, unless set already: ``=1`` draws them while serving too).
The same command sets ``$TINKERNOMICS_SERVE``: the pages' Content-Security-Policy then allows
inline scripts, for the live-reload script MkDocs writes into every response
(``site/postbuild/csp.py``).
"""

from __future__ import annotations

import os

from jinja2 import nodes
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from tinkernomics.site.charts.feature import CHART_IMAGES_ENV
from tinkernomics.site.pages.searchcut import cut, restore
from tinkernomics.site.postbuild.csp import SERVE_ENV

_CUT: dict[str, list[str]] = {}
"""The parts cut from each page (by source path), held between the two hooks."""


@event_priority(-100)
def on_page_content(html, page, config, files):
    kept, _CUT[page.file.src_uri] = cut(html)
    return kept


@event_priority(-100)
def on_page_context(context, page, config, nav):
    page.content = restore(page.content, _CUT.pop(page.file.src_uri, []))
    return context


def on_startup(command, dirty):
    if command == "serve":
        os.environ.setdefault(CHART_IMAGES_ENV, "0")
        os.environ[SERVE_ENV] = "1"  # the page policy allows the live-reload script


def on_env(env, config, files):
    env.globals["tn_theme_bundle"] = theme_bundle(env)
    return env


MATERIAL_SCRIPTS = ("{% block scripts %}<script src=\"{{ 'BUNDLE' | url }}\"></script>"
                    "{% for script in config.extra_javascript %}{{ script | script_tag }}"
                    "{% endfor %}{% endblock %}")
"""Material's scripts block as main.html writes it again (``BUNDLE``: the path, which changes)."""


def _shape(block: nodes.Block) -> list[str]:
    """Every node of a block by type and name or value, spaces collapsed, a path as BUNDLE."""
    shape = []
    for node in block.find_all(nodes.Node):
        value = getattr(node, "data", None) or getattr(node, "value", None) or getattr(
            node, "name", None) or getattr(node, "attr", None)
        if isinstance(node, nodes.TemplateData):
            value = " ".join(str(value).split())
        elif isinstance(node, nodes.Const) and str(value).endswith(".js"):
            value = "BUNDLE"
        if value != "" and not isinstance(node, nodes.Output):  # Output: a mere container
            shape.append(f"{type(node).__name__}:{value}")
    return shape


def _scripts_block(env, source: str) -> nodes.Block | None:
    blocks = [b for b in env.parse(source).find_all(nodes.Block) if b.name == "scripts"]
    return blocks[0] if len(blocks) == 1 else None


def theme_bundle(env) -> str:
    """The path of the theme's script bundle, from its ``base.html`` scripts block, which must
    be Material's (``MATERIAL_SCRIPTS``) but for that path: main.html writes the block again,
    deferred, and anything more in it would be lost without a word."""
    block = _scripts_block(env, env.loader.get_source(env, "base.html")[0])
    material = _scripts_block(env, MATERIAL_SCRIPTS)
    if block is not None and material is not None and _shape(block) == _shape(material):
        return next(c.value for c in block.find_all(nodes.Const) if str(c.value).endswith(".js"))
    raise PluginError(
        "the theme's scripts block (base.html) is no longer its bundle's <script> and the "
        "extra_javascript loop: compare it with the scripts block of site_overrides/main.html, "
        "which writes it again to defer the bundle, then update both and MATERIAL_SCRIPTS in "
        "macros/mkdocs_hooks.py")
