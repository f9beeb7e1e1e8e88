"""Reading and validating the catalog (pipeline steps 1-4).

``yamlread`` parses one file keeping line:col for every node; ``models`` and ``fields`` are the
pydantic authoring models; ``messages`` turns pydantic errors into located problems; ``entries``
holds the loaded catalog; ``rules`` are the cross-entry checks; ``loader`` runs all of it and
``problems`` formats what went wrong. ``schema`` writes the editor JSON Schemas. Nothing here
computes a figure or knows about the site.
"""
