"""How a figure appears on the site, in Python (pipeline step 6, rendering speed).

``shown`` is THE way a figure appears: value (source on hover), status badge (text, not colour
alone), footnote-style citation links and, beside them as visible text, where in the source the
value is stated (its locator: "§4.2", "Table 2"; a long one, a quoted sentence, is cut to one line
that opens in full when focused or tapped, so keyboards and touch screens reach it without a
tooltip). The templates' partials (``_partials.html``: ``shown``,
``brief``, ``badge``, ``cite``, ``cites``) call these functions: a figure is printed thousands
of times per build, and nested Jinja macro calls cost more than the rest of a page. Output is
the same HTML the macros wrote, escaped the same way (markupsafe).
"""

from __future__ import annotations

from collections.abc import Iterable

from markupsafe import Markup, escape

from tinkernomics.site.pages.views import Cite, Shown


def cite(c: Cite) -> Markup:
    return Markup(f'<sup class="tn-cite"><a href="{escape(c.href)}" title="{escape(c.hover)}">'
                  f"[{c.number}]</a></sup>")


def cites(items: Iterable[Cite]) -> Markup:
    return Markup("".join(cite(c) for c in items))


def badge(s: Shown, *, titled: bool = True) -> Markup:
    """The status badge (unverified links to its data-quality entry); ``titled`` adds the
    status meaning as hover text."""
    meaning = escape(s.status_meaning)
    if s.status == "unverified":
        title = (f' title="Unverified: {meaning}. Click for what the sources report instead."'
                 if titled else "")
        return Markup(f'<a class="tn-badge tn-badge--unverified" href="{escape(s.quality_href)}"'
                      f"{title}>unverified</a>")
    if s.status == "derived":
        title = f' title="Derived: {meaning}."' if titled else ""
        return Markup(f'<span class="tn-badge tn-badge--derived"{title}>derived</span>')
    return Markup("")


LONG_LOCATOR = 48
"""Characters beyond which a locator is cut to one line (opened in full on focus or tap)."""


def locator(text: str) -> Markup:
    """Where in the source a value is stated, as visible plain text (escaped: catalog text).
    A long one is one focusable line: the full text is in the page (screen readers read it all)
    and CSS opens it on focus, which a tap or the Tab key gives. Left out of the search index:
    a locator's words (a quoted sentence) are a reviewer's, and would rank pages for readers'
    queries on words the page itself does not say."""
    if not text:
        return Markup("")
    if len(text) <= LONG_LOCATOR:
        return Markup(f'<span class="tn-loc" data-search-exclude>{escape(text)}</span>')
    return Markup(f'<span class="tn-loc tn-loc--long" tabindex="0" data-search-exclude>'
                  f'{escape(text)}</span>')


def _figure(s: Shown, hover: str, element_id: str | None, *, brief: bool = False,
            located: bool = True) -> Markup:
    id_attr = f' id="{escape(element_id)}"' if element_id else ""
    where = locator(s.locator) if located else ""
    return Markup(f'<span class="tn-fig tn-fig--{escape(s.status)}"{id_attr}>'
                  f'<span class="tn-fig__value" title="{escape(hover)}">{escape(s.text)}</span>'
                  f"{badge(s, titled=not brief)}{cites(s.cites)}{where}</span>")


def shown(s: Shown, with_id: bool = True) -> Markup:
    """A value with its provenance and locator; ``with_id=False`` when the value is shown a
    second time on the page (element ids are unique)."""
    return _figure(s, s.hover, s.anchor if with_id else None)


def brief(s: Shown) -> Markup:
    """A figure in a long list (the algorithms index): its source as hover text and a plain
    badge; not the status meaning, note or what the sources report instead (its page has
    them), which would repeat in every row."""
    return _figure(s, s.brief_hover, None, brief=True, located=False)


PARTIALS = {"fig_shown": shown, "fig_brief": brief, "fig_badge": badge, "fig_cite": cite,
            "fig_cites": cites, "fig_locator": locator}
"""Jinja globals the partials call."""
