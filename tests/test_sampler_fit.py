"""A sampler engine keeps the whole policy in the memory of the GPUs it spans
(``derived/calculator/sampler_fit.py``): it never spans more GPUs than sample, an online run
whose engine has no room left after the weights is not priced (its time and GPU-hours are
missing, the page says why) and ``tinkernomics estimate`` refuses it naming the option and the
fewest GPUs an engine needs. Without a GPU count the run gets at least those. Arithmetic on the
fixture Toy-8B (16 GB of bf16 weights) on the 80 GB toy GPU (helpers_runs); the command-line
cases read the GPU's memory from the catalog they run on."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from helpers_catalog import estimate_reads_the_session_catalog
from helpers_contrib import run_cli_in_process
from helpers_runs import TOY_BIG, TOY_RUN, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import inputs, tree
from tinkernomics.derived.calculator.estimate import graph_for
from tinkernomics.derived.calculator.time_constants import CONSTANTS
from tinkernomics.site.calculator import layout

WEIGHTS = 2 * 8e9
GPU = 80e9
CATALOG = str(Path(__file__).resolve().parent.parent / "catalog")


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def _fewest(share: float) -> int:
    return math.ceil((WEIGHTS + 1) / (share * GPU))


@pytest.mark.parametrize("gpus", ["1", "2", "3", "8"])
@pytest.mark.parametrize("share", ["0.1", "0.3", "0.9"])
def test_an_engine_spans_at_most_the_gpus_that_sample(toy: Catalog, gpus: str,
                                                      share: str) -> None:
    e = toy_estimate(toy, gpus=gpus, mu=share)
    assert 1 <= e["time.tp"] <= e["time.rollout_gpus"]


def test_an_engine_without_room_is_not_priced(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="1", mu="0.1")  # 8 GB of share for 16 GB of weights
    assert e["time.short"] == 1 and e["time.kv_room"] == 0
    for key in ("time.step_s", "time.gpu_hours", "self.gpu_hours", "self.total"):
        assert e[key] is None, key
    assert e["time.min_engine_gpus"] == _fewest(0.1) == 3


def test_the_fewest_gpus_it_names_are_enough(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus=str(_fewest(0.1)), mu="0.1")
    assert e["time.short"] == 0 and e["time.kv_room"] > 0 and e["time.gpu_hours"] > 0


def test_a_small_share_is_sized_with_room(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="8", mu="0.1")  # no engine size given: it is chosen with room
    assert e["time.short"] == 0 and e["time.kv_room"] > 0


def test_an_engine_too_small_by_the_readers_tp_is_not_priced(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="8", mu="0.1", rtp="1")
    assert e["time.short"] == 1 and e["time.gpu_hours"] is None


def test_without_a_gpu_count_the_engine_fits(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="", mu="0.1")
    assert e["time.gpus"] >= _fewest(0.1) and e["time.short"] == 0


def test_a_roomy_engine_is_unchanged(toy: Catalog) -> None:
    e = toy_estimate(toy, gpus="1")
    assert e["time.short"] == 0 and e["time.tp"] == 1 and e["time.gpu_hours"] > 0


def _estimate(*args: str) -> tuple[int, str]:
    done = run_cli_in_process("estimate", *args, cwd=Path(CATALOG).parent)
    return done.returncode, done.stderr


ARCH = ["--arch", "params_b=70", "--arch", "layers=80", "--arch", "heads=64", "--arch",
        "kv_heads=8", "--arch", "head_dim=128", "--arch", "d_model=8192", "--arch",
        "vocab=128256", "--arch", "mlp=28672"]
"""A 70B dense model by its figures (140 GB of bf16 weights), not a catalog entry."""


@pytest.mark.parametrize(("options", "named"), [
    (["--gpus", "1"], "--gpus 1"),
    (["--gpus", "8", "--rollout-tp", "1"], "--rollout-tp 1"),
    (["--gpus", "8", "--rollout-gpus", "1"], "--rollout-gpus 1"),
])
def test_the_command_line_refuses_an_engine_that_cannot_hold_the_weights(
        catalog: Catalog, options: list[str], named: str, monkeypatch: pytest.MonkeyPatch) -> None:
    estimate_reads_the_session_catalog(monkeypatch, catalog)  # the test below loads it
    status, err = _estimate(CATALOG, *ARCH, "--gpu", inputs.DEFAULT_HARDWARE, *options)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(f"tinkernomics estimate: {named}: a sampler engine of 1 ×")
    memory = catalog.hardware[inputs.DEFAULT_HARDWARE].memory_gb.value * 1e9
    share = next(c.value for c in CONSTANTS if c.key == "memory_utilisation")
    fewest = math.ceil((140e9 + 1) / (share * memory))
    assert re.search(rf"needs at least {fewest} GPUs$", err.strip()), err


def test_the_command_line_prices_an_engine_that_fits() -> None:
    status, err = _estimate(CATALOG, *ARCH, "--gpus", "8")
    assert status == 0, err


def test_a_catalog_without_the_models_formulas_is_refused(catalog_copy: Path) -> None:
    status, err = _estimate(str(catalog_copy), "--gpus", "1")
    assert status == 1 and "Traceback" not in err
    assert re.search(r"formulas/\w+\.yaml:1:1: \(file\): missing formula", err), err


def test_the_ways_to_run_say_why_a_gpu_has_no_hours(toy: Catalog) -> None:
    run = ways.run_totals(toy, {**TOY_RUN, "gpus": "1", "mu": "0.1"})
    assert run.gpu_hours[TOY_BIG] is None
    assert run.short[TOY_BIG].startswith(f"the sampler does not fit: the weights need "
                                         f"{_fewest(0.1)} × ")
    roomy = ways.run_totals(toy, {**TOY_RUN, "gpus": "1"})
    assert TOY_BIG not in roomy.short and roomy.gpu_hours[TOY_BIG] is not None


def _shown(toy: Catalog, words: str, **query: str) -> bool:
    """Whether the calculator's message starting ``words`` shows for the toy run + ``query``
    (its block's condition, evaluated as the page evaluates it)."""
    e = toy_estimate(toy, **query)
    found = [b for b in layout.blocks(toy, graph_for(toy))
             if any(words in template for _, template in b.get("cases", []))]
    assert len(found) == 1, words
    test = tree.evaluate(found[0]["when"], {**e.env, **e.values})
    return bool(test)


def test_the_page_says_the_sampler_does_not_fit(toy: Catalog) -> None:
    words = "The sampler does not fit."
    assert _shown(toy, words, gpus="1", mu="0.1")
    assert not _shown(toy, words, gpus=str(_fewest(0.1)), mu="0.1")


def test_the_page_notes_fewer_gpus_than_the_memory_model(toy: Catalog) -> None:
    words = "Fewer GPUs than the memory model needs."
    e = toy_estimate(toy, gpus="1", n="4096", G="16")  # a big KV pool: the peak outgrows a GPU
    assert e["mem.min_gpus"] > 1 and e["time.short"] == 0
    assert _shown(toy, words, gpus="1", n="4096", G="16")
    assert not _shown(toy, words, gpus=str(int(e["mem.min_gpus"])), n="4096", G="16")
    assert not _shown(toy, words, gpus="1", mu="0.1")  # the sampler message says it instead
