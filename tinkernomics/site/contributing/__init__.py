"""Contributor tools: the scaffold (`tinkernomics new`), the fields reference, the guide page."""
