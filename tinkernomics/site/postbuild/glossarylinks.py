"""Glossary links at first use (pipeline step 6, in the link-preview pass over every page).

Every page links the first occurrence of each glossary term in its prose to the term's entry on
the Glossary page (``docs/glossary.md``; ``TERMS`` maps each term's spelling to its anchor there,
and a test checks every anchor exists). ``previews.tag_page`` passes each finished page through
``link_first_uses``, so the rule is the same on every page, hand-written or built from the
catalog, and a page needs no markup of its own.

It works on the finished HTML, after every piece of catalog text has been escaped, and only
wraps text that is already there: it never unescapes, never touches a tag or an attribute, and
skips what is not prose (the content of ``a``, ``code``, ``pre``, ``kbd``, headings, ``script``,
``style``, ``template``, ``svg``, ``math``, form controls and ``summary``). Only the page's
``<article>`` is read (not the navigation); the Glossary page itself is left alone, and a term
the page already links to the glossary by hand is not linked again.
"""

from __future__ import annotations

import re

GLOSSARY_PAGE = "glossary/"
"""The Glossary page's site path (``docs/glossary.md`` with directory URLs)."""
LINK_CLASS = "tn-gloss"

TERMS: tuple[tuple[str, str], ...] = (
    ("mfu", r"MFU"),
    ("zero", r"ZeRO(?:-[123])?"),
    ("kv-cache", r"KV[ -]cache"),
    ("context-length", r"[Cc]ontext (?:length|window)"),
    ("mean-at-k", r"mean@(?:\d+|k)"),
    ("fsdp", r"FSDP"),
    ("flops", r"FLOPs"),
    ("gpu-hour", r"GPU-hours?"),
    ("bf16", r"[Bb][Ff]16"),
    ("moe", r"MoE|[Mm]ixture[- ]of[- ]experts"),
    ("lora", r"LoRA"),
    ("full-fine-tuning", r"[Ff]ull fine-tuning"),
    ("prefill", r"[Pp]refill"),
    ("decode", r"[Dd]ecode"),
    ("throughput", r"[Tt]okens per second"),
    ("break-even", r"[Bb]reak-even"),
    ("free-tier", r"[Ff]ree tier"),
    ("kl", r"KL penalty"),
    ("group-size", r"[Gg]roup size"),
    ("reward-model", r"[Rr]eward model"),
    ("reference", r"[Rr]eference model"),
    ("critic", r"[Cc]ritic"),
    ("offline", r"[Oo]ffline method"),
    ("scalerl", r"ScaleRL fit"),
)
"""(glossary anchor, the term's spellings as a regular expression), matched as whole words."""

_SKIPPED = frozenset({"a", "code", "pre", "kbd", "samp", "h1", "h2", "h3", "h4", "h5", "h6",
                      "script", "style", "template", "svg", "math", "textarea", "select",
                      "option", "button", "label", "summary", "title", "noscript"})
"""Elements whose content is never linked: links, code, headings, not-prose."""
_TAG = re.compile(r"""<!--.*?-->|<(/?)([A-Za-z][\w-]*)[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>""",
                  re.S)
_VOID_END = re.compile(r"/\s*>$")
_WORDISH = re.compile(r"[\w@-]")
"""A character that joins a term to its neighbour (a term is matched as a whole word)."""


def _first_chars(pattern: str) -> str | None:
    """The characters a term's pattern can start with (``[Cc]ritic`` -> ``Cc``), None when the
    pattern starts otherwise (then the finder has no prefilter)."""
    if pattern.startswith("[") and "]" in pattern:
        return pattern[1:pattern.index("]")]
    return pattern[0] if pattern[:1].isalnum() else None


def _finder() -> re.Pattern[str]:
    """One pattern for every term. The word boundary before a term is checked by ``wrap``, not
    by a look-behind: a pattern that starts with a set of first letters lets the regular
    expression engine skip ahead to them (about five times faster over a page's prose)."""
    terms = "|".join(f"(?P<t{i}>(?:{pattern})(?![\\w@-]))" for i, (_, pattern) in enumerate(TERMS))
    firsts = [_first_chars(pattern) for _, pattern in TERMS]
    if any(f is None for f in firsts):
        return re.compile(terms)
    chars = "".join(sorted(set("".join(f or "" for f in firsts))))
    return re.compile(f"(?=[{re.escape(chars)}])(?:{terms})")


_FINDER = _finder()
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">')


def root_of(rel_url: str) -> str:
    """Relative path from a page (site path such as ``algorithms/grpo/``) to the site root."""
    return "../" * len([part for part in rel_url.split("/")[:-1] if part])


def link_first_uses(page: str, rel_url: str) -> str:
    """``page`` with the first prose occurrence of each glossary term in its article linked to
    the Glossary; unchanged without an article, on the Glossary page, or with nothing to link."""
    start_tag = _ARTICLE.search(page)
    if rel_url == GLOSSARY_PAGE or start_tag is None:
        return page
    start = start_tag.end()
    end = page.find("</article>", start)
    if end < 0:
        return page
    href = f"{root_of(rel_url)}{GLOSSARY_PAGE}"
    article = page[start:end]
    done = {anchor for anchor, _ in TERMS if f'{GLOSSARY_PAGE}#{anchor}"' in article
            or f'glossary.md#{anchor}"' in article}
    return page[:start] + _link_article(article, href, done) + page[end:]


def _link_article(article: str, href: str, done: set[str]) -> str:
    out: list[str] = []
    skipped: list[str] = []
    position = 0
    for tag in _TAG.finditer(article):
        text = article[position:tag.start()]
        out.append(text if skipped else _link_text(text, href, done))
        out.append(tag.group())
        position = tag.end()
        _track(tag, skipped)
    tail = article[position:]
    out.append(tail if skipped else _link_text(tail, href, done))
    return "".join(out)


def _track(tag: re.Match[str], skipped: list[str]) -> None:
    """Keep the stack of open skipped elements (a skipped element's content may nest tags)."""
    closing, name = tag.group(1), (tag.group(2) or "").lower()
    if name not in _SKIPPED or _VOID_END.search(tag.group()):
        return
    if not closing:
        skipped.append(name)
    elif name in skipped:
        while skipped and skipped.pop() != name:
            pass


def _link_text(text: str, href: str, done: set[str]) -> str:
    """Wrap the first occurrence of each term not yet linked (``done`` grows)."""
    if len(done) == len(TERMS) or not text.strip():
        return text

    def wrap(match: re.Match[str]) -> str:
        if match.start() and _WORDISH.match(text, match.start() - 1):
            return match.group()  # inside a longer word: not the term
        anchor = TERMS[int(next(k for k, v in match.groupdict().items() if v)[1:])][0]
        if anchor in done:
            return match.group()
        done.add(anchor)
        return f'<a class="{LINK_CLASS}" href="{href}#{anchor}">{match.group()}</a>'

    return _FINDER.sub(wrap, text)
