"""The probe's catalog side (``probe_hostile.py``): payloads planted in a project copy's catalog,
``tinkernomics validate`` on it, and the site built from it with the markup verdict switched off.

Planting is general: every string field of every catalog file whose value holds a space (prose:
names, titles, notes, locators, settings...) is a target, up to ``PER_FIELD`` entries for each
field of each kind, and every ``latex`` field; the payloads of ``probe_payloads`` go round them.
A value is replaced in the file's text by a double-quoted scalar, so the rest of the file keeps
its layout and validate's file:line points at the planted value.

The build then runs with ``tinkernomics.markup.prose``'s verdicts empty (a ``sitecustomize``),
as an independent probe would: the sanitiser and the policy are on their own. A value refused by
another rule (a length, a pattern) stops the build; such values are put back and the build runs
again, and they count as rejected by validate.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from probe_payloads import FIRST_ID, LATEX, PROSE, fill

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PER_FIELD = 2
"""Entries planted for each field of each kind (``algorithms: notes``): every field gets several
payloads, and the catalog stays small enough to build in seconds."""
SKIP_KEYS = frozenset({"url", "urls", "doi", "id", "source", "sources", "schema"})
LATEX_KEYS = frozenset({"latex"})
KEPT_ALGORITHMS = ("grpo", "cispo")
SITE_URL = "https://site.example/tn/"
SITECUSTOMIZE = """\
# Probe only: the sanitiser's verdict is empty, so validation lets every markup payload through.
import tinkernomics.markup.prose as _prose
_prose.problems = lambda *a, **k: []
_prose.latex_problems = lambda *a, **k: []
"""
LOCATED = re.compile(r"^(catalog/\S+?):(\d+):\d+: ", re.M)
FIELD = re.compile(r"^catalog/(\S+?):\d+:\d+: (\S+?): ", re.M)


@dataclass(frozen=True)
class Leaf:
    """A string value in a catalog file: where it is and what it holds."""

    file: str
    path: tuple[str | int, ...]
    kind: str  # "prose" or "latex"
    start: int
    end: int


@dataclass
class Planted:
    pid: int
    leaf: Leaf
    payload: str
    value: str
    line: int = 0


@dataclass
class CatalogRun:
    planted: dict[int, Planted] = field(default_factory=dict)
    rejected: dict[int, str] = field(default_factory=dict)  # pid -> file:line (validate)
    refused_by_build: dict[int, str] = field(default_factory=dict)  # other rules
    site: Path | None = None
    build_log: str = ""


def _walk(node: yaml.Node, path: tuple[str | int, ...]):
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                yield from _walk(value, (*path, key.value))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _walk(item, (*path, i))
    elif isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
        yield path, node


def leaves(catalog: Path) -> list[Leaf]:
    """The planting targets: ``PER_FIELD`` entries per (kind folder, field path)."""
    found: list[Leaf] = []
    count: dict[tuple[str, ...], int] = {}
    for path in sorted(catalog.rglob("*.yaml")):
        rel = path.relative_to(catalog).as_posix()
        if rel.startswith("schema/"):
            continue
        root = yaml.compose(path.read_text(encoding="utf-8"))
        for keys, node in _walk(root, ()) if root is not None else ():
            last = next((k for k in reversed(keys) if isinstance(k, str)), "")
            kind = "latex" if last in LATEX_KEYS else "prose" if " " in node.value else ""
            pattern = (rel.split("/")[0], *(k if isinstance(k, str) else "[]" for k in keys))
            if not kind or last in SKIP_KEYS or count.get(pattern, 0) >= PER_FIELD:
                continue
            count[pattern] = count.get(pattern, 0) + 1
            found.append(Leaf(rel, keys, kind, node.start_mark.index, node.end_mark.index))
    return found


def _replace(text: str, leaf: Leaf, value: str) -> str:
    span = text[leaf.start:leaf.end]
    tail = span[len(span.rstrip("\n")):]
    return text[:leaf.start] + json.dumps(value) + tail + text[leaf.end:]


def _lines(catalog: Path, planted: list[Planted]) -> None:
    """Each planted value's line in its file, as written."""
    by_file: dict[str, list[Planted]] = {}
    for p in planted:
        by_file.setdefault(p.leaf.file, []).append(p)
    for rel, items in by_file.items():
        nodes = dict(_walk(yaml.compose((catalog / rel).read_text(encoding="utf-8")), ()))
        for p in items:
            p.line = nodes[p.leaf.path].start_mark.line + 1


