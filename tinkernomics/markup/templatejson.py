"""JSON a page carries as the text of a ``<template>`` (a leaf: any layer may use it).

The calculator's data, a chart's Plotly figure in an exported page and the embed box's facts
are JSON inside HTML. ``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e``,
``\\u0026`` (still the same JSON), so the HTML parser sees plain text whatever catalog text the
JSON holds. The page carries it as a ``<template>``'s text, not a
``<script type="application/json">``: Material's instant navigation re-creates every inline
script of the new page without its attributes, which would run the data as code (refused by
the page's Content-Security-Policy) and lose its class.
"""

from __future__ import annotations

import json
from typing import Any


def template_json(value: Any, *, sort_keys: bool = False) -> str:
    """``value`` as compact JSON that is plain text to the HTML parser (no NaN)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      sort_keys=sort_keys)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
