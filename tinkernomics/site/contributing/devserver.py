"""The live server's friendly failures (pipeline step 6, used by ``make serve`` and the macros
adapter): an error page that lists the catalog's problems, and one-line messages for a port out
of range (1-65535) or taken.

While ``mkdocs serve`` runs, an invalid catalog must not fail the rebuild (MkDocs then keeps
every request waiting until a build succeeds): the adapter replaces each page's content with
``error_page_markdown`` instead (after templating: the messages are never Jinja source), and
the site is back on the next valid save. ``mkdocs build`` still fails. Nothing here imports mkdocs.
"""

from __future__ import annotations

import argparse
import html
import socket
import sys

from tinkernomics.catalog.problems import Problem
from tinkernomics.site.pages.rawhtml import raw_block

ERROR_PAGE_CLASS = "tn-catalog-error"
"""Class of the error listing (tests look for it)."""
PORT_SEARCH = 50
"""How many ports above a taken one are tried when suggesting a free one."""
PORT_RANGE = (1, 65535)
"""Ports a server can listen on (TCP ports are 16 bits; 0 means "any free one")."""


def error_page_markdown(problems: list[Problem]) -> str:
    """Page content listing every problem, as `tinkernomics validate` prints them.

    Escaped HTML, never template text: the macros adapter puts it in the page after
    mkdocs-macros has rendered it (``on_post_page_macros``), because the messages quote the
    catalog, keys included, and a key that closed a ``{% raw %}`` once ran code on the
    reviewer's machine. The block is marked to pass through Markdown unparsed (``rawhtml``).
    """
    items = "\n".join(f"<li><code>{html.escape(p.format())}</code></li>" for p in problems)
    return raw_block(
        f'<div class="admonition failure {ERROR_PAGE_CLASS}">\n'
        f'<p class="admonition-title">The catalog has {len(problems)} problem(s); '
        "the site is shown again when they are fixed</p>\n"
        "<p>Fix the files below and save: this page reloads by itself. The same list is "
        "printed by <code>make validate</code>.</p>\n"
        f"<ul>\n{items}\n</ul>\n</div>") + "\n"


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
                 if p <= PORT_RANGE[1] and not port_in_use(host, p)), None)


def port_message(host: str, port: int) -> str | None:
    """One line when the port is taken, saying how to pick another; None when it is free."""
    if not port_in_use(host, port):
        return None
    other = free_port_after(host, port) or port + 1
    return (f"port {port} on {host} is already in use (another server?): "
            f"pick another with `make serve PORT={other}`")


def range_message(text: str) -> str | None:
    """One line when ``text`` is not a port a server can listen on (0 would let the system
    pick one, and MkDocs would say it serves on port 0); None when it is."""
    port = text.strip()
    if port.isascii() and port.isdigit() and PORT_RANGE[0] <= int(port) <= PORT_RANGE[1]:
        return None
    return (f"PORT={port or '(empty)'} is not a port to serve on: pick a number from "
            f"{PORT_RANGE[0]} to "
            f"{PORT_RANGE[1]}, e.g. `make serve PORT=8001`")


def main(argv: list[str] | None = None) -> int:
    """``python -m tinkernomics.site.contributing.devserver PORT [HOST]``: exit 1 with one line
    when the port is out of range or taken (``make serve`` runs this before starting MkDocs)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("port", nargs="?", default="")
    parser.add_argument("host", nargs="?", default="127.0.0.1")
    args = parser.parse_args(argv)
    message = range_message(args.port) or port_message(args.host, int(args.port))
    if message:
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
