"""The probe's verdicts and table (``probe_hostile.py``): one row per case, counted by column.

The catalog payloads are judged from everything the hostile build wrote: the browser's findings
(``probe_browser.Findings``) and a scan of the output files for what a browser does not show
(an evaluated template, a live spreadsheet formula, a bidi control, the payload at all).
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probe_payloads import CSV_PREFIXES, evaluated

COLUMNS = ("rejected", "neutralised", "policy", "executed", "accepted", "other")
HEADERS = ("tried", "rejected", "neutralised", "policy only", "executed", "accepted", "other")
TEXT_FILES = (".html", ".json", ".csv", ".xml", ".txt", ".svg", ".js")
BIDI = re.compile(r"\u202e|&#x0*202e;|&#0*8238;", re.I)


@dataclass
class Row:
    group: str
    case: str
    outcome: str
    where: str = ""
    without_validate: str = ""

    @property
    def column(self) -> str:
        word = self.outcome.split(" ")[0]
        return {"policy": "policy"}.get(word, word if word in COLUMNS else "other")


def _outputs(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(site.rglob("*")) if p.suffix in TEXT_FILES and p.is_file()}


def _bidi_near(text: str, mark: re.Pattern[str]) -> bool:
    """A bidi control right before the ID or in the 200 characters after it (its payload's)."""
    return any(BIDI.search(text, max(0, m.start() - 12), m.end() + 200)
               for m in mark.finditer(text))


def _csv_cells(files: dict[str, str]) -> list[tuple[str, str]]:
    cells = []
    for rel, text in files.items():
        if rel.endswith(".csv"):
            cells += [(rel, cell) for row in csv.reader(io.StringIO(text)) for cell in row]
    return cells


def _off(pid: int, payload: str, files: dict[str, str], cells: list[tuple[str, str]],
         found: Any) -> tuple[str, str]:
    """A planted payload's outcome with validate switched off, and where."""
    mark = re.compile(rf"(?<!\d){pid}(?!\d)")
    shown = [rel for rel, text in files.items() if mark.search(text)]
    if found is not None and pid in found.ran:
        return "executed", f"ran on {found.ran[pid]}"
    if found is not None and pid in found.left:
        return "executed", f"redirected or loaded off-site from {found.left[pid]}"
    ran_as_template = [rel for rel, text in files.items() if evaluated(pid) in text]
    if ran_as_template:
        return "executed", f"template evaluated in {ran_as_template[0]}"
    live = [rel for rel, cell in cells if mark.search(cell) and cell.startswith(CSV_PREFIXES)]
    if live:
        return "executed", f"live formula cell in {live[0]}"
    bidi = [rel for rel in shown if rel.endswith(".html") and _bidi_near(files[rel], mark)]
    if "bidi" in payload and bidi:
        return "executed", f"bidi override on {bidi[0]}"
    wide = [rel for rel in shown if found is not None and rel in found.wide]
    if "wide" in payload and wide:
        return "executed", f"page {wide[0]} blown wide"
    if found is not None and pid in found.live:
        return "policy", f"live but blocked on {found.live[pid]}"
    return ("neutralised", f"as text in {shown[0]}") if shown else ("other", "not in the output")


def catalog_outcomes(run: Any, found: Any) -> list[Row]:
    """One row per planted payload (see the module docstring)."""
    files = _outputs(run.site) if run.site is not None else {}
    cells = _csv_cells(files)
    rows = []
    for pid, p in run.planted.items():
        group = f"catalog: {p.leaf.kind} fields"
        case = f"{p.payload} in {p.leaf.file}:{'.'.join(map(str, p.leaf.path))}"
        if pid in run.refused_by_build:
            rows.append(Row(group, case, "rejected", run.refused_by_build[pid], "rejected"))
            continue
        if run.site is None:
            rows.append(Row(group, case, "other", "the hostile build failed", "other"))
            continue
        off, where = _off(pid, p.payload, files, cells, found)
        if pid in run.rejected:
            rows.append(Row(group, case, "rejected", run.rejected[pid], off))
        else:
            rows.append(Row(group, case, off, where, off))
    return rows


def _line(label: str, counts: Counter[str], tried: int) -> str:
    return f"{label:<34}{tried:>6}" + "".join(f"{counts.get(c, 0):>12}" for c in COLUMNS)


def print_report(rows: list[Row], seconds: float, notes: list[str]) -> None:
    groups = list(dict.fromkeys(r.group for r in rows))
    print(f"{'':<34}{HEADERS[0]:>6}" + "".join(f"{h:>12}" for h in HEADERS[1:]))
    for group in groups:
        mine = [r for r in rows if r.group == group]
        print(_line(group, Counter(r.column for r in mine), len(mine)))
    print(_line("total", Counter(r.column for r in rows), len(rows)))
    catalog = [r for r in rows if r.without_validate]
    if catalog:
        off = Counter(Row("", "", r.without_validate).column for r in catalog)
        print(_line("catalog fields, validate off", off, len(catalog)))
    print(f"\n{seconds:.0f} s. Cases not rejected or neutralised, and where validate rejected:")
    for r in rows:
        if r.column not in ("neutralised", "rejected"):
            print(f"  [{r.outcome}] {r.group}: {r.case}: {r.where}")
    rejected = [r for r in rows if r.column == "rejected"]
    for r in rejected if len(rejected) <= 40 else rejected[:40]:
        print(f"  [rejected] {r.case}: {r.where}")
    if len(rejected) > 40:
        print(f"  ... and {len(rejected) - 40} more rejected (--json lists every case)")
    for note in notes:
        print(f"  [note] {note}")
