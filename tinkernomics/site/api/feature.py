"""The JSON API as a site feature and a CLI step (pipeline step 6).

As a feature module (listed in ``sitebuild.FEATURES``) it gives the API page its macros and,
after MkDocs has built, writes ``site/api/v2/`` (``API_DIR``, ``write_outputs``). The same
files come from ``tinkernomics api build`` without MkDocs, so the API survives a change of
site generator. ``tinkernomics api schema`` keeps the committed public schema
(``api_schema.json``) in step with the public models, refusing to rewrite it for a changed
schema whose version was not bumped.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.api.files import (
    ARCHIVE,
    CSV_FILES,
    INDEX,
    LICENCE,
    LICENCE_URL,
    SCHEMA,
    TEMPLATES,
    data_last_changed,
    readable_json_bytes,
    render_api,
    write_api,
)
from tinkernomics.site.api.models import (
    API_MAJOR,
    API_VERSION,
    api_schema,
    schema_guard,
    single_documents,
)
from tinkernomics.site.build import Macro, SiteContext
from tinkernomics.site.freshness.feature import of_build

API_DIR = f"api/{API_MAJOR}"
"""Where the API lives, relative to the site root."""
API_PAGE = "api/"
"""The API page's path relative to the site root (docs/api.md with directory URLs)."""
PLACEHOLDER_SITE = "https://tinker-nomics.example/"
"""Shown in examples when mkdocs.yml sets no site_url."""
SCHEMA_FILE = Path(__file__).with_name("api_schema.json")
"""The committed copy of the public schema; tests compare it with the generated one."""
CHANGELOG = "CHANGELOG_API.md"
OPEN_DEFS = ("Figure", "Derivation")
"""Schema definitions shown unfolded on the API page (the rest are collapsed)."""
_FILES_KEY = "api_files"


# --------------------------------------------------------------------------- files


def site_files(ctx: SiteContext) -> dict[str, bytes]:
    """The API's files for this build, rendered once and shared by the page and the writer.

    The API page's overview shows the size of the zip and of each CSV file, so the first macro
    that asks (``api_overview``) renders every file: a build's phase table
    (``benchmarks/build_phases.py --macros``) shows the API's whole render under that macro,
    and ``outputs: api`` only the writing."""
    if _FILES_KEY not in ctx.extra:
        when = of_build(ctx.root).data_changed  # the build's one read of it
        ctx.extra[_FILES_KEY] = render_api(ctx.catalog, last_changed=when, site_url=ctx.site_url)
    return ctx.extra[_FILES_KEY]


def write_outputs(ctx: SiteContext, site_dir: Path) -> None:
    """Write every API file into ``site_dir/API_DIR`` (replacing what was there)."""
    write_api(site_files(ctx), site_dir / API_DIR)


# --------------------------------------------------------------------------- page views


@dataclass(frozen=True)
class Link:
    text: str
    href: str
    size: str


@dataclass(frozen=True)
class Endpoint:
    path: str
    href: str
    description: str
    count: int | None


@dataclass(frozen=True)
class SchemaField:
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class SchemaDef:
    name: str
    description: str
    fields: list[SchemaField]
    choices: list[str]


def _size(n_bytes: int) -> str:
    return f"{n_bytes} bytes" if n_bytes < 1024 else f"{n_bytes / 1024:.1f} KiB"


def _href(path: str) -> str:
    """Link from the API page to a file of the API (relative: works under any sub-path)."""
    return posixpath.relpath(f"{API_DIR}/{path}", API_PAGE.rstrip("/"))


def base_url(ctx: SiteContext) -> str:
    site = ctx.site_url or PLACEHOLDER_SITE
    return site.rstrip("/") + f"/{API_DIR}/"


def endpoints(ctx: SiteContext, files: dict[str, bytes]) -> list[Endpoint]:
    index = json.loads(files[INDEX])["result"]
    found = [Endpoint(INDEX, _href(INDEX), "What exists, the API version, when "
                      "the data last changed, checksums.", None),
             Endpoint(SCHEMA, _href(SCHEMA), "JSON Schema of every document.",
                      None)]
    for c in index["collections"]:
        listed = json.loads(files[c["path"]])["result"]
        example = listed[0]["id"] if listed else "ID"
        found.append(Endpoint(c["path"], _href(c["path"]),
                              f"{c['title']}, lean: each one's id, the fields to filter and "
                              "sort on, and `api_path`, its own file.", c["count"]))
        found.append(Endpoint(c["item_path"],
                              _href(c["item_path"].replace("{id}", example)),
                              f"One whole, e.g. `{example}`: {c['description']}", None))
    found += [Endpoint(s.file, _href(s.file), s.description, None)
              for s in single_documents() if s.file in files]
    return found


def downloads(files: dict[str, bytes]) -> list[Link]:
    names = [ARCHIVE, *(f.name for f in CSV_FILES)]
    return [Link(name, _href(name), _size(len(files[name]))) for name in names]


