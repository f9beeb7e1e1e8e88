"""API output files (pipeline step 6): public models -> JSON, CSV, README and one zip, as bytes.

``render_api`` returns every file of ``/api/v2/`` as ``{relative path: bytes}`` and
``write_api`` puts them on disk. Output is deterministic: JSON with sorted keys, entries in id
order, CSV rows in a fixed order, zip members with fixed timestamps and permissions, and
``last_changed`` taken from the data's history (``data_last_changed``), never the wall clock.
So two builds of one commit give byte-identical trees.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import posixpath
import subprocess
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import catalog_files, collector_paused
from tinkernomics.site import safecsv
from tinkernomics.site.api.build import ApiData, build_api
from tinkernomics.site.api.models import (
    API_MAJOR,
    API_VERSION,
    PLATFORM_PATH,
    api_schema,
    collection_document,
    collections,
    document,
    item_document,
    responses,
    single_documents,
)
from tinkernomics.site.api.summaries import summary, summary_fields
from tinkernomics.site.identity import LICENCE, LICENCE_URL
from tinkernomics.site.postbuild import inplace

INDEX = "index.json"
SCHEMA = "schema.json"
ARCHIVE = "tinkernomics-data.zip"
ARCHIVE_FOLDER = f"tinkernomics-data-{API_MAJOR}"
"""The zip's one top folder: the API's folder, each collection's per-entry files as one file."""
ENTRIES_SUFFIX = ".jsonl"
"""A collection's whole entries in the zip: ``<collection>.jsonl``, one line per entry, each
line the bytes of the served ``<collection>/<id>.json`` (compact JSON ends with a newline)."""
README = "README.md"
TITLE = "tinker-nomics data API"
TEMPLATES = Path(__file__).parent / "templates"
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
"""Earliest time a zip can store; members before it are clamped here."""


# --------------------------------------------------------------------------- last changed


def data_last_changed(catalog_root: Path, environ: Mapping[str, str] | None = None) -> dt.datetime:
    """When the data last changed, in UTC, never from the wall clock.

    ``SOURCE_DATE_EPOCH`` if set; else the newest git commit touching the catalog folder; else
    (not in git) the newest catalog file's modification time.
    """
    env = os.environ if environ is None else environ
    epoch = env.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC)
    committed = _git_last_commit(catalog_root)
    if committed is not None:
        return committed
    files = catalog_files(catalog_root)
    newest = max((f.stat().st_mtime for f in files), default=0.0)
    return dt.datetime.fromtimestamp(int(newest), tz=dt.UTC)


def _git_last_commit(folder: Path) -> dt.datetime | None:
    """Commit time of the newest commit touching ``folder``, or None outside git."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "log", "-1", "--format=%cI", "--", "."],
            capture_output=True, text=True, check=False, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip()
    if done.returncode != 0 or not text:
        return None
    return dt.datetime.fromisoformat(text).astimezone(dt.UTC)


# --------------------------------------------------------------------------- serialisation


def json_bytes(data: Any) -> bytes:
    """Canonical JSON: sorted keys, compact (a third smaller than indented, which counts with
    thousands of files; browsers and ``jq`` indent it for reading), UTF-8, trailing newline."""
    return (json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False,
                       allow_nan=False) + "\n").encode("utf-8")


def readable_json_bytes(data: Any) -> bytes:
    """Indented canonical JSON, for the one file people read as a document: the schema (the
    same bytes as the committed ``site/api/api_schema.json``)."""
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False,
                       allow_nan=False) + "\n").encode("utf-8")


def csv_cell(value: Any) -> str | int | float:
    """How a JSON value is written in a CSV cell (lists joined with ';', null empty); text a
    spreadsheet would run as a formula is neutralised (``safecsv``), numbers stay numbers."""
    kind = type(value)
    if kind is float or kind is int:  # most cells; the csv module writes a float as repr()
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return value
    if isinstance(value, list):  # neutralised when it starts with text, not with a number
        joined = ";".join(str(csv_cell(v)) for v in value)
        return safecsv.neutralise(joined) if value and isinstance(value[0], str) else joined
    return safecsv.neutralise(str(value))


Column = tuple[str, Callable[[dict[str, Any]], Any]]


def _get(*keys: str) -> Callable[[dict[str, Any]], Any]:
    """Getter for a nested key path; None when a step is null."""
    def get(row: dict[str, Any]) -> Any:
        value: Any = row
        for key in keys:
            if value is None:
                return None
            value = value[key]
        return value
    return get


def csv_bytes(columns: list[Column], rows: list[dict[str, Any]]) -> bytes:
    """A CSV file (header row, '\\n' line ends) of ``rows`` read through ``columns``, by the
    site's one CSV writer (``safecsv``)."""
    return safecsv.csv_text([name for name, _ in columns],
                            ([csv_cell(get(row)) for _, get in columns] for row in rows)
                            ).encode("utf-8")