def assign(targets: list[Leaf]) -> dict[int, Planted]:
    """One payload for each target, the payloads of its kind in turn."""
    planted: dict[int, Planted] = {}
    turn = {"prose": 0, "latex": 0}
    for i, leaf in enumerate(targets):
        table = PROSE if leaf.kind == "prose" else LATEX
        name = sorted(table)[turn[leaf.kind] % len(table)]
        turn[leaf.kind] += 1
        planted[FIRST_ID + i] = Planted(FIRST_ID + i, leaf, name, fill(table[name], FIRST_ID + i))
    return planted


def write(base: Path, project: Path, planted: list[Planted]) -> None:
    """Write ``planted`` into ``project``'s catalog (its files copied from ``base``'s)."""
    for rel in sorted({p.leaf.file for p in planted}):
        text = (base / "catalog" / rel).read_text(encoding="utf-8")
        for p in sorted((p for p in planted if p.leaf.file == rel), key=lambda p: -p.leaf.start):
            text = _replace(text, p.leaf, p.value)
        (project / "catalog" / rel).write_text(text, encoding="utf-8")
    _lines(project / "catalog", planted)


def located(output: str) -> set[tuple[str, int]]:
    """The (catalog-relative file, line) pairs a validate or build output names."""
    return {(m.group(1).removeprefix("catalog/"), int(m.group(2)))
            for m in LOCATED.finditer(output)}


def _dotted(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def figures_refused(output: str) -> set[tuple[str, str]]:
    """(file, figure) for each problem of an output: the field's parent, so a figure's value
    refused for what its planted locator says (the quote or its working) counts for it."""
    return {(m.group(1), m.group(2).rsplit(".", 1)[0]) for m in FIELD.finditer(output)}


def refused(planted: Planted, output: str) -> bool:
    """The output refuses this planted value: at its line, or at another field of its figure."""
    leaf = planted.leaf
    figure = _dotted(leaf.path[:-1])
    return ((leaf.file, planted.line) in located(output)
            or (bool(figure) and (leaf.file, figure) in figures_refused(output)))


def run(cmd: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None,
        ) -> tuple[int | None, str, float]:
    """Exit code (None: over the time or memory budget), output, seconds."""
    import time

    start = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                              check=False, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired as err:
        raw = bytes(err.stdout or b"") + bytes(err.stderr or b"")
        return None, raw.decode("utf-8", "replace"), time.monotonic() - start
    out = (done.stdout + done.stderr).decode("utf-8", "replace")
    code = None if done.returncode < 0 else done.returncode
    return code, out, time.monotonic() - start


MEMORY_BUDGET = 3 << 30
"""Address space a validate or build may take (a YAML bomb hits it instead of the machine)."""


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BUDGET, MEMORY_BUDGET))


def _env(custom: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TINKERNOMICS_CATALOG"}
    env.update({"NO_MKDOCS_2_WARNING": "1", "SITE_URL": SITE_URL})
    if custom is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(custom), env.get("PYTHONPATH")]))
    return env


def validate(project: Path, custom: Path | None = None,
             timeout: float = 60) -> tuple[int | None, str, float]:
    """``tinkernomics validate`` on the project's catalog (markup verdicts off with ``custom``)."""
    return run([str(BIN / "tinkernomics"), "validate", "catalog"], project, timeout,
               _env(custom))


def build(project: Path, site: Path, custom: Path) -> tuple[int | None, str, float]:
    return run([str(BIN / "mkdocs"), "build", "--site-dir", str(site)], project, 600,
               _env(custom))


def fresh_copy(base: Path, dest: Path) -> Path:
    """``dest`` as a copy of the base project (emptied first)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(base, dest)
    return dest


def catalog_stage(base: Path, work: Path) -> CatalogRun:
    """Plant, validate (verdicts on), build (markup verdicts off, other refusals put back)."""
    result = CatalogRun(planted=assign(leaves(base / "catalog")))
    project = fresh_copy(base, work / "project")
    write(base, project, list(result.planted.values()))
    _, out, _ = validate(project)
    for pid, p in result.planted.items():
        if refused(p, out):
            result.rejected[pid] = f"catalog/{p.leaf.file}:{p.line}"
    custom = work / "custom"
    custom.mkdir(exist_ok=True)
    (custom / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    for _ in range(5):  # values other rules refuse go back; a refusal may hide the next one
        code, out, _ = validate(project, custom)
        put_back = {pid: f"catalog/{p.leaf.file}:{p.line}" for pid, p in result.planted.items()
                    if refused(p, out) and pid not in result.refused_by_build}
        if code == 0 or not put_back:
            break
        result.refused_by_build.update(put_back)
        project = fresh_copy(base, work / "project")
        write(base, project, [p for pid, p in result.planted.items()
                              if pid not in result.refused_by_build])
    code, result.build_log, _ = build(project, work / "site", custom)
    result.site = work / "site" if code == 0 else None
    return result
