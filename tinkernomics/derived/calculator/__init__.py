"""The RL-run cost calculator as data (pipeline step 5, derived numbers).

``model`` builds the graph of named quantities (``graph``) over the inputs a calculator link
sets (``inputs``, ``environment``); ``estimate`` evaluates it. ``figures`` lists the catalog
figures an estimate rests on, with provenance. The calculator page ships the same graph to the
browser, whose generic evaluator walks the same expression trees (``tree``).
"""
