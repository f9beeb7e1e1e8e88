"""Numbers derived from the validated catalog (pipeline step 5).

``expr`` is the grammar of the catalog's formula expression language (parse, variables); the
calculator's ``tree`` is its one evaluator (worked examples, the estimate, and the same trees in the
browser); ``derive`` computes conversions, ScaleRL
curves and worked examples; the calculator's model turns inputs and catalog figures into an
estimate. The only arithmetic in the project lives here; the site formats what it returns.
"""
