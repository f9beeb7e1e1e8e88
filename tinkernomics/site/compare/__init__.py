"""Compare view (pipeline step 6): two to four algorithms side by side, at ``compare/``.

``view`` builds the columns from the algorithm view models (no arithmetic of its own),
``feature`` renders the page's static comparison of the featured algorithms, writes one column
file per algorithm that ``compare.js`` swaps in for a link's ``?a=`` selection, and adds a
"Compare" link to every algorithm page.
"""
