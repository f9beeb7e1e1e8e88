"""The site (pipeline step 6): one folder per feature, each owning its templates.

``build`` is the seam the mkdocs-macros adapter calls: it loads the catalog once, collects every
feature's macros and lets each feature write its files besides the pages. Features: ``pages``
(views and page templates), ``charts``, ``calculator``, ``api``, ``contributing``.
"""
