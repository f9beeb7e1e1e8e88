"""tinker-nomics: a validated catalog of RL post-training economics and the site built from it.

Pipeline: yamlread -> models -> rules (catalog.load_catalog) -> derive -> site/charts/api.
This package never imports mkdocs; ``macros/`` is the thin adapter that does.
"""

__version__ = "0.1.0"
