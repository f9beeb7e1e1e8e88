"""Freshness (pipeline step 6): the build date and the catalog's date on every page."""