def with_provenance(columns: list[Column], references: list[dict[str, Any]],
                    last_changed: dt.datetime) -> list[Column]:
    """``columns`` with, after each source column (``source``, ``*_source``), the source's
    title and URL (``*_title``, ``*_url``: a reader need not look ids up), then the date the
    data last changed and the licence on every row."""
    by_id = {ref["id"]: ref for ref in references}

    def field(get: Callable[[dict[str, Any]], Any], key: str) -> Callable[[dict[str, Any]], Any]:
        return lambda row: (by_id.get(get(row)) or {}).get(key)

    out: list[Column] = []
    for name, get in columns:
        out.append((name, get))
        if name == "source" or name.endswith("_source"):
            out += [(f"{name}_title", field(get, "title")), (f"{name}_url", field(get, "url"))]
    day = last_changed.astimezone(dt.UTC).date().isoformat()
    return [*out, ("data_last_changed", lambda _row: day), ("licence", lambda _row: LICENCE)]


def _figure_columns(prefix: str, *keys: str, value_name: str | None = None) -> list[Column]:
    return [
        (value_name or prefix, _get(*keys, "value")),
        (f"{prefix}_status", _get(*keys, "status")),
        (f"{prefix}_source", _get(*keys, "source")),
    ]


ALGORITHM_COLUMNS: list[Column] = [
    *((name, _get(name)) for name in (
        "id", "name", "full_name", "attribution", "year", "models_in_memory", "needs_critic",
        "needs_reward_model", "memory_profile")),
    ("typical_k", _get("typical_k", "values")),
    ("typical_k_status", _get("typical_k", "status")),
    ("typical_k_source", _get("typical_k", "source")),
    ("typical_g", _get("typical_g", "values")),
    ("typical_g_status", _get("typical_g", "status")),
    ("typical_g_source", _get("typical_g", "source")),
    *((name, _get(name)) for name in (
        "async_support", "online", "tinker_losses", "references", "page")),
]

PRICE_COLUMNS: list[Column] = [
    ("price_list", _get("price_list", "id")),
    ("effective", _get("price_list", "effective")),
    ("latest", _get("price_list", "latest")),
    ("model", _get("row", "model")),
    ("model_name", _get("row", "model_name")),
    ("variant", _get("row", "variant")),
    ("prefill_usd_per_million_tokens", _get("row", "prefill", "value")),
    ("sample_usd_per_million_tokens", _get("row", "sample", "value")),
    ("train_usd_per_million_tokens", _get("row", "train", "value")),
    ("status", _get("row", "prefill", "status")),
    ("source", _get("row", "prefill", "source")),
    ("note", _get("row", "note")),
]

SCALERL_COLUMNS: list[Column] = [
    ("algorithm", _get("id")),
    ("name", _get("name")),
    ("model", _get("scalerl", "model")),
    ("dataset", _get("scalerl", "dataset")),
    ("curve_label", _get("scalerl", "curve_label")),
    *_figure_columns("A", "scalerl", "A", value_name="A_percent"),
    *_figure_columns("B", "scalerl", "B"),
    *_figure_columns("C_mid", "scalerl", "C_mid", value_name="C_mid_gb200_hours"),
    *_figure_columns("R0", "scalerl", "R0", value_name="R0_percent"),
    ("C_mid_h100_equivalent_hours", _get("scalerl", "C_mid_h100_equivalent", "value")),
    ("C_mid_h100_equivalent_status", _get("scalerl", "C_mid_h100_equivalent", "status")),
    ("C_mid_h100_equivalent_inputs_status",
     _get("scalerl", "C_mid_h100_equivalent", "derivation", "inputs_status")),
]

