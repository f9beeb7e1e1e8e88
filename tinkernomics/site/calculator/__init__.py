"""Calculator page and per-algorithm cost panels: the estimate graph shipped to the browser."""
