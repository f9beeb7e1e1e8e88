"""GPU specs checked against their generation's datasheet ranges (issue 45), on the fixture
catalog: memory typed ten times too large, bandwidth or TFLOP/s off by a digit, a sparse figure
that is not twice the dense one. Each is one edit of a passing fixture entry."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

from tinkernomics.catalog.physics_hardware import ANY_GPU, generation_of

H100 = "hardware/h100.yaml"


def _problems(tmp_path: Path, root: Path, rel: str) -> list:
    return [p for p in run_validate(tmp_path, "catalog").problems if rel in p.where]


def _line(root: Path, rel: str, text: str) -> int:
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line == text)


def test_the_fixture_gpus_pass(tmp_path: Path) -> None:
    copy_valid(tmp_path)
    assert not [p for p in run_validate(tmp_path, "catalog").problems if "hardware/" in p.where]


@pytest.mark.parametrize(("field", "old", "new"), [
    ("memory_gb", "  value: 80\n", "  value: 800\n"),
    ("bf16_dense_tflops", "  value: 989.4\n", "  value: 9894\n"),
])
def test_a_spec_outside_its_generation_is_refused(tmp_path: Path, field: str, old: str,
                                                  new: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, H100, old, new)
    [problem] = _problems(tmp_path, root, H100)
    line = _line(root, H100, new.rstrip("\n"))
    assert problem.where == f"catalog/{H100}:{line}:10: {field}.value"
    assert "NVIDIA Hopper" in problem.message and "typo" in (problem.hint or "")


def test_memory_typed_1410_instead_of_141_is_caught(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    text = (root / H100).read_text(encoding="utf-8")
    write_file(root, "hardware/h200.yaml", text.replace("id: h100", "id: h200").replace(
        "NVIDIA H100 SXM", "NVIDIA H200 SXM").replace("  value: 80\n", "  value: 1410\n"))
    [problem] = _problems(tmp_path, root, "hardware/h200.yaml")
    assert problem.where.endswith(": memory_gb.value") and "1410 GB is outside 80–144" in \
        problem.message


def test_an_unknown_gpu_is_held_to_the_union_of_generations(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    text = (root / H100).read_text(encoding="utf-8")
    odd = text.replace("id: h100", "id: zz9").replace("NVIDIA H100 SXM", "Made-up ZZ9")
    write_file(root, "hardware/zz9.yaml", odd)
    assert _problems(tmp_path, root, "hardware/zz9.yaml") == []
    write_file(root, "hardware/zz9.yaml", odd.replace("  value: 80\n", "  value: 8000\n"))
    [problem] = _problems(tmp_path, root, "hardware/zz9.yaml")
    assert "any GPU" in problem.message
    assert generation_of(type("H", (), {"id": "zz9", "name": "ZZ9"})()) is ANY_GPU


@pytest.mark.parametrize(("sparse", "ok"), [
    ("1978.8", True),
    ("2002.5", True),  # 1.2% above twice, as NVIDIA's L40S datasheet prints (362.05 | 733)
    ("2100", False),
    ("989.4", False),  # the dense figure again
])
def test_sparse_is_twice_dense(tmp_path: Path, sparse: str, ok: bool) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, H100, "memory_gb:\n", (
        f"bf16_sparse_tflops:\n  value: {sparse}\n  unit: tflops\n  status: reported\n"
        "  source: glennklockwood_h100\n  locator: 'Fixture: Performance table, \"row BF16\"'\n"
        "memory_gb:\n"))
    found = _problems(tmp_path, root, H100)
    if ok:
        assert found == []
    else:
        [problem] = found
        assert problem.where.endswith(": bf16_sparse_tflops.value")
        assert "not twice" in problem.message and "1978.8" in problem.message