CURVE_COLUMNS: list[Column] = [
    ("algorithm", _get("algorithm")),
    ("gb200_hours", _get("point", "gb200_hours")),
    ("h100_equivalent_hours", _get("point", "h100_equivalent_hours")),
    ("reward_percent", _get("point", "reward_percent")),
]


@dataclass(frozen=True)
class CsvFile:
    """A CSV file: its name, what it holds, its columns and how rows come from the JSON."""

    name: str
    description: str
    columns: list[Column]
    rows: Callable[[dict[str, list[dict[str, Any]]]], list[dict[str, Any]]]


CSV_FILES: tuple[CsvFile, ...] = (
    CsvFile("algorithms.csv", "One row per algorithm: its profile fields, typical K and G with "
            "their status and source.", ALGORITHM_COLUMNS, lambda d: d["algorithms"]),
    CsvFile("prices.csv", "One row per Tinker price list, model and variant: USD per 1M prefill, "
            "sampled and trained tokens, with status and source.", PRICE_COLUMNS,
            lambda d: [{"price_list": p, "row": r} for p in d["prices"] for r in p["rows"]]),
    CsvFile("scalerl.csv", "One row per algorithm with a ScaleRL fit: A, B, C_mid, R0 with "
            "status and source, and the derived H100-equivalent C_mid.", SCALERL_COLUMNS,
            lambda d: [a for a in d["algorithms"] if a["scalerl"] is not None]),
    CsvFile("scalerl_curves.csv", "Derived ScaleRL curve points (compute in GB200- and "
            "H100-hours, fitted pass rate) per algorithm.", CURVE_COLUMNS,
            lambda d: [{"algorithm": a["id"], "point": pt} for a in d["algorithms"]
                       if a["scalerl"] is not None for pt in a["scalerl"]["curve"]["points"]]),
)


# --------------------------------------------------------------------------- documents


def api_documents(data: ApiData) -> tuple[dict[str, dict[str, Any]], dict[str, list[Any]]]:
    """Every JSON document except the index, by path relative to the API's folder, and every
    collection's whole entries as JSON data (by collection path, in id order: what the CSV
    files read). Each entry is dumped once: its own document holds it, its collection a lean
    copy of a few of its keys (``summaries``); neither is validated again (the public models
    validated it when ``build_api`` made it, and the tests check every document against the
    schema)."""
    docs: dict[str, dict[str, Any]] = {}
    whole: dict[str, list[Any]] = {}
    for c in collections():
        items = data.collections[c.path]
        results = whole[c.path] = [item.model_dump(mode="json") for item in items.values()]
        keys = summary_fields(c.kind, c.model)
        docs[f"{c.path}.json"] = collection_document(
            c.kind, [summary(result, keys) for result in results])
        for entry_id, result in zip(items, results, strict=True):
            docs[f"{c.path}/{entry_id}.json"] = item_document(c.kind, result)
    models = responses()
    for single in single_documents():
        found = data.singles[single.kind]
        if found is not None:
            docs[single.file] = document(single.kind, found.model_dump(mode="json"),
                                         models=models)
    return docs, whole


