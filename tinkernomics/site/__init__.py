"""The site (pipeline step 6): one folder per feature, each owning its templates.

``build`` is the seam a page generator's adapter calls: it loads the catalog once per build,
collects every feature's macros and lets each feature write its files besides the pages
(``outputs``: the same step as a command, for generators without a post-build hook). Features:
``pages`` (views and page templates), ``charts``, ``calculator``, ``api``, ``contributing``.
"""
