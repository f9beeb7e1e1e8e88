"""Catalog text is never Jinja source, under a real `mkdocs serve` (issue 40).

A contributor's pull request is previewed with the README's `make serve`. Template syntax in
catalog values reaches the pages as text; in keys (an unknown field) and in values the
validator refuses, it reaches the error page that replaces every page while the catalog is
invalid, again as text. Before, the error page was Jinja source guarded by `{% raw %}` only, and a
key that closed it ran a shell command on the reviewer's machine.

The server runs in a temporary copy of the project on a port the system picks, and is always
stopped; every wait is bounded and ends on a condition.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from test_serve_recovery import (  # the live server and its fixture, shared
    CHANGE_S,
    FIRST_BUILD_S,
    Server,
    is_error,
    server,  # noqa: F401 - the fixture the tests below take
)

RAN = "uid="
"""What the shell payload prints (``id``)."""
JINJA_RAN = "TN_JINJA_RAN"
"""What the Jinja payloads render to: absent from their source text."""
SHELL = "{{ cycler.__init__.__globals__.os.popen(dict(id=1)|first).read() }}"
"""Runs ``id``; no quotes, which the error page's escaping would have turned into entities."""
ESCAPING_KEY = "{% endraw %}" + SHELL + "{{ dict(TN_JINJA=1)|first }}_RAN{% raw %}"
PLAIN = "{{ 'TN' ~ '_JINJA_RAN' }}"
BLOCK = "{% for x in [1] %}{{ dict(TN_JINJA=1)|first }}_RAN{% endfor %}"


def _yaml_single(text: str) -> str:
    """``text`` as a YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


def _no_output(text: str, served: Server) -> None:
    assert RAN not in text and JINJA_RAN not in text, text[-3000:]
    log = served.log.read_text(encoding="utf-8")
    assert RAN not in log and JINJA_RAN not in log, log[-3000:]


def _hostile_values(catalog: Path) -> None:
    """Template syntax in a way's name (the Ways page) and a reference's title (References,
    Data quality)."""
    edits = (("ways/aws-2026.yaml", "\nname: AWS on-demand\n", "name: {}"),
             ("references/grpo_deepseekmath.yaml", "\ntitle: ", "title: {}"))
    for rel, old, new in edits:
        path = catalog / rel
        text = path.read_text(encoding="utf-8")
        line = next(x for x in text.splitlines() if x.startswith(old.strip("\n")))
        hostile = new.format(_yaml_single(f"{PLAIN} {BLOCK} {line.split(': ', 1)[1]}"))
        path.write_text(text.replace(line, hostile, 1), encoding="utf-8")


@pytest.mark.build
def test_template_syntax_in_catalog_text_is_shown_literally(server: Server) -> None:  # noqa: F811
    grpo = server.project / "catalog" / "algorithms" / "grpo.yaml"
    good = grpo.read_text(encoding="utf-8")
    assert "\nattribution: Shao et al., DeepSeekMath\n" in good
    # Valid values holding template syntax: every page shows them as written.
    valued = good.replace("\nattribution: Shao et al., DeepSeekMath\n",
                          f"\nattribution: {_yaml_single('Shao ' + PLAIN + ' ' + BLOCK)}\n")
    valued = valued.replace("\nname: GRPO\n", f"\nname: {_yaml_single('GRPO ' + PLAIN)}\n")
    _hostile_values(server.project / "catalog")
    grpo.write_text(valued, encoding="utf-8")
    page = server.wait("algorithms/grpo/", lambda t: "Group Relative" in t and not is_error(t)
                       and "Shao" in t, FIRST_BUILD_S)
    _no_output(page, server)
    assert PLAIN in html.unescape(page) and BLOCK in html.unescape(page), page[-3000:]
    assert f"<title>GRPO {PLAIN}" in html.unescape(page)  # the page's title too
    # The pages whose templates pass finished HTML blocks through `filter raw`.
    for path in ("ways/", "references/", "data-quality/"):
        shown = server.wait(path, lambda t: "<html" in t and not is_error(t), CHANGE_S)
        _no_output(shown, server)
        assert f"{PLAIN} {BLOCK}" in html.unescape(shown), (path, shown[-2000:])

    # Keys and refused values holding template syntax: the error page quotes them as written.
    hostile = (f"{_yaml_single(ESCAPING_KEY)}: 1\n{_yaml_single(PLAIN)}: 2\n"
               f"{_yaml_single(BLOCK)}: 3\n")
    grpo.write_text(valued.replace("\nyear: 2024\n", f"\nyear: {_yaml_single(PLAIN)}\n")
                    + hostile, encoding="utf-8")
    text = server.wait("algorithms/grpo/", lambda t: is_error(t) and "unknown field" in t,
                       CHANGE_S)
    _no_output(text, server)
    home = server.wait("", is_error, CHANGE_S)
    _no_output(home, server)
    for shown in (text, home):
        for payload in (ESCAPING_KEY, PLAIN, BLOCK):
            assert payload in html.unescape(shown), shown[-3000:]
        assert ": year: " in shown
    assert server.proc.poll() is None
