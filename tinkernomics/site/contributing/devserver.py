"""The live server's friendly failures (pipeline step 6, used by ``make serve`` and the macros
adapter): an error page that lists the catalog's problems, and a one-line taken-port message.

While ``mkdocs serve`` runs, an invalid catalog must not fail the rebuild (MkDocs then keeps
every request waiting until a build succeeds): the adapter replaces each page's content with
``error_page_markdown`` instead, and the site is back on the next valid save. ``mkdocs build``
still fails. Nothing here imports mkdocs.
"""

from __future__ import annotations

import argparse
import html
import socket
import sys

from tinkernomics.catalog.problems import Problem

ERROR_PAGE_CLASS = "tn-catalog-error"
"""Class of the error listing (tests look for it)."""
PORT_SEARCH = 50
"""How many ports above a taken one are tried when suggesting a free one."""


def error_page_markdown(problems: list[Problem]) -> str:
    """Page content listing every problem, as `tinkernomics validate` prints them.

    Raw HTML inside ``{% raw %}``: the messages quote YAML and must reach the page verbatim,
    never be read as Jinja or markdown.
    """
    items = "\n".join(f"<li><code>{html.escape(p.format())}</code></li>" for p in problems)
    return (
        "{% raw %}\n"
        f'<div class="admonition failure {ERROR_PAGE_CLASS}">\n'
        f'<p class="admonition-title">The catalog has {len(problems)} problem(s); '
        "the site is shown again when they are fixed</p>\n"
        "<p>Fix the files below and save: this page reloads by itself. The same list is "
        "printed by <code>make validate</code>.</p>\n"
        f"<ul>\n{items}\n</ul>\n</div>\n"
        "{% endraw %}\n"
    )


def terminal_report(problems: list[Problem]) -> str:
    """What the server prints once per rebuild: the problems, then what happens next."""
    lines = [p.format() for p in problems]
    lines.append(f"{len(problems)} problem(s) in the catalog: every page shows them until "
                 "the next valid save")
    return "\n".join(lines)


def port_in_use(host: str, port: int) -> bool:
    """True when ``host:port`` cannot be bound (another server has it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def free_port_after(host: str, port: int) -> int | None:
    """The first free port above ``port`` (None if none in the next PORT_SEARCH)."""
    return next((p for p in range(port + 1, port + 1 + PORT_SEARCH)
                 if p < 65536 and not port_in_use(host, p)), None)


def port_message(host: str, port: int) -> str | None:
    """One line when the port is taken, saying how to pick another; None when it is free."""
    if not port_in_use(host, port):
        return None
    other = free_port_after(host, port) or port + 1
    return (f"port {port} on {host} is already in use (another server?): "
            f"pick another with `make serve PORT={other}`")


def main(argv: list[str] | None = None) -> int:
    """``python -m tinkernomics.site.contributing.devserver PORT [HOST]``: exit 1 with one line
    when the port is taken (``make serve`` runs this before starting MkDocs)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("port", type=int)
    parser.add_argument("host", nargs="?", default="127.0.0.1")
    args = parser.parse_args(argv)
    message = port_message(args.host, args.port)
    if message:
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
