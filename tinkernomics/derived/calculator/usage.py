"""A pilot run's token counts from Tinker's usage export (pipeline step 5, an input).

``tinker billing usage STARTING_ON ENDING_BEFORE`` (the Tinker SDK's CLI,
``tinker/cli/commands/billing.py``, version 0.38.0) exports one row per hour × usage type ×
base model × session × user, in two shapes this module reads:

- JSON (``tinker --format json billing usage ...``): ``{"data": [row, ...], "sessions": ...,
  "cost_data_through": ...}``, each row's quantity nested in ``event_info``
  (``{"type": "training" | "sampling_prefill" | "sampling_sample" | "checkpoint" |
  "storage", "token_count": ..., "cached": ...}``);
- CSV (``... --csv PATH``): the same rows with ``event_info`` flattened into columns
  (``type``, ``token_count``, ``cached``), header from the first row's keys.

``read(path)`` sums the token rows (``training``, ``sampling_prefill``, ``sampling_sample``) by
session and base model; ``lengths`` turns the pilot's totals into the calculator's mean lengths,
so a pilot's real lengths replace guessed ones: the completions are the pilot's steps × prompts
× G (the reader's), the mean completion is the sampled tokens over them, and the prompt is the
trained tokens over K × completions less the completion (training bills each episode's whole
sequence once a pass). Bad input raises ``UsageError`` with one line naming the file and what is
wrong; the command prints it and exits 2.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tinkernomics.derived.calculator import inputs

TOKEN_TYPES = ("training", "sampling_prefill", "sampling_sample")
"""The export's token usage types (checkpoint and storage rows carry no tokens)."""


class UsageError(ValueError):
    """A usage export that cannot be read, or inputs it cannot be used with."""


@dataclass
class Totals:
    """Token counts of one export, summed by usage type, with what they came from."""

    tokens: dict[str, float] = field(default_factory=lambda: dict.fromkeys(TOKEN_TYPES, 0.0))
    models: set[str] = field(default_factory=set)
    sessions: set[str] = field(default_factory=set)


def _rows(path: Path) -> list[Mapping[str, Any]]:
    """The export's rows as flat mappings (JSON's ``event_info`` merged into its row)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read it ({exc.__class__.__name__})") from exc
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}, line {exc.lineno}: not JSON ({exc.msg})") from exc
        rows = data.get("data") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            raise UsageError(f"{path}: no 'data' list; export it with "
                             "'tinker --format json billing usage START END'")
        return [{**{k: v for k, v in r.items() if k != "event_info"}, **r["event_info"]}
                if isinstance(r, dict) and isinstance(r.get("event_info"), dict) else r
                for r in rows]
    reader = csv.DictReader(text.splitlines())
    if not reader.fieldnames or not {"type", "token_count"} <= set(reader.fieldnames):
        raise UsageError(f"{path}: not a usage export (a CSV needs 'type' and 'token_count' "
                         "columns: 'tinker billing usage START END --csv PATH')")
    return list(reader)


def _count(path: Path, index: int, row: Mapping[str, Any]) -> float:
    value = row.get("token_count")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = -1.0
    if not number >= 0 or number == float("inf"):
        raise UsageError(f"{path}, row {index + 1}: token_count {value!r} is not a count")
    return number


def read(path: Path, session: str | None = None) -> Totals:
    """Sum the export's token rows (of one session, if given)."""
    totals = Totals()
    for index, row in enumerate(_rows(path)):
        if not isinstance(row, Mapping):
            raise UsageError(f"{path}, row {index + 1}: not an object")
        kind = row.get("type")
        if kind not in TOKEN_TYPES or (session and row.get("session_id") != session):
            continue
        totals.tokens[str(kind)] += _count(path, index, row)
        totals.models.add(str(row.get("base_model") or "unknown"))
        totals.sessions.add(str(row.get("session_id") or "none"))
    if not totals.tokens["sampling_sample"]:
        where = f" of session {session}" if session else ""
        raise UsageError(f"{path}: no sampled tokens{where}; export the window the pilot ran in")
    if len(totals.models) > 1:
        raise UsageError(f"{path}: usage of {len(totals.models)} base models "
                         f"({', '.join(sorted(totals.models))}); give the pilot's session "
                         "with --usage-session")
    return totals


@dataclass(frozen=True)
class Lengths:
    """A pilot's mean lengths, and the completions they are measured over."""

    completions: float
    completion_tokens: float
    prompt_tokens: float | None


def lengths(totals: Totals, steps: float, prompts: float, group: float, passes: float) -> Lengths:
    """Mean completion and prompt lengths of a pilot of ``steps`` steps of ``prompts`` × G."""
    completions = steps * prompts * group
    if not completions > 0:
        raise UsageError("the pilot's steps × prompts × G must be above 0")
    completion = totals.tokens["sampling_sample"] / completions
    trained = totals.tokens["training"] / (max(passes, 1.0) * completions)
    prompt = trained - completion if trained > completion else None
    return Lengths(completions, completion, prompt)


def query_values(found: Lengths) -> dict[str, str]:
    """The calculator-link values the pilot sets: the mean completion length (``run.out``) and,
    when training was billed, the prompt length (``run.C0``), in whole tokens, under the keys
    ``inputs`` declares."""
    values = {"run.out": max(1, round(found.completion_tokens))}
    if found.prompt_tokens is not None:
        values["run.C0"] = max(0, round(found.prompt_tokens))
    return inputs.query(values)


def describe(found: Lengths, names: Iterable[str]) -> str:
    """One line saying what the export set."""
    prompt = ("" if found.prompt_tokens is None
              else f", prompt {found.prompt_tokens:,.0f} tokens")
    return (f"usage export ({', '.join(sorted(names))}): {found.completions:,.0f} completions, "
            f"mean completion {found.completion_tokens:,.0f} tokens{prompt}")
