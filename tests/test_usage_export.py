"""A pilot's `tinker billing usage` export as the calculator's mean lengths (issue 42, item 3).

The export's two shapes are written here as the Tinker SDK's CLI writes them (tinker 0.38.0,
tinker/cli/commands/billing.py): JSON rows with the quantity nested in `event_info`, CSV rows
with it flattened into columns. Token counts are made up; no catalog figure is asserted.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from helpers_catalog import estimate_reads_the_session_catalog

from tinkernomics.cli import main
from tinkernomics.derived.calculator import usage

ENVELOPE = {"bucket_start": "2026-07-13T00:00:00Z", "bucket_end": "2026-07-13T01:00:00Z",
            "base_model": "Qwen/Qwen3-8B", "user_id": "u", "user_name": "n",
            "session_id": "s1", "project_id": "p", "estimated_cost_usd": None,
            "effective_rate_usd_per_million_tokens": None,
            "effective_rate_usd_per_gigabyte_month": None}
PILOT = [("sampling_sample", 640_000, {}), ("sampling_prefill", 30_000, {"cached": False}),
         ("training", 768_000, {}), ("sampling_sample", 1_000, {"_session": "other"})]
"""10 steps × 8 prompts × G 8 = 640 completions: 1,000 sampled tokens each; trained 1,200 a
completion, so prompts of 200. The last row is another session's."""


def _rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for kind, count, extra in PILOT:
        session = extra.get("_session", "s1")
        info = {"type": kind, **{k: v for k, v in extra.items() if k != "_session"},
                "token_count": count}
        rows.append({**ENVELOPE, "session_id": session, "event_info": info})
    storage = {"type": "storage", "free": False, "gigabyte_hours": 2.0}
    rows.append({**ENVELOPE, "session_id": None, "base_model": None, "event_info": storage})
    return rows


def write_json(path: Path) -> Path:
    path.write_text(json.dumps({"data": _rows(), "sessions": {}, "cost_data_through": None}),
                    encoding="utf-8")
    return path


def write_csv(path: Path) -> Path:
    flat = [{**{k: v for k, v in r.items() if k != "event_info"}, **r["event_info"]}  # type: ignore[dict-item]
            for r in _rows()]
    columns: list[str] = []
    for row in flat:
        columns += [k for k in row if k not in columns]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in flat)
    return path


@pytest.mark.parametrize("writer", [write_json, write_csv])
def test_both_export_shapes_give_the_pilots_lengths(writer: object, tmp_path: Path) -> None:
    path = writer(tmp_path / "usage.out")  # type: ignore[operator]
    totals = usage.read(path, session="s1")
    assert totals.tokens == {"training": 768_000, "sampling_prefill": 30_000,
                             "sampling_sample": 640_000}
    found = usage.lengths(totals, steps=10, prompts=8, group=8, passes=1)
    assert found.completions == 640
    assert found.completion_tokens == pytest.approx(1_000)
    assert found.prompt_tokens == pytest.approx(200)
    assert usage.query_values(found) == {"out": "1000", "in": "200"}


def test_training_tokens_count_every_pass(tmp_path: Path) -> None:
    totals = usage.read(write_json(tmp_path / "u.json"), session="s1")
    found = usage.lengths(totals, steps=10, prompts=8, group=8, passes=2)
    assert found.prompt_tokens is None  # 600 trained a pass is under the 1,000 sampled


def test_without_a_session_every_row_counts(tmp_path: Path) -> None:
    totals = usage.read(write_json(tmp_path / "u.json"))
    assert totals.tokens["sampling_sample"] == 641_000 and totals.sessions == {"s1", "other"}


@pytest.mark.parametrize(("text", "says"), [
    ("not json {", "not a usage export"),
    ('{"rows": []}', "no 'data' list"),
    ('{"data": [', "not JSON"),
    ("type,token_count\nsampling_sample,-3\n", "row 1: token_count '-3' is not a count"),
    ("type,token_count\ntraining,5\n", "no sampled tokens"),
])
def test_a_bad_export_is_one_line_naming_the_file(text: str, says: str,
                                                  tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(usage.UsageError) as info:
        usage.read(path)
    assert str(path) in str(info.value) and says in str(info.value)
    assert "\n" not in str(info.value)


def test_two_base_models_need_a_session(tmp_path: Path) -> None:
    rows = _rows()
    rows[3] = {**rows[3], "base_model": "meta-llama/Llama-3.1-8B"}
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"data": rows}), encoding="utf-8")
    with pytest.raises(usage.UsageError, match="2 base models"):
        usage.read(path)
    assert usage.read(path, session="s1").models == {"Qwen/Qwen3-8B"}


# the command (on the repository's catalog, as tests/test_estimate_inputs.py; no figure of it
# is asserted): the pilot's lengths reach the estimate, and bad input is one line, exit 2
def test_the_command_prices_the_pilots_lengths(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = write_json(tmp_path / "u.json")
    args = ["estimate", "--json", "--prompts", "8", "--G", "8", "--gpus", "2",
            "--usage", str(path), "--usage-steps", "10", "--usage-session", "s1"]
    assert main(args) == 0
    out = capsys.readouterr()
    assert "mean completion 1,000 tokens, prompt 200 tokens" in out.err
    assert "the calculator link takes the same as out=1000 in=200" in out.err
    piloted = json.loads(out.out)["quantities"]
    assert main(["estimate", "--json", "--prompts", "8", "--G", "8", "--gpus", "2",
                 "--completion-tokens", "1000", "--prompt-tokens", "200"]) == 0
    typed = json.loads(capsys.readouterr().out)["quantities"]
    assert piloted["self.gpu_hours"] == typed["self.gpu_hours"]
    assert piloted["tinker.total"] == typed["tinker.total"]


@pytest.mark.parametrize(("extra", "says"), [
    (["--usage-steps", "10"], "--usage-steps and --usage-session need --usage"),
    (["--usage", "{json}"], "--usage needs --usage-steps"),
    (["--usage", "{json}", "--usage-steps", "10", "--completion-tokens", "9"], "not both"),
    (["--usage", "{json}", "--usage-steps", "0"], "--usage-steps 0: the pilot ran"),
    (["--usage", "{missing}", "--usage-steps", "10"], "cannot read it"),
    (["--usage", "{json}", "--usage-steps", "10", "--usage-session", "s1",
      "--max-completion-tokens", "500"], "below the pilot's mean completion length (1000"),
])
def test_bad_usage_input_is_one_line_and_exit_2(extra: list[str], says: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch,
                                                catalog: Any) -> None:
    estimate_reads_the_session_catalog(monkeypatch, catalog)  # the command above loads it
    path = write_json(tmp_path / "u.json")
    names = {"{json}": str(path), "{missing}": str(tmp_path / "none.json")}
    args = ["estimate", "--prompts", "8", "--G", "8", *[names.get(a, a) for a in extra]]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err
