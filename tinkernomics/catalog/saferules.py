"""Everything that validates builds (pipeline step 3, cross-entry rules; issue 40).

The site renders catalog strings the models keep as plain ``str`` and uses ids as paths and as
keys of the browser's JavaScript objects; a catalog that validated could still crash ``mkdocs
build`` or break a page. These rules ask what the build asks, through the same code:

- ``rule_symbols_render``: a formula variable's ``symbol`` is LaTeX the site renders
  (``markup.prose.latex_problems``, the renderer's own verdict: ``\\evilcmd{R}`` crashed the
  build; ``\\hspace{100000em}`` and ``\\unicode{x202E}`` are refused there too).
- ``rule_ids_safe``: no id is a name every JavaScript object already holds (``constructor``,
  ``__proto__``...: the compare view looked ids up in plain objects) or ends like a file the site
  writes (``index.html``: an algorithm page ``algorithms/index.html/`` beside the index's file).
- ``rule_plain_values_safe``, one walk of every plain value for two checks: every date lies
  between ``EARLIEST`` and ``LATEST_YEARS`` years from today (``0001-01-01`` and ``9999-12-31``
  were accepted; years are the models' ``1950..2100``; the future of publication and check
  dates is ``dates``' rule), and every string, typed or plain (``signature``, ``expression``),
  holds no invisible character (``markup.invisible``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from tinkernomics.catalog.dates import today
from tinkernomics.catalog.entries import Catalog, Entry
from tinkernomics.catalog.partial import field_or_none
from tinkernomics.catalog.problems import Problem
from tinkernomics.catalog.walk import field_names, nested_models
from tinkernomics.catalog.yamlread import Loc
from tinkernomics.markup.invisible import hidden_char, hidden_message
from tinkernomics.markup.prose import latex_problems

JS_OBJECT_NAMES = frozenset({
    "constructor", "__proto__", "prototype", "tostring", "tolocalestring", "valueof",
    "hasownproperty", "isprototypeof", "propertyisenumerable", "__definegetter__",
    "__definesetter__", "__lookupgetter__", "__lookupsetter__",
})
"""Names every JavaScript object (or function) already holds, compared in lower case."""
FILE_SUFFIXES = (".html", ".htm", ".json", ".csv", ".xml", ".txt", ".md", ".png", ".svg",
                 ".js", ".css", ".map", ".gz", ".yaml", ".yml", ".php")
"""Endings of files a web server or the site writes: an id ending so names a file, not a page."""
EARLIEST = dt.date(1950, 1, 1)
"""No catalog date lies before this (the models' first year: the oldest works RL cites are
from the 1950s)."""
LATEST_YEARS = 10
"""No catalog date lies more than this many years after today (a free tier's last day may be
announced ahead; ``dates`` refuses a future publication or check date)."""


def rule_symbols_render(catalog: Catalog) -> Iterator[Problem]:
    """A variable's symbol renders as the formulas page renders it (inline MathML)."""
    for key, formula in catalog.formulas.items():
        for i, variable in enumerate(field_or_none(formula, "variables") or []):
            symbol = field_or_none(variable, "symbol")
            if not isinstance(symbol, str) or hidden_char(symbol):  # rule_no_hidden_text's
                continue
            for message in latex_problems(symbol):
                yield catalog.problem("formula", key, ("variables", i, "symbol"), message,
                                      "write a LaTeX symbol, e.g. P_{active}")


def _id_problem(name: str) -> str | None:
    if name.lower() in JS_OBJECT_NAMES:
        return (f"id {name!r} is a name every JavaScript object already holds: the site's "
                "scripts look ids up by name")
    if name.lower().endswith(FILE_SUFFIXES):
        return f"id {name!r} ends like a file name ({name.rsplit('.', 1)[1]}): ids name pages"
    return None


def rule_ids_safe(catalog: Catalog) -> Iterator[Problem]:
    """Ids (file names and ``id`` fields) and formula variable names are safe as page names and
    as keys of the browser's objects."""
    for entry in catalog.iter_entries():
        typed = field_or_none(entry.model, "id")
        for name, loc in ((entry.key, ("id",)), (typed, ("id",))):
            why = _id_problem(name) if isinstance(name, str) else None
            if why:
                yield catalog.problem(entry.kind.name, entry.key, loc, why, "choose another id")
                break
    for key, formula in catalog.formulas.items():
        for i, variable in enumerate(field_or_none(formula, "variables") or []):
            name = field_or_none(variable, "name")
            if isinstance(name, str) and name.lower() in JS_OBJECT_NAMES:
                yield catalog.problem("formula", key, ("variables", i, "name"),
                                      f"variable name {name!r} is a name every JavaScript "
                                      "object already holds", "choose another name")


def _date_message(value: dt.date, latest: dt.date) -> str | None:
    if EARLIEST <= value <= latest:
        return None
    return (f"date {value.isoformat()} is out of range ({EARLIEST.isoformat()} to "
            f"{latest.isoformat()})")


def rule_plain_values_safe(catalog: Catalog) -> Iterator[Problem]:
    """Every date lies in a span a catalog fact can have; no string anywhere holds an
    invisible character. One walk of every plain value serves both (issue 47), read field by
    field as ``walk.plain_values`` reads them, a value's location built only for a problem
    (most of a large catalog's hundred thousand values are printable strings)."""
    latest = today().replace(year=today().year + LATEST_YEARS)
    for entry, loc, obj, _, _ in nested_models(catalog):
        for name in field_names(type(obj)):
            value = getattr(obj, name)
            if isinstance(value, str):
                if not value.isprintable():
                    yield from _unsafe(catalog, entry, (*loc, name), value, latest)
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if not (isinstance(item, str) and item.isprintable()) and \
                            not isinstance(item, BaseModel):
                        yield from _unsafe(catalog, entry, (*loc, name, index), item, latest)
            elif isinstance(value, dt.date):
                yield from _unsafe(catalog, entry, (*loc, name), value, latest)


def _unsafe(catalog: Catalog, entry: Entry, loc: Loc, value: Any,
            latest: dt.date) -> Iterator[Problem]:
    """The problem with one plain value: an invisible character, a date out of range."""
    if isinstance(value, str):
        message = hidden_message(value)
        if message is not None:
            yield catalog.problem(entry.kind.name, entry.key, loc, message)
    elif isinstance(value, dt.date):
        message = _date_message(value, latest)
        if message is not None:
            yield catalog.problem(entry.kind.name, entry.key, loc, message,
                                  "write the date as YYYY-MM-DD")


SAFE_RULES = (rule_symbols_render, rule_ids_safe, rule_plain_values_safe)
"""Registered in ``rules.RULES``."""
