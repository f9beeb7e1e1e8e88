"""A model the catalog gives by its size alone (issue 42: "a run that needs an input it lacks
... says which, never a silent blank"): its KV cache, attention and memory are unknown, so the
self-hosted time is missing and says why, where it was once timed at a guessed decode batch of
32 and no attention. On the toy catalog (helpers_calc: Toy-4B has no architecture figures) and
on a model given by ``--arch`` alone (never today's catalog models)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_calc import TOY_GPU, TOY_MODEL, TOY_MOE, TOY_PRICES, TOY_TEACHER, with_toys
from helpers_catalog import estimate_reads_the_session_catalog
from helpers_contrib import run_cli_in_process

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site.calculator import estimate_cli, layout

CATALOG = Path(__file__).resolve().parent.parent / "catalog"
QUERY = {"p": TOY_PRICES, "hw": TOY_GPU, "a": "grpo", "steps": "10", "n": "8", "G": "4",
         "in": "500", "out": "1000", "gpus": "4"}


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_toys(catalog)


def test_a_model_without_figures_has_no_self_hosted_time(toy: Catalog) -> None:
    bare = estimate(toy, {**QUERY, "m": TOY_TEACHER})
    assert bare["mem.kv_per_token"] is None
    # no decode batch guessed, no training without attention: the time is missing
    assert bare["time.batch"] is None and bare["time.train_s"] is None
    assert bare["self.gpu_hours"] is None and bare["self.total"] is None
    # what needs no shape is still priced: the Tinker bill and the prefill's FLOPs
    assert bare["tinker.total"] is not None and bare["time.prefill_s"] is not None
    # the same run on a model that gives its shape is timed
    shaped = estimate(toy, {**QUERY, "m": TOY_MODEL})
    assert shaped["time.batch"] is not None and shaped["self.gpu_hours"] is not None


def test_its_figures_given_by_the_reader_time_it(toy: Catalog) -> None:
    figures = {"x_layers": "10", "x_heads": "10", "x_kv_heads": "10", "x_head_dim": "100"}
    given = estimate(toy, {**QUERY, "m": TOY_TEACHER, **figures})
    assert given["mem.kv_per_token"] == pytest.approx(2 * 10 * 100 * 2 * 10)  # K and V, bf16
    assert given["self.gpu_hours"] is not None and given["time.batch"] >= 1


def test_a_kv_cache_without_an_attention_width_is_not_timed_either(toy: Catalog) -> None:
    # Toy-MoE gives neither heads nor a hidden size: its KV cache is known from the figures
    # given, its attention width is not, and the page and the CLI both say so
    kv_only = {"x_layers": "10", "x_kv_heads": "10", "x_head_dim": "100"}
    e = estimate(toy, {**QUERY, "m": TOY_MOE, **kv_only})
    assert e["mem.kv_per_token"] is not None and e["time.train_s"] is None
    assert e["mem.shape_known"] is None and e["self.gpu_hours"] is None
    assert "--arch heads" in estimate_cli.shape_lacks(e)


def test_the_cli_says_what_it_lacks(toy: Catalog) -> None:
    bare = estimate(toy, {**QUERY, "m": TOY_TEACHER})
    text = estimate_cli.shape_lacks(bare)
    assert "--arch layers" in text and "--arch head_dim" in text and "Toy-4B" in text
    assert "self-hosted time" in text
    assert estimate_cli.shape_lacks(estimate(toy, {**QUERY, "m": TOY_MODEL})) == ""


def test_the_command_line_names_the_figures_it_lacks(
        toy: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    estimate_reads_the_session_catalog(monkeypatch, toy)  # the toy catalog, in process
    args = ("estimate", "--model", TOY_TEACHER, "--price-list", TOY_PRICES, "--gpu", TOY_GPU,
            "--gpus", "2")
    done = run_cli_in_process(*args, "--json", cwd=CATALOG.parent)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["quantities"]["self.gpu_hours"]["value"] is None
    lacks = [line for line in found["lacks"] if "architecture" in line]
    assert len(lacks) == 1 and "--arch layers" in lacks[0] and "--arch params_b" not in lacks[0]
    plain = run_cli_in_process(*args, cwd=CATALOG.parent)
    assert plain.stdout.splitlines()[0].startswith("lacks the model's architecture (--arch")
    assert "self.gpu_hours" not in plain.stdout  # a missing figure is not printed as a number


def test_the_page_says_why_the_self_hosted_bill_is_unknown() -> None:
    first_when, first_text = layout.self_hosted_card()["cases"][0]
    assert "shape_known" in json.dumps(first_when) and "gpu_hours" in json.dumps(first_when)
    assert "unknown" in first_text and "A model the catalog lacks" in first_text


SIZED_ONLY = """id: fx-sized
name: Fixture sized
family: Fixture
architecture: dense
total_params:
  {value: 3, unit: billion_parameters, status: reported, source: tinker_pricing_2026_07,
   locator: 'Fixture: "3B"'}
"""
"""A model the fixture catalog gives by its size alone."""


def test_validate_refuses_a_published_run_whose_model_cannot_be_timed(tmp_path: Path) -> None:
    from helpers_catalog import copy_valid
    from helpers_runs import RUN_YAML, SRC

    from tinkernomics.catalog.loader import load_catalog

    root = copy_valid(tmp_path)
    (root / "models" / "fx-sized.yaml").write_text(SIZED_ONLY, encoding="utf-8")
    (root / "runs").mkdir(exist_ok=True)
    (root / "runs" / "fx-run.yaml").write_text(
        RUN_YAML.format(model="fx-sized", cap=1000, src=SRC, extra=""), encoding="utf-8")
    _, problems = load_catalog(root)
    found = [p.format() for p in problems]
    assert len(found) == 1, found
    assert "runs/fx-run.yaml:3:" in found[0] and "model: the model 'fx-sized' lacks" in found[0]
    assert "shape.layers" in found[0] and "catalog/models/fx-sized.yaml" in found[0]
    # the model alone is valid: only a run the back-test must time needs its shape
    (root / "runs" / "fx-run.yaml").unlink()
    assert load_catalog(root)[1] == []
