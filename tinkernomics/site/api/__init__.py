"""The public JSON API: versioned models, their build from the catalog, files and its page."""
