"""Pages: view models built from the catalog and the templates that only format them."""
