"""The compare table's cells as HTML, in Python (pipeline step 6, compare; rendering speed).

``head(col)`` is an algorithm's column heading, ``cell(col, key)`` its cell in the row ``key``
(``view.ROWS``); ``column(col)`` a whole column as compare.js reads it (``compare.feature``).
The page's static table (``compare.html``, through the Jinja globals ``compare_head`` and
``compare_cell``) and every algorithm's column are made by these functions, so they cannot
differ. A column's cells are not labelled (``labelled=False``): compare.js labels them with the
heading's id and name. A question the catalog has no field for says "not in the catalog".

Issue 47: a build renders a column per algorithm; as Jinja macros (one call per cell, a figure
through the partials' Python) they cost twice what these string joins do. The HTML is the same,
escaped the same way (markupsafe: catalog text is escaped, ``Markup`` from the figures' and the
prose's renderers is kept as it is).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup, escape

from tinkernomics.site.compare.view import ROWS, CompareColumn
from tinkernomics.site.pages.figures import cites, shown


def missing(text: str = "not in the catalog") -> str:
    """What a cell says when the catalog holds nothing for its question."""
    return f'<span class="tn-na">{escape(text)}</span>'


def head(col: CompareColumn) -> Markup:
    """The column's heading: the algorithm's name, linked to its page."""
    return Markup(f'<th scope="col" data-tn-algo="{escape(col.id)}"><a href="{escape(col.href)}">'
                  f"{escape(col.name)}</a></th>")


def _profile(col: CompareColumn) -> str:
    r = col.row
    return (f"<strong>{escape(r.full_name)}</strong><br>{escape(r.attribution)} "
            f"({escape(r.year)})<br>Memory profile: {escape(r.memory_profile)} · rollouts: "
            f"{escape(r.rollouts)} · async (off-policy): {escape(r.async_support)}\n")


def _memory(col: CompareColumn) -> str:
    r = col.row
    return (f"{escape(r.models_in_memory)}<br>Critic (value model): {escape(r.needs_critic)}"
            f" · reward model: {escape(r.needs_reward_model)}\n")


def _sampling(col: CompareColumn) -> str:
    r = col.row
    g = shown(r.typical_g) if r.typical_g else missing("not applicable")
    return f"G (rollouts per prompt): {g}<br>K (passes per batch): {shown(r.typical_k)}\n"


def _tinker(col: CompareColumn) -> str:
    losses = col.row.losses
    text = (", ".join(f'<a href="{escape(loss.href)}"><code>{escape(loss.id)}</code></a>'
                      for loss in losses) if losses else missing("no Tinker loss"))
    if col.tinker_mapping:
        text += f'<div class="tn-compare__prose">{escape(col.tinker_mapping)}</div>'
    return text


def _run(col: CompareColumn) -> str:
    if not col.run:
        return missing("not computed for this catalog")
    return f"{escape(col.run[0])} of GPU memory at the peak · Tinker bill {escape(col.run[1])}"


def _clipping(col: CompareColumn) -> str:
    if not col.clipping:
        return missing()
    return "<br>".join(f"<code>{escape(name)}</code> {shown(value)}"
                       for name, value in col.clipping
                       ) + "<br><small>ratio bounds of the cookbook recipe</small>"


def _kl(col: CompareColumn) -> str:
    if not col.kl:
        return missing()
    return "<br>".join((f"<code>{escape(name)}</code>" if name.startswith("kl_")
                        else f"{escape(name)}:") + f" {shown(value)}" for name, value in col.kl)


def _convergence(col: CompareColumn) -> str:
    fit = col.row.scalerl
    if not fit:
        return missing("no sourced ScaleRL fit (its page says what the sources report)")
    return (f"A {shown(fit.A)} · B {shown(fit.B)} · C<sub>mid</sub> {shown(fit.C_mid)}<br>"
            f"{shown(fit.h100)}")


def _claims(col: CompareColumn) -> str:
    if not col.claims:
        return missing("none in the catalog")
    items = "".join(f"<li>{shown(c)}</li>" for c in col.claims)
    return f'<ul class="tn-compare__list">{items}</ul>'


def _references(col: CompareColumn) -> str:
    return f"{cites(col.references)}\n"


CELLS: dict[str, Callable[[CompareColumn], str]] = {
    "profile": _profile, "memory": _memory, "clipping": _clipping, "kl": _kl,
    "sampling": _sampling, "tinker": _tinker, "run": _run, "convergence": _convergence,
    "claims": _claims, "references": _references,
}
"""Each row's content, by key (a key with none here says "not in the catalog")."""


def cell(col: CompareColumn, key: str, labelled: bool = True) -> Markup:
    """The column's cell in row ``key``; ``labelled``: with the id and name compare.js reads."""
    content = CELLS[key](col) if key in CELLS else missing() + "\n"
    start = (f'<td data-tn-algo="{escape(col.id)}" data-label="{escape(col.name)}">'
             if labelled else "<td>")
    return Markup(f"{start}{content}</td>")


def column(col: CompareColumn) -> str:
    """One algorithm's column as compare.js reads it: its heading, then a row per question."""
    rows = "".join(f'<tr data-tn-row="{key}">{cell(col, key, labelled=False)}</tr>\n'
                   for key, _ in ROWS)
    return f"<table>\n<thead><tr>{head(col)}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>"


GLOBALS: dict[str, Any] = {"compare_head": head, "compare_cell": cell}
"""The Jinja globals ``compare.html`` calls."""