def index_document(data: ApiData, last_changed: dt.datetime,
                   files: dict[str, bytes]) -> dict[str, Any]:
    """The index: collections, CSV files, checksums of every other file."""
    listed_collections = [
        {"name": c.path, "title": c.title, "description": c.description, "kind": c.kind,
         "path": f"{c.path}.json", "item_path": f"{c.path}/{{id}}.json",
         "csv": c.csv, "count": len(data.collections[c.path])}
        for c in collections()
    ]
    listed = [{"path": path, "bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
              for path, body in sorted(files.items())]
    return document("index", {
        "title": TITLE, "last_changed": last_changed, "licence": LICENCE,
        "licence_url": LICENCE_URL, "schema_path": SCHEMA, "archive": ARCHIVE,
        "collections": listed_collections,
        "platform": PLATFORM_PATH if data.platform is not None else None,
        "latest_price_list": data.latest_price_list,
        "csv": [f.name for f in CSV_FILES], "files": listed,
    })


def readme_text(last_changed: dt.datetime, site_url: str, files: list[str]) -> str:
    """The archive's README: what each file holds, the licence, how to cite."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined,
                      keep_trailing_newline=True, autoescape=False)
    return env.get_template("README.md.j2").render(
        title=TITLE, version=API_VERSION, last_changed=last_changed,
        site_url=site_url.rstrip("/") + "/" if site_url else "", licence=LICENCE,
        licence_url=LICENCE_URL, collections=collections(), csv_files=CSV_FILES,
        platform=PLATFORM_PATH if PLATFORM_PATH in files else None, index=INDEX, schema=SCHEMA,
        folder=f"api/{API_MAJOR}/", entries_suffix=ENTRIES_SUFFIX,
    )


def archive_members(files: dict[str, bytes], entry_paths: Mapping[str, list[str]],
                    readme: bytes) -> dict[str, bytes]:
    """What the zip holds: every served file but the zip itself, with each collection's
    per-entry files (``entry_paths``: collection path -> their paths, in id order) carried
    once as ``<collection>.jsonl`` instead of one member per entry, and the README."""
    members = dict(files)
    for collection, paths in entry_paths.items():
        members[collection + ENTRIES_SUFFIX] = b"".join(members.pop(path) for path in paths)
    members.pop(ARCHIVE, None)
    return {**members, README: readme}


def zip_bytes(files: dict[str, bytes], when: dt.datetime) -> bytes:
    """A zip of ``files`` under ARCHIVE_FOLDER/, byte-identical for identical input."""
    stamp = max(ZIP_EPOCH, when.astimezone(dt.UTC).timetuple()[:6])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path, body in sorted(files.items()):
            info = zipfile.ZipInfo(f"{ARCHIVE_FOLDER}/{path}", date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so the permissions below are read
            info.external_attr = 0o644 << 16
            archive.writestr(info, body)  # level 6: level 9 saves 0.3% for a quarter more time
    return out.getvalue()


def render_api(catalog: Catalog, *, last_changed: dt.datetime,
               site_url: str = "") -> dict[str, bytes]:
    """Every file of the API as {path relative to its folder (/api/v2/): bytes}.

    With the cyclic garbage collector paused (``collector_paused``): the render builds a tree
    of public models and JSON data that it keeps to the end (reference counting frees the
    scratch), so each collection it set off re-scanned that tree and the site's objects and
    freed nothing; at 1,000 algorithms that was a third of its CPU (issue 47)."""
    with collector_paused():
        return _render_api(catalog, last_changed, site_url)


def _render_api(catalog: Catalog, last_changed: dt.datetime, site_url: str) -> dict[str, bytes]:
    data = build_api(catalog)
    docs, results = api_documents(data)
    files = {path: json_bytes(doc) for path, doc in docs.items()}
    references = results.get("references", [])
    for spec in CSV_FILES:
        columns = with_provenance(spec.columns, references, last_changed)
        files[spec.name] = csv_bytes(columns, spec.rows(results))
    files[SCHEMA] = readable_json_bytes(api_schema())
    files[INDEX] = json_bytes(index_document(data, last_changed, files))
    readme = readme_text(last_changed, site_url, list(files)).encode("utf-8")
    entry_paths = {c.path: [f"{c.path}/{key}.json" for key in data.collections[c.path]]
                   for c in collections()}
    files[ARCHIVE] = zip_bytes(archive_members(files, entry_paths, readme), last_changed)
    return files


def write_api(files: dict[str, bytes], out_dir: Path) -> None:
    """Make ``out_dir`` hold exactly ``files`` (no stale file survives): each written over any
    earlier build's file at its path (no inode freed and taken again, issue 47: see
    ``postbuild/inplace``; one already holding its bytes is left as it is, ``write_over``), then
    any other file under ``out_dir`` deleted."""
    root = str(out_dir)
    inplace.drop_others(root, {os.path.join(root, path) for path in files})
    for folder in sorted({posixpath.dirname(path) for path in files}):
        os.makedirs(os.path.join(root, folder), exist_ok=True)  # once per folder, not per file
    for path, body in sorted(files.items()):  # plain strings: no Path object per file
        inplace.write_over(os.path.join(root, path), body)
