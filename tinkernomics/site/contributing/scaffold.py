"""``tinkernomics new KIND ID``: scaffold a catalog entry (the contributor's first step).

The new file starts with the YAML language server's schema modeline and comments EVERY field:
required or optional, its type and allowed values, its description and an example. All of it
is read off the models (``fieldsdoc``), so nothing here repeats a field's documentation.
Required fields are written as empty placeholders (``name:``): the validator reports each one
as "required field is empty" with its description until the contributor fills it in. A field a
rule requires in some cases (a figure's ``locator``, once its status is ``reported``) is a
placeholder too, labelled with its condition. Optional fields are written commented out, ready
to uncomment. For an algorithm the scaffold also
writes its page stub ``docs/algorithms/<id>.md`` (text from ``pages.algorithm_stub``).
"""

from __future__ import annotations

import argparse
import posixpath
import re
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tinkernomics.catalog.entries import KINDS, KINDS_BY_NAME, SCHEMA_DIR, Kind
from tinkernomics.catalog.fields import ID_PATTERN, STATUS_MEANINGS
from tinkernomics.catalog.loader import DEFAULT_CATALOG, DEFAULT_DOCS
from tinkernomics.site.contributing.fieldsdoc import NO_DEFAULT, FieldDoc, field_docs, flow

WIDTH = 99
"""Longest comment line the scaffold writes, in characters."""
MAX_ID_LENGTH = 80




def scaffold_kinds() -> tuple[str, ...]:
    """The declared kinds with one file per entry (a kind's ``single`` entry, the Tinker
    platform's, already exists)."""
    return tuple(k.name for k in KINDS if k.single is None)


