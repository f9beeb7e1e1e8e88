"""Command line: ``tinkernomics validate | schema | find | new | chart | ...`` (the entry point).

Each sub-command is a small function; ``main`` only parses arguments. Commands that live
with their feature (``new``, ``chart``, ``api``) are listed in ``COMMANDS``; those modules never
import this one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from tinkernomics.catalog.csvwarnings import print_warnings
from tinkernomics.catalog.entries import KINDS
from tinkernomics.catalog.loader import DEFAULT_CATALOG, DEFAULT_DOCS, load_catalog
from tinkernomics.catalog.lookup import find
from tinkernomics.catalog.problems import printable
from tinkernomics.catalog.schema import stale_schemas, write_schemas
from tinkernomics.site.api.feature import add_api_command
from tinkernomics.site.calculator.backtest_cli import add_backtest_command
from tinkernomics.site.calculator.estimate_cli import add_estimate_command
from tinkernomics.site.charts.export import add_chart_command
from tinkernomics.site.contributing.scaffold import add_new_command
from tinkernomics.site.needs import site_needs
from tinkernomics.site.outputs import add_outputs_command
from tinkernomics.site.reserved import site_names

Setup = Callable[[argparse._SubParsersAction], None]


def _docs_dir_for(catalog_dir: Path, explicit: Path | None) -> Path | None:
    if explicit is not None:
        return explicit
    guess = catalog_dir.resolve().parent / DEFAULT_DOCS
    return guess if (guess / "algorithms").is_dir() else None


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate the catalog; print every problem, then a summary."""
    catalog_dir = Path(args.catalog)
    # The entries the site's code names by id, the names it uses itself and its pages are
    # checked when the catalog is a site's: it sits beside the site's mkdocs.yml (a scratch or
    # test catalog elsewhere need not hold them).
    is_site = (catalog_dir.resolve().parent / "mkdocs.yml").is_file()
    catalog, problems = load_catalog(catalog_dir, docs_dir=_docs_dir_for(catalog_dir, args.docs),
                                     needs=site_needs() if is_site else (),
                                     names=site_names() if is_site else None)
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    print_warnings(catalog, in_actions)  # spreadsheet formulas (issue 40): never a failure
    for problem in problems:
        print(problem.format())
        if in_actions:
            print(problem.github())
    if problems:
        files = len({p.path for p in problems})
        print(f"{len(problems)} problem(s) in {files} file(s)", file=sys.stderr)
        return 1
    counts = Counter({k.name: len(catalog.entries.get(k.name, {})) for k in KINDS})
    summary = ", ".join(f"{n} {name}" for name, n in counts.items())
    print(f"catalog OK: {sum(counts.values())} entries checked ({summary})")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    """Write JSON Schemas (or, with --check, fail when the committed ones are stale)."""
    directory = Path(args.catalog) / "schema"
    if args.check:
        stale = stale_schemas(directory)
        for name in stale:
            print(f"{directory / name}:1:1: (file): schema is stale",
                  "(hint: run `make schema`)")
        return 1 if stale else 0
    for path in write_schemas(directory):
        print(f"wrote {path}")
    return 0


def cmd_find(args: argparse.Namespace) -> int:
    """Print the entries matching a query (ids, titles, authors, arXiv ids). No match is an
    answer, not a failure (exit 0): a contributor checks that a paper or an id is new."""
    catalog, _ = load_catalog(Path(args.catalog))  # problems are `validate`'s job
    matches = find(catalog, args.query)
    for match in matches:
        print(match.format())
    if not matches:
        print(f"nothing found: no entry in {args.catalog} matches {args.query!r} "
              "(not in the catalog yet; `make new` scaffolds an entry)")
    return 0


def _find_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("find", help="look up entries by id, title, author or arXiv id")
    p.add_argument("query", help='words, an id or an arXiv id, e.g. "leave-one-out"')
    p.add_argument("--catalog", default=str(DEFAULT_CATALOG),
                   help="catalog folder (default: catalog)")
    p.set_defaults(func=cmd_find)


def _validate_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check every catalog file and cross-entry rule")
    p.add_argument("catalog", nargs="?", default=str(DEFAULT_CATALOG),
                   help="catalog folder (default: catalog)")
    p.add_argument("--docs", type=Path, default=None,
                   help="docs folder whose algorithm pages to check (default: ../docs if present)")
    p.set_defaults(func=cmd_validate)


def _schema_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schema", help="write JSON Schemas for editors into CATALOG/schema/")
    p.add_argument("catalog", nargs="?", default=str(DEFAULT_CATALOG))
    p.add_argument("--check", action="store_true", help="only check they are up to date")
    p.set_defaults(func=cmd_schema)


def _estimate_parser(sub: argparse._SubParsersAction) -> None:
    """``tinkernomics estimate`` (site/calculator/estimate_cli.py) plus ``--ways`` (every way to
    run the job, priced) and ``--recipe`` (the run as a tinker-cookbook recipe), added here."""
    add_estimate_command(sub)
    p = sub.choices["estimate"]
    p.add_argument("--ways", action="store_true",
                   help="compare every way to run the job (catalog/ways/); with --json: 'ways'")
    p.add_argument("--recipe", action="store_true",
                   help="the run as a tinker-cookbook command; with --json: 'recipe'")
    plain = p.get_default("func")
    p.set_defaults(func=lambda args: _estimate_with_extras(args, plain))


def _estimate_with_extras(args: argparse.Namespace, plain: Callable[..., int]) -> int:
    if not (args.ways or args.recipe):
        return plain(args)
    from tinkernomics.site.calculator.estimate_cli import query_of
    from tinkernomics.waysreport import extras, print_extras
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = plain(args)
    if code:
        print(out.getvalue(), end="")
        return code
    catalog, _ = load_catalog(Path(args.catalog))
    found = extras(catalog, query_of(args), ways=args.ways, recipe=args.recipe)
    if args.json:
        print(json.dumps({**json.loads(out.getvalue()), **found}, indent=1, allow_nan=False))
    else:
        print(out.getvalue(), end="")
        print_extras(found)
    return 0


COMMANDS: tuple[Setup, ...] = (
    _validate_parser, _schema_parser, _find_parser, add_new_command, add_chart_command,
    add_api_command, add_outputs_command, _estimate_parser, add_backtest_command,
)
"""Every sub-command's parser setup, in the order ``--help`` lists them."""


class OneLineParser(argparse.ArgumentParser):
    """A parser whose mistakes are one line and exit 2 (argparse prints its whole usage first);
    sub-command parsers inherit it (``add_subparsers`` makes them with the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {printable(message)} (--help lists the options)\n")


def build_parser() -> argparse.ArgumentParser:
    summary = __doc__.splitlines()[0].replace("``", "")
    parser = OneLineParser(prog="tinkernomics", description=summary)
    sub = parser.add_subparsers(dest="command", required=True)
    for setup in COMMANDS:
        setup(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = int(args.func(args))
        sys.stdout.flush()  # inside the try: a closed pipe raises here, not at interpreter exit
        return status
    except BrokenPipeError:
        return _reader_left()


def _reader_left() -> int:
    """The reader's pipe closed early (``tinkernomics estimate | head``): what they read is what
    they asked for, so no traceback. Standard output is pointed at the null device so that
    Python's flush at exit does not raise again (the Python docs' advice for SIGPIPE), and the
    exit status is the shell's for a process a pipe ended, 128 + SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
