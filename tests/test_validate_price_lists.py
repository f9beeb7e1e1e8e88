"""Price-list pull requests: the mistakes that used to pass `validate` and `make build`.

Each is refused at its file:line:col with a hint, on the fixture catalog (never today's prices).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

from tinkernomics.catalog import dates
from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.pricelists import PRICE_ROW_NEED

OLD = "tinker/prices/2026-07-17.yaml"


def _new_list(root: Path, day: str, *, sample: str = "0.66", extra: str = "",
              file_day: str | None = None, model: str = "qwen3-8b") -> str:
    text = (root / OLD).read_text(encoding="utf-8")
    text = text.replace("id: 2026-07-17", f'id: "{file_day or day}"').replace(
        "effective: 2026-07-17", f"effective: {day}").replace(
        "sample: 0.60", f"sample: {sample}").replace("model: qwen3-8b", f"model: {model}")
    rel = f"tinker/prices/{file_day or day}.yaml"
    write_file(root, rel, text + extra)
    return rel


def _problems(tmp_path: Path) -> list:
    return run_validate(tmp_path, "catalog").problems


def test_a_correct_new_list_passes(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    _new_list(root, "2026-11-20")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 0, run.out


def test_future_effective_date_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(dates, "today", lambda: dt.date(2026, 11, 1))
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-12-24")
    [problem] = [p for p in _problems(tmp_path) if rel in p.where]
    assert problem.where.endswith(": effective") and "in the future" in problem.message
    assert problem.hint and "the day its prices apply" in problem.hint


def test_effective_must_equal_the_id(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-11-21", file_day="2026-11-20")
    [problem] = [p for p in _problems(tmp_path) if rel in p.where]
    assert "differs from the list's id" in problem.message
    assert problem.where == f"catalog/{rel}:2:12: effective"


def test_two_lists_with_one_date_are_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    _new_list(root, "2026-07-17", file_day="2026-07-18")
    found = [p for p in _problems(tmp_path) if "has the same date" in p.message]
    assert len(found) == 1 and found[0].hint and "merge" in found[0].hint


@pytest.mark.parametrize("price", ["0.066", "6.6"])
def test_a_tenfold_typo_is_refused_unless_explained(tmp_path: Path, price: str) -> None:
    root = copy_valid(tmp_path)
    rel = _new_list(root, "2026-11-20", sample=price)
    [problem] = [p for p in _problems(tmp_path) if rel in p.where]
    assert problem.where.endswith(": rows[0].sample") and "5x" in problem.message
    assert problem.hint and "change_note" in problem.hint
    replace_in(root, rel, f"sample: {price}",
               f"sample: {price}\n    change_note: ten-fold change announced by the provider")
    assert run_validate(tmp_path, "catalog").code == 0


def test_values_out_of_the_documented_order_are_refused(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/grpo.yaml", "values: [8, 16, 64]", "values: [16, 8, 64]")
    [problem] = [p for p in _problems(tmp_path) if "smallest first" in p.message]
    assert problem.where.startswith("catalog/algorithms/grpo.yaml:") and \
        problem.where.endswith("typical_g.values")
    assert problem.hint and "[8, 16, 64]" in problem.hint


def test_the_newest_list_must_price_the_models_the_site_names(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "models/other.yaml", (root / "models/qwen3-8b.yaml").read_text(
        encoding="utf-8").replace("id: qwen3-8b", "id: other").replace("name: Qwen3-8B",
                                                                       "name: Other"))
    rel = _new_list(root, "2026-11-20", model="other")
    needs = [(PRICE_ROW_NEED, "qwen3-8b", "the calculator's default run"),
             (PRICE_ROW_NEED, "qwen3-8b@2026-07-17", "a preset pinned to the older list")]
    _, problems = load_catalog(root, needs=needs)
    found = [p for p in problems if "no row for" in p.message]
    assert len(found) == 1, problems
    assert found[0].path.endswith(rel) and "default run" in found[0].message
    assert found[0].hint and "copy its row" in found[0].hint
