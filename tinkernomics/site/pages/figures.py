"""How a figure appears on the site, in Python (pipeline step 6, rendering speed).

``shown`` is THE way a figure appears: value, status badge (text, not colour alone; its
meaning on hover, an unverified one links to the value's data-quality entry), footnote-style
citation links (the source on hover) and, beside them as visible text, where in the source the
value is stated (its locator: "§4.2", "Table 2"; a long one, a quoted sentence, is cut to one line
that opens in full when focused or tapped, so keyboards and touch screens reach it without a
tooltip). The templates' partials (``_partials.html``: ``shown``,
``brief``, ``badge``, ``cite``, ``cites``) call these functions: a figure is printed thousands
of times per build, and nested Jinja macro calls cost more than the rest of a page. Output is
the same HTML the macros wrote, escaped the same way (markupsafe).

Each thing once per page (issue 47): a value's hover text holds only what is neither beside it
nor behind its badge's link (``value_title``), and inside ``per_page`` (the page macros render in
it) a reference's full line is the hover text of its first citation only, or of none where the
page lists the reference itself; inside ``meanings_once`` (an algorithm page) a badge names its
status meaning, defined once at the page's end, instead of carrying it. And as few bytes as the
markup needs: a citation is one ``<a class="tn-cite">`` (set as a superscript by the
stylesheet), a value bare unless it has hover text or could break across lines (``_value``).

Locators carry ``data-search-exclude`` (the search index leaves them out; the attribute stays
in the page); a file no search plugin reads (the compare column files) drops it with ``unmark``.
(Marking the citation numbers and badges too shrinks the index by a few percent but shifts
its ranking: tests/test_search_ranking.py then fails; issue 47.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from markupsafe import Markup, escape

from tinkernomics.site.pages.views import Cite, Shown

SEARCH_MARK = " data-search-exclude"
_MARKED = ('<span class="tn-loc"', '<span class="tn-loc tn-loc--long" tabindex="0"')
"""The start tags this module marks for the search index (each followed by ``SEARCH_MARK``)."""


def unmark(html: str) -> str:
    """``html`` without the search marks this module's tags carry (matched as whole start
    tags as written here, never in catalog text, which is escaped)."""
    text = str(html)  # a plain string: Markup.replace would escape the tags
    for tag in _MARKED:
        text = text.replace(tag + SEARCH_MARK, tag)
    return text


_TITLED: ContextVar[set[str] | None] = ContextVar("tn_titled_references", default=None)
"""The references whose full line the page being rendered already carries (see ``per_page``)."""


@contextmanager
def per_page(listed: Iterable[str] = ()) -> Iterator[None]:
    """Render one page inside this: a reference's citations give its full line (authors, title,
    venue, year) as hover text on its first citation only, and none where the page lists the
    reference in full itself (``listed``: an algorithm page's References). Each citation links
    to the reference's entry on the References page either way. Outside it, every citation
    carries its hover text (a lone fragment)."""
    token = _TITLED.set(set(listed))
    try:
        yield
    finally:
        _TITLED.reset(token)


def _cite_title(c: Cite) -> str:
    titled = _TITLED.get()
    if titled is not None:
        if c.ref_id in titled:
            return ""
        titled.add(c.ref_id)
    return f' title="{escape(c.hover)}"'


def _cite(c: Cite) -> str:
    return f'<a class="tn-cite" href="{escape(c.href)}"{_cite_title(c)}>[{c.number}]</a>'


def cite(c: Cite) -> Markup:
    return Markup(_cite(c))


def cites(items: Iterable[Cite]) -> Markup:
    return Markup("".join(_cite(c) for c in items))


_MEANINGS: ContextVar[dict[str, str] | None] = ContextVar("tn_badge_meanings", default=None)
"""The status meanings the page being rendered defines once (text -> element id), see
``meanings_once``."""
MEANING_ID = "tn-why-"
"""The ids of a page's status meanings (``tn-why-1``...)."""


@contextmanager
def meanings_once() -> Iterator[dict[str, str]]:
    """Render one page inside this, and end it with ``meanings(...)`` of what it yields: each
    status meaning its badges carry is said once on the page, in a hidden definition every such
    badge names with ``aria-describedby`` (a screen reader reads it as the badge's description;
    site.js's badge-meanings.js shows it as the badge's tooltip on hover), instead of a ``title``
    repeated on every badge (issue 47: 0.7 MB over 1,000 algorithm pages). Outside it, each
    badge carries its meaning as its ``title`` (a lone fragment)."""
    defined: dict[str, str] = {}
    token = _MEANINGS.set(defined)
    try:
        yield defined
    finally:
        _MEANINGS.reset(token)


def _explained(meaning: str) -> str:
    """A badge's attribute that gives its meaning: a reference to the page's definition inside
    ``meanings_once``, else the text itself as hover text."""
    defined = _MEANINGS.get()
    if defined is None:
        return f' title="{escape(meaning)}"'
    element_id = defined.setdefault(meaning, f"{MEANING_ID}{len(defined) + 1}")
    return f' aria-describedby="{element_id}"'


def meanings(defined: dict[str, str]) -> Markup:
    """The page's status meanings (``meanings_once``) as one hidden block, left out of the search
    index; "" when no badge named one."""
    if not defined:
        return Markup("")
    spans = "".join(f'<span id="{i}">{escape(text)}</span>' for text, i in defined.items())
    return Markup(f'<div class="tn-why" hidden{SEARCH_MARK}>{spans}</div>')


def _badge(s: Shown, titled: bool = True, linked: bool = True) -> str:
    if s.status == "unverified":
        if not linked:
            return '<span class="tn-badge tn-badge--unverified">unverified</span>'
        why = (_explained(f"Unverified: {s.status_meaning}. Click for what the sources report "
                          "instead.") if titled else "")
        return (f'<a class="tn-badge tn-badge--unverified" href="{escape(s.quality_href)}"'
                f"{why}>unverified</a>")
    if s.status == "derived":
        why = _explained(f"Derived: {s.status_meaning}.") if titled else ""
        return f'<span class="tn-badge tn-badge--derived"{why}>derived</span>'
    return ""


def badge(s: Shown, *, titled: bool = True, linked: bool = True) -> Markup:
    """The status badge, as text; ``titled`` adds the status meaning (as hover text, or inside
    ``meanings_once`` as a reference to the page's one definition of it), ``linked``
    makes an unverified badge a link to its data-quality entry (a long list prints a plain
    badge: a link per row to the same page would be most of the list's links, each one work
    for the browser, and the list says once what the badge means)."""
    return Markup(_badge(s, titled, linked))


LONG_LOCATOR = 48
"""Characters beyond which a locator is cut to one line (opened in full on focus or tap)."""


def _locator(text: str) -> str:
    if not text:
        return ""
    if len(text) <= LONG_LOCATOR:
        return f'<span class="tn-loc"{SEARCH_MARK}>{escape(text)}</span>'
    return f'<span class="tn-loc tn-loc--long" tabindex="0"{SEARCH_MARK}>{escape(text)}</span>'


def locator(text: str) -> Markup:
    """Where in the source a value is stated, as visible plain text (escaped: catalog text).
    A long one is one focusable line: the full text is in the page (screen readers read it all)
    and CSS opens it on focus, which a tap or the Tab key gives. Left out of the search index:
    a locator's words (a quoted sentence) are a reviewer's, and would rank pages for readers'
    queries on words the page itself does not say."""
    return Markup(_locator(text))


UNBREAKABLE = re.compile(r"[0-9A-Za-z.,%$≈×]+")
"""A value no line can break inside (digits, letters, "." "," "%" "$" "≈" "×": no space, hyphen
or slash, Unicode line breaking's opportunities in a figure)."""


def _value(s: Shown, hover: str, wraps: bool = False) -> str:
    """The value, in its own element where it has hover text (dotted underline) or could break
    across lines (a table keeps it on one: ``.tn-table-wrap .tn-fig__value``); bare otherwise,
    as most are ("64", "1.3", "Yes"; issue 47: 0.3 MB over 1,000 algorithm pages). ``wraps``:
    the value is in no table (a field list), where it may break like the text around it."""
    text = escape(s.text)
    if not hover and (wraps or UNBREAKABLE.fullmatch(str(s.text))):
        return str(text)
    title = f' title="{escape(hover)}"' if hover else ""
    return f'<span class="tn-fig__value"{title}>{text}</span>'


def _figure(s: Shown, hover: str, element_id: str | None, wraps: bool = False) -> Markup:
    """(The parts are joined as plain strings, each escaped where it is made, and marked safe
    once: a figure is printed thousands of times a build.)"""
    id_attr = f' id="{escape(element_id)}"' if element_id else ""
    cited = "".join(_cite(c) for c in s.cites)
    return Markup(f'<span class="tn-fig"{id_attr}>{_value(s, hover, wraps)}'
                  f"{_badge(s)}{cited}{_locator(s.locator)}</span>")


def value_title(s: Shown, note_beside: bool = False, instead_beside: bool = False) -> str:
    """A shown value's hover text: what the reader finds nowhere near it, said once. Not its
    status (the badge says it, its hover text says what it means; a reported value has no
    badge), nor the note / what the sources report instead where the page prints them beside
    the value, nor what the sources report instead where the badge links to the value's own
    data-quality entry (``Shown.quality_entry``), which prints it. "" when nothing is left."""
    note = "" if note_beside else s.hover_note
    instead = "" if instead_beside or s.quality_entry else s.hover_instead
    return " ".join(p for p in (note, instead) if p)


def shown(s: Shown, with_id: bool = True, note_beside: bool = False,
          instead_beside: bool = False, wraps: bool = False) -> Markup:
    """A value with its provenance and locator; ``with_id=False`` when the value is shown a
    second time on the page (element ids are unique). Its hover text holds only what is not
    visible or linked beside it (``value_title``): the citations name the source, the locator
    is text, the badge gives the status; ``note_beside``/``instead_beside`` when the template
    prints the note / what the sources report instead next to the value; ``wraps`` where no
    table holds it (``_value``)."""
    return _figure(s, value_title(s, note_beside, instead_beside), s.anchor if with_id else None,
                   wraps)


def brief(s: Shown) -> Markup:
    """A figure in a long list (the algorithms index, the unverified values): the value, a plain
    badge and its citations, whose hover text is the source. Not the status meaning, note, what
    the sources report instead or the locator (its page has them), which would repeat in every
    row; and as few elements as that takes, since a list of the whole catalog is most of its
    page's work for the browser."""
    return Markup(_brief(s, _badge(s, titled=False, linked=False)))


def _brief(s: Shown, badge: str) -> str:
    cited = "".join(_cite(c) for c in s.cites)
    return f'<span class="tn-fig">{escape(s.text)}{badge}{cited}</span>'


def shown_or_dash(s: Shown | None) -> Markup:
    return shown(s) if s else Markup('<span class="tn-na">—</span>')


def reported_instead(s: Shown, searchable: bool = True) -> Markup:
    """What the sources report instead of an unverified value, as a paragraph ("" if nothing);
    ``searchable=False`` where the page's data-quality entry (left out of the search index
    itself) prints the same text."""
    if not s.reported_instead:
        return Markup("")
    mark = "" if searchable else SEARCH_MARK
    return Markup(f'<p class="tn-instead"{mark}><strong>Sources report instead:</strong> '
                  f"{escape(s.reported_instead)}</p>")


def dq_item(item: Any, own_page: bool = False) -> Markup:
    """One unverified value (``views.QualityItem``) with what the sources report instead, on the
    Data quality page or, ``own_page``, in its entry's own page's list (which names the entry
    already, in its title, and whose "where it appears" links within the page). The value is
    ``brief``: the item prints what its long hover text would repeat; and without its badge
    (issue 47): every value of a list of unverified values is one, which its heading says, and
    the item says who asserted it ("As given by the original site: ..."). A "where it appears"
    within the same page (a published run's block) names no page."""
    href = escape(item.where_href)
    if own_page or item.where_href.startswith("#"):
        where = f'<a href="{href}">where it appears</a>'
    else:
        where = f'<a href="{href}">where it appears ({escape(item.where_label)})</a>'
    what = f"{escape(item.field)} · {where}"
    if not own_page:
        what = f"<strong>{escape(item.entry)}</strong> · {what}"
    value = item.value
    asserted = (value.asserted or "as given").capitalize()
    instead = (f'\n<p class="tn-instead"><strong>Sources report instead:</strong> '
               f"{escape(value.reported_instead)}</p>" if value.reported_instead else "")
    return Markup(f'<div class="tn-dq__item" id="{escape(item.anchor)}">\n'
                  f"<p>{what}</p>\n"
                  f"<p>{escape(asserted)}: {_brief(value, '')}</p>{instead}</div>")


_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}#!|<>])")


def md_text(text: str) -> str:
    """Escape markdown syntax in plain text used inside a markdown line (e.g. a heading)."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def heading(level: int, text: str, anchor: str, searchable: bool = True) -> Markup:
    """A Markdown heading with a fixed id (attr_list), so it reaches the table of contents and
    has a permalink; ``searchable=False`` leaves its whole section (up to the next heading) out
    of the search index."""
    mark = SEARCH_MARK if not searchable else ""
    return Markup(f"{'#' * level} {escape(md_text(text))} {{#{escape(anchor)}{mark}}}")


PARTIALS = {"fig_shown": shown, "fig_brief": brief, "fig_badge": badge, "fig_cite": cite,
            "fig_cites": cites, "fig_locator": locator, "fig_shown_or_dash": shown_or_dash,
            "fig_reported_instead": reported_instead, "fig_dq_item": dq_item,
            "md_heading": heading}
"""Jinja globals the partials call."""
