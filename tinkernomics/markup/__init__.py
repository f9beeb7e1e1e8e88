"""Catalog text to safe HTML (a leaf: imports nothing else from the package).

Contributor text is hostile. Everything a contributor types that becomes HTML goes through here:
``prose`` renders Markdown (and its math, ``mathml``) and passes the result through the allow-list
sanitiser (``sanitise``, nh3/ammonia). The catalog validator (``catalog/fields.py``) asks the same
sanitiser for its verdict, so ``validate`` reports at file:line what the site would strip, and the
site never relies on the validator alone.
"""