class _ListKinds(argparse.Action):
    """``tinkernomics new --kinds``: print the kinds ``new`` writes, comma-separated, and exit
    (the Makefile's ``new`` usage line prints them)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(", ".join(scaffold_kinds()))
        parser.exit()


# --------------------------------------------------------------------------- rendering


@dataclass(frozen=True)
class Line:
    """A line of the template: its indentation, its text and whether it is live YAML."""

    indent: int
    text: str
    live: bool
    """False for documentation comments and commented-out fields."""

    def render(self) -> str:
        return (" " * self.indent + self.text).rstrip()


def _doc_comment(doc: FieldDoc, indent: int, units: tuple[str, ...], extra: int) -> list[Line]:
    """The comment above a field: name, required-ness, type, then description and hints.

    ``extra`` counts the characters that enclosing commented-out blocks will add in front.
    """
    width = WIDTH - indent - extra
    if doc.required:
        state = "REQUIRED"
    elif doc.required_when:
        state = f"REQUIRED when {doc.required_when.replace('`', '')}"
    elif doc.default is None or doc.default is NO_DEFAULT:
        state = "optional"
    else:
        state = f"optional, default {flow(doc.default)}"
    label = doc.type_label if doc.model is None else f"{doc.type_label} (fields below)"
    body = doc.description
    choices = ("list, each one of: " if doc.many else "one of: ") + ", ".join(doc.allowed)
    if units and doc.name == "unit":
        label = f"here it must be: {', '.join(units)}"
    elif doc.allowed and len(f"# {doc.name} — {state} · {choices}") <= width:
        label = choices
    elif doc.allowed:
        body += f" One of: {', '.join(doc.allowed)}."
    if doc.examples and not (doc.name == "id" and doc.required):
        word = "Example" if len(doc.examples) == 1 else "Examples"
        body += f" {word}: {', '.join(flow(e) for e in doc.examples)}"
    head = f"# {doc.name} — {state} · {label}"
    wrapped = textwrap.wrap(body, width=max(40, width), initial_indent="#   ",
                            subsequent_indent="#   ", break_on_hyphens=False,
                            break_long_words=False)
    return [Line(indent, text, live=False) for text in [head, *wrapped]]


def _value(doc: FieldDoc, entry_id: str, units: tuple[str, ...]) -> str:
    """The value written after ``name:`` (empty for a required field to fill in)."""
    if doc.name == "id" and doc.required:
        return entry_id
    if doc.name == "unit" and len(units) == 1:
        return units[0]  # the only value the rules accept in this slot
    if doc.required or doc.default is None:
        return ""
    return flow(doc.default)


def _comment_out(lines: list[Line], indent: int) -> list[Line]:
    """Comment a block out at ``indent`` (an editor's toggle-comment undoes it)."""
    return [Line(indent, "# " + " " * (ln.indent - indent) + ln.text, live=False)
            for ln in lines]


def _list_item(lines: list[Line], indent: int) -> list[Line]:
    """Turn a model rendered at ``indent + 2`` into one list item ``- key: ...`` at ``indent``."""
    out = list(lines)
    for i, ln in enumerate(out):
        if ln.live:
            out[i] = Line(indent, "- " + ln.text, live=True)
            return out
    return [Line(indent, "-", live=True), *out]


def _field_lines(doc: FieldDoc, indent: int, entry_id: str, units: tuple[str, ...],
                 extra: int) -> list[Line]:
    head = _doc_comment(doc, indent, units, extra)
    live = doc.required or bool(doc.required_when)  # a placeholder to fill, not commented out
    inner = extra if live else extra + 2  # optional blocks get commented out below
    if doc.model is not None and doc.many:
        item = render_model(doc.model, indent + 4, entry_id, extra=inner)
        value = [Line(indent, f"{doc.name}:", live=True), *_list_item(item, indent + 2)]
    elif doc.model is not None:
        value = [Line(indent, f"{doc.name}:", live=True),
                 *render_model(doc.model, indent + 2, entry_id, doc.units, extra=inner)]
    else:
        value = [Line(indent, f"{doc.name}: {_value(doc, entry_id, units)}", live=True)]
    return head + (value if live else _comment_out(value, indent))


def render_model(model: type[BaseModel], indent: int, entry_id: str,
                 units: tuple[str, ...] = (), extra: int = 0) -> list[Line]:
    """Every field of ``model``, documented; ``units`` is the slot's unit when it is a Figure."""
    lines: list[Line] = []
    for doc in field_docs(model):
        if indent == 0 and lines:
            lines.append(Line(0, "", live=False))
        lines += _field_lines(doc, indent, entry_id, units, extra)
    return lines


def _header(kind: Kind, entry_id: str) -> list[str]:
    schema = posixpath.relpath(f"{SCHEMA_DIR}/{kind.schema_file()}", kind.folder)
    purpose = (kind.model.__doc__ or "").strip().splitlines()[0]
    width = max(len(s.value) for s in STATUS_MEANINGS)
    statuses = [f"#     {s.value:<{width}} = {meaning}" for s, meaning in STATUS_MEANINGS.items()]
    return [
        f"# yaml-language-server: $schema={schema}",
        "#",
        f"# {kind.name.capitalize().replace('_', ' ')} `{entry_id}`: {purpose}",
        f"# Written by `make new KIND={kind.name} ID={entry_id}`. How to fill it in:",
        "# - Fill every field marked REQUIRED; until you do, `make validate` fails and names it.",
        "# - Optional fields are commented out: uncomment the lines you need (in VS Code: select",
        "#   them, then Ctrl+/ or Cmd+/).",
        "# - Every figure and claim names its `source` (a reference id from catalog/references/;",
        "#   add one with `make new KIND=reference ID=...`) and its `status`:",
        *statuses,
        "#   An unverified figure also says in `reported_instead` what the sources report, and",
        "#   in `asserted_by` who gave it: `contributor` (you), `secondary_source` or",
        "#   `original_site`.",
        "# - Never store a derived number (H100-equivalent hours, curve points): the build",
        "#   computes it.",
        "# - These comments may stay or go. Every field: CONTRIBUTING.md, Fields reference page.",
        "",
    ]


def render_entry(kind: Kind, entry_id: str) -> str:
    """The text of a new entry file of ``kind`` with id ``entry_id``."""
    body = [ln.render() for ln in render_model(kind.model, 0, entry_id)]
    return "\n".join([*_header(kind, entry_id), *body]) + "\n"


# --------------------------------------------------------------------------- writing files


class ScaffoldError(Exception):
    """A scaffold request that cannot be carried out (bad id, file exists)."""


def check_id(entry_id: str) -> None:
    """Raise ScaffoldError unless ``entry_id`` is a valid catalog id."""
    if re.fullmatch(ID_PATTERN, entry_id) and len(entry_id) <= MAX_ID_LENGTH:
        return
    suggestion = re.sub(r"[^a-z0-9_.-]+", "_", entry_id.lower()).strip("_.-")
    hint = f"; try {suggestion!r}" if suggestion and suggestion != entry_id else ""
    raise ScaffoldError(
        f"invalid id {entry_id!r}: use lower-case letters, digits, '_', '.' or '-', starting "
        f"with a letter or digit, at most {MAX_ID_LENGTH} characters{hint}"
    )


def entry_path(catalog_dir: Path, kind: Kind, entry_id: str) -> Path:
    return catalog_dir / kind.folder / f"{entry_id}.yaml"


def page_path(docs_dir: Path, entry_id: str) -> Path:
    return docs_dir / "algorithms" / f"{entry_id}.md"


def page_stub(entry_id: str) -> str:
    """The algorithm page stub; its text belongs to the site's pages module."""
    from tinkernomics.site.pages.feature import algorithm_stub

    return algorithm_stub(entry_id)


def plan(kind: Kind, entry_id: str, catalog_dir: Path, docs_dir: Path,
         page_only: bool = False) -> dict[Path, str]:
    """Files to write (path -> text); raise ScaffoldError if any exists already."""
    check_id(entry_id)
    files: dict[Path, str] = {}
    newest = newest_price_list(catalog_dir) if kind.name == "price_list" else None
    if not page_only:
        files[entry_path(catalog_dir, kind, entry_id)] = (
            copy_price_list(newest, entry_id) if newest else render_entry(kind, entry_id))
    if kind.name == "algorithm":
        files[page_path(docs_dir, entry_id)] = page_stub(entry_id)
    elif page_only:
        raise ScaffoldError("--page-only is for algorithms (only they have a page stub)")
    existing = [p for p in files if p.exists()]
    if existing:
        names = ", ".join(str(p) for p in existing)
        hint = ""
        if not page_only and kind.name == "algorithm" and existing == [
                entry_path(catalog_dir, kind, entry_id)]:
            hint = (" (to write only its page: .venv/bin/tinkernomics new algorithm "
                    f"{entry_id} --page-only)")
        raise ScaffoldError(f"{names} already exists; refusing to overwrite{hint}")
    return files


PRICE_LIST_NOTE = """\
# New price list {new}, copied from the newest list, {old}. Prices changed? Then:
# - keep this file beside {old}.yaml (never edit an old list: links and history use it);
# - change every price that moved, keep the rows that did not, delete a row only for a
#   model the provider no longer offers (validate says if the site's defaults need it);
# - point `source` at the reference for the new snapshot (make new KIND=reference
#   ID=tinker_pricing_YYYY_MM) and give its locator;
# - this list becomes the calculator's default from its `effective` date (today or earlier).
"""


def newest_price_list(catalog_dir: Path) -> Path | None:
    """The newest dated price list file (ids are their dates, so names sort by date)."""
    found = sorted((catalog_dir / KINDS_BY_NAME["price_list"].folder).glob("*.yaml"))
    return found[-1] if found else None


def copy_price_list(newest: Path, entry_id: str) -> str:
    """The newest list's text with its id, date and title moved to ``entry_id``: every row is
    there to edit, none to retype."""
    lines = newest.read_text(encoding="utf-8").splitlines()
    swaps = {"id:": f'id: "{entry_id}"', "effective:": f"effective: {entry_id}",
             "title:": f"title: Tinker prices effective {entry_id}"}
    out = [swaps[key] if (key := line.split(" ", 1)[0]) in swaps else line for line in lines]
    start = 1 if out and out[0].startswith("# yaml-language-server") else 0
    note = PRICE_LIST_NOTE.format(new=entry_id, old=newest.stem).rstrip("\n").split("\n")
    return "\n".join([*out[:start], *note, *out[start:]]) + "\n"


def write(files: dict[Path, str]) -> Iterable[Path]:
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        yield path


# --------------------------------------------------------------------------- CONTRIBUTING.md

TEMPLATE_BLOCK = re.compile(
    r"(?P<open><!-- scaffold:(?P<kind>[a-z_]+):(?P<id>[a-z0-9_.-]+) -->\n)"
    r".*?(?P<close><!-- /scaffold -->)", re.DOTALL)
"""A copy of a scaffold's output in CONTRIBUTING.md, between these two comments."""


def sync_templates(markdown: str) -> str:
    """``markdown`` with every scaffold block replaced by the scaffold's current output."""
    def fresh(match: re.Match[str]) -> str:
        text = render_entry(KINDS_BY_NAME[match["kind"]], match["id"])
        return f"{match['open']}```yaml\n{text}```\n{match['close']}"

    return TEMPLATE_BLOCK.sub(fresh, markdown)


# --------------------------------------------------------------------------- CLI


def cmd_new(args: argparse.Namespace) -> int:
    """Write the scaffold (or print it with --stdout); refuse to overwrite anything."""
    kind = KINDS_BY_NAME[args.kind]
    try:
        if args.stdout:
            check_id(args.id)
            sys.stdout.write(render_entry(kind, args.id))
            return 0
        files = plan(kind, args.id, Path(args.catalog), Path(args.docs), args.page_only)
    except ScaffoldError as err:
        print(f"tinkernomics new: {err}", file=sys.stderr)
        return 1
    for path in write(files):
        print(f"wrote {path}")
    if args.kind == "price_list" and newest_price_list(Path(args.catalog)) is not None:
        print("next: change the prices that moved (the comment at the top says how), then "
              "`make validate` and `make test`")
    elif not args.page_only:
        print("next: fill in the fields marked REQUIRED (`make validate` lists what is left),"
              " then `make serve` to see it on the site")
    return 0


def add_new_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "new", help="scaffold a catalog entry with every field commented",
        description="Write catalog/<folder>/ID.yaml with every field documented (and, for an "
                    "algorithm, its page stub docs/algorithms/ID.md). Never overwrites.")
    p.add_argument("kind", choices=scaffold_kinds(), help="kind of entry")
    p.add_argument("id", help="id of the new entry (also its file name)")
    p.add_argument("--catalog", default=str(DEFAULT_CATALOG), help="catalog folder")
    p.add_argument("--docs", default=str(DEFAULT_DOCS), help="docs folder (algorithm pages)")
    p.add_argument("--page-only", action="store_true",
                   help="algorithms: write only the page stub docs/algorithms/ID.md")
    p.add_argument("--kinds", action=_ListKinds, help="print the kinds of entry and exit")
    p.add_argument("--stdout", action="store_true",
                   help="print the entry template instead of writing files")
    p.set_defaults(func=cmd_new)


# python -m tinkernomics.site.contributing.scaffold CONTRIBUTING.md: refresh its copies
if __name__ == "__main__":
    for name in sys.argv[1:]:
        target = Path(name)
        target.write_text(sync_templates(target.read_text(encoding="utf-8")), encoding="utf-8")
