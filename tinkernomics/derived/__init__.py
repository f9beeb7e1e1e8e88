"""Numbers derived from the validated catalog (pipeline step 5).

``expr`` is the catalog's formula expression language; ``derive`` computes conversions, ScaleRL
curves and worked examples; the calculator's model turns inputs and catalog figures into an
estimate. The only arithmetic in the project lives here; the site formats what it returns.
"""