def _type_of(prop: dict[str, Any]) -> str:
    """Readable type of a schema property: 'number', 'Figure or null', 'list of Claim' ..."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in prop:
        return " or ".join(_type_of(p) for p in prop["anyOf"])
    if "enum" in prop:
        return " or ".join(f"`{v}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    if prop.get("type") == "array":
        return "list of " + _type_of(prop.get("items", {}))
    if prop.get("type") == "object" and "additionalProperties" in prop:
        return "map to " + _type_of(prop["additionalProperties"])
    fmt = f" ({prop['format']})" if "format" in prop else ""
    return str(prop.get("type", "any")) + fmt


def schema_defs(schema: dict[str, Any]) -> list[SchemaDef]:
    """Every definition of the public schema as a table (documents last)."""
    defs = schema["$defs"]
    order = sorted(defs, key=lambda name: (name.endswith("Document"), name))
    return [
        SchemaDef(
            name=name,
            description=(defs[name].get("description") or "").split("\n")[0],
            fields=[SchemaField(key, _type_of(prop), prop.get("description", ""))
                    for key, prop in defs[name].get("properties", {}).items()],
            choices=[str(v) for v in defs[name].get("enum", [])],
        )
        for name in order
    ]


def changelog_body(text: str) -> str:
    """The changelog without its title, headings one level down (it sits under a page title)."""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join("#" + line if line.startswith("##") else line for line in lines).strip()


_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)


def markdown_text(text: str) -> Markup:
    """Markdown text (schema descriptions) made safe to splice into a page: ``< > &`` are
    escaped outside code spans; inside them Markdown escapes them itself."""
    parts, last = [], 0
    for match in _CODE_SPAN.finditer(text):
        parts += [str(escape(text[last:match.start()])), match.group(0)]
        last = match.end()
    return Markup("".join([*parts, str(escape(text[last:]))]))


def _template_env() -> Environment:
    # *.md.j2 becomes the API page's HTML: every value is escaped (a path such as
    # `references/<id>.json` must not open an <id> element); *.py.j2 is code, left as is.
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                      autoescape=select_autoescape(enabled_extensions=("md.j2",),
                                                   default_for_string=True))
    env.filters["markdown_text"] = markdown_text
    return env


def macros(ctx: SiteContext) -> dict[str, Macro]:
    """Macros of the API page: overview, endpoints, examples, schema reference, changelog."""
    env = _template_env()
    changelog_path = ctx.root / CHANGELOG
    changelog = changelog_path.read_text(encoding="utf-8") if changelog_path.is_file() else ""

    def render(template: str, **values: Any) -> str:
        return env.get_template(template).render(**values)

    def api_overview() -> str:
        files = site_files(ctx)
        index = json.loads(files[INDEX])["result"]
        return render("overview.md.j2", version=API_VERSION, last_changed=index["last_changed"],
                      licence=LICENCE, licence_url=LICENCE_URL, downloads=downloads(files),
                      index_href=_href(INDEX), schema_href=_href(SCHEMA))

    def api_endpoints() -> str:
        return render("endpoints.md.j2", endpoints=endpoints(ctx, site_files(ctx)),
                      root=f"{API_DIR}/")

    def api_examples() -> str:
        return render("examples.md.j2", base=base_url(ctx), **example_values(ctx.catalog))

    def api_schema_reference() -> str:
        return render("schema.md.j2", defs=schema_defs(api_schema()),
                      schema_href=_href(SCHEMA), open=OPEN_DEFS)

    def api_changelog() -> str:
        return changelog_body(changelog)

    return {"api_overview": api_overview, "api_endpoints": api_endpoints,
            "api_examples": api_examples, "api_schema_reference": api_schema_reference,
            "api_changelog": api_changelog}


def example_values(catalog: Catalog) -> dict[str, str]:
    """Ids the examples use: the first algorithm (one with a ScaleRL fit if any)."""
    algos = catalog.algorithms
    with_fit = [k for k, a in algos.items() if a.scalerl is not None]
    return {"algorithm": (with_fit or list(algos) or ["grpo"])[0]}


# --------------------------------------------------------------------------- CLI


def cmd_api_build(args: argparse.Namespace) -> int:
    """Write the API into a folder without building the site."""
    catalog = load_valid_catalog(Path(args.catalog))
    files = render_api(catalog, last_changed=data_last_changed(catalog.root),
                       site_url=args.site_url)
    write_api(files, Path(args.out))
    print(f"wrote {len(files)} files ({sum(map(len, files.values()))} bytes) to {args.out}")
    return 0


def committed_schema(path: Path = SCHEMA_FILE) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def schema_text(schema: dict[str, Any]) -> str:
    return readable_json_bytes(schema).decode("utf-8")


def cmd_api_schema(args: argparse.Namespace) -> int:
    """Check, or regenerate, the committed public schema (never for an un-bumped change)."""
    changelog_path = Path(args.changelog)
    changelog = changelog_path.read_text(encoding="utf-8") if changelog_path.is_file() else ""
    generated = api_schema()
    problems = schema_guard(committed_schema(), generated, changelog)
    refused = not all(p.fixed_by_regenerating for p in problems)
    if args.check or refused:
        for problem in problems:
            print(f"{SCHEMA_FILE}:1:1: (file): {problem.message}", file=sys.stderr)
        return 1 if problems else 0
    SCHEMA_FILE.write_text(schema_text(generated), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE} (API {API_VERSION})")
    return 0


def add_api_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("api", help="write the JSON API, or check its public schema")
    api_sub = p.add_subparsers(dest="api_command", required=True)
    build = api_sub.add_parser("build", help=f"write /{API_DIR}/ files into a folder")
    build.add_argument("--catalog", default="catalog", help="catalog folder (default: catalog)")
    build.add_argument("--out", default=f"site/{API_DIR}", help="output folder")
    build.add_argument("--site-url", default="", help="site URL named in the README")
    build.set_defaults(func=cmd_api_build)
    schema = api_sub.add_parser("schema", help=f"regenerate {SCHEMA_FILE.name} (or --check)")
    schema.add_argument("--check", action="store_true", help="only check it is current")
    schema.add_argument("--changelog", default=CHANGELOG, help="path of CHANGELOG_API.md")
    schema.set_defaults(func=cmd_api_schema)
