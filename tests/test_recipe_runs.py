"""Every exported recipe runs (issue 43): each algorithm's recipe and each calculator preset's,
as the command line and as the Python form, goes through the real tinker-cookbook (installed at
the version of the pinned commit by ``make setup``) up to its training loop, offline: the
recipe's ``chz`` CLI config, the training ``Config`` its ``cli_main`` builds, and the trainer's
checks before its first step (``tests/cookbook_probe.py`` says what is stubbed). A refused
argument, value or configuration fails here with the cookbook's own message.

The recipes are the real catalog's pin (as ``test_recipe_export.py``); no figure is asserted,
only that the cookbook accepts what the export writes and keeps the values it was given.
"""

from __future__ import annotations

import filecmp
import json
import shlex
import subprocess
import sys
from importlib import metadata, util
from pathlib import Path
from typing import Any

import pytest

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import recipe
from tinkernomics.derived.calculator.estimate import estimate
from tinkernomics.site.calculator.presets import preset_queries, presets

HERE = Path(__file__).resolve().parent
PROBE = HERE / "cookbook_probe.py"
SOURCES = HERE.parent / "catalog" / "sources" / "github"
COOKBOOK_VERSION = "0.5.5"
"""The tinker-cookbook release whose files are the pinned commit's (Makefile ``setup``)."""


def exports(catalog: Catalog) -> dict[str, recipe.RecipeExport]:
    """Every recipe the site exports: each algorithm's default run and each preset's."""
    pin = recipe.pin(catalog)
    assert pin is not None
    found = {f"algorithm {r.algorithm}": recipe.export(catalog,
                                                       estimate(catalog, {"a": r.algorithm}))
             for r in pin.recipes}
    for (label, _), query in zip(presets(), preset_queries(catalog), strict=True):
        found[f"preset {label!r}"] = recipe.export(catalog, estimate(catalog, query))
    return {label: rec for label, rec in found.items() if rec is not None}


def as_probe_input(label: str, rec: recipe.RecipeExport) -> dict[str, Any]:
    words = shlex.split(rec.command().splitlines()[0])
    assert words[:3] == ["python", "-m", rec.module]
    return {"label": label, "module": rec.module, "argv": words[3:], "python": rec.python()}


def run_probe(recipes: list[dict[str, Any]]) -> dict[str, Any]:
    if util.find_spec("tinker_cookbook") is None:
        pytest.fail("tinker-cookbook is not installed: run `make setup` (it installs "
                    f"tinker-cookbook=={COOKBOOK_VERSION} without its dependencies)")
    done = subprocess.run([sys.executable, str(PROBE)], input=json.dumps(recipes),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


REFUSED = [
    (["kl_reference_config=x"], "Extraneous argument 'kl_reference_config'"),
    (["loss_fn=grpo"], "Could not interpret argument 'grpo'"),
    (["kl_penalty_coef=0.04"], "kl_reference_config must be specified"),
]
"""Recipes the cookbook must refuse: an argument the recipe lacks, a value it refuses, a
configuration its trainer refuses (each with the words of its error)."""
BAD_MODULE = "tinker_cookbook.recipes.math_rl.train"
BAD_PYTHON = (f"import asyncio\nfrom {BAD_MODULE} import CLIConfig, cli_main\n"
              "asyncio.run(cli_main(CLIConfig(kl_penalty_coef=0.5)))")


@pytest.fixture(scope="module")
def probed(catalog: Catalog) -> tuple[dict[str, recipe.RecipeExport], dict[str, Any]]:
    """Every exported recipe and the ``REFUSED`` ones (labelled ``bad <n>``), through one probe
    process: each start imports the cookbook and the Tinker SDK again."""
    found = exports(catalog)
    bad = [{"label": f"bad {n}", "module": BAD_MODULE, "argv": argv, "python": BAD_PYTHON}
           for n, (argv, _) in enumerate(REFUSED)]
    out = run_probe([as_probe_input(label, rec) for label, rec in found.items()] + bad)
    return found, out


def _results(out: dict[str, Any], bad: bool) -> list[dict[str, Any]]:
    return [r for r in out["results"] if r["label"].startswith("bad ") == bad]


def test_the_installed_cookbook_is_the_pinned_commit(catalog: Catalog) -> None:
    """The package the probe runs has the pinned commit's recipe files (catalog/sources keeps
    them as taken from the repository at the commit)."""
    pin = recipe.pin(catalog)
    spec = util.find_spec("tinker_cookbook")
    assert pin is not None and spec is not None and spec.origin is not None
    assert metadata.version("tinker-cookbook") == COOKBOOK_VERSION
    installed = Path(spec.origin).parent.parent
    for rec in pin.recipes:
        kept = SOURCES / pin.repository / pin.commit / rec.path
        assert filecmp.cmp(installed / rec.path, kept, shallow=False), rec.path


def test_every_exported_recipe_reaches_the_training_loop(probed: Any) -> None:
    found, out = probed
    assert {r["label"] for r in _results(out, bad=False)} == set(found)
    refused = [f"{r['label']} ({r['form']}): {r['error']}" for r in _results(out, bad=False)
               if not r["ok"]]
    assert not refused, "\n".join(refused)
    for r in _results(out, bad=False):
        assert "ServiceClient.create_lora_training_client_async" in r["service_calls"]


def test_the_training_config_keeps_the_exported_values(probed: Any) -> None:
    """What the export names reaches the trainer's Config unchanged (no argument is dropped or
    renamed on the way), in both forms."""
    found, out = probed
    for r in _results(out, bad=False):
        rec, cfg = found[r["label"]], r["config"]
        args = rec.args
        expected = {"model_name": args.get("model_name"), "lora_rank": args.get("lora_rank"),
                    "max_tokens": args.get("max_tokens"), "max_steps": args.get("max_steps"),
                    "loss_fn": args["loss_fn"], "kl_penalty_coef": args.get("kl_penalty_coef"),
                    "learning_rate": args.get("learning_rate")}
        for key, value in expected.items():
            if value is not None:
                assert cfg[key] == pytest.approx(value), (r["label"], r["form"], key)
        if r["form"] == "python":
            assert (cfg["loss_fn_config"] or {}) == rec.loss_fn_config, r["label"]
        if "teacher_model" in args:
            assert cfg["teacher_models"] == [args["teacher_model"]], r["label"]
        if "group_size" in args:
            assert cfg["dataset.group_size"] == args["group_size"], r["label"]


def test_the_probe_reports_what_the_cookbook_refuses(probed: Any) -> None:
    """Each of ``REFUSED`` fails as a command line with its own error, and its Python form (a
    configuration the trainer refuses) with the trainer's."""
    _, out = probed
    for n, (_, message) in enumerate(REFUSED):
        command, py = (r for r in _results(out, bad=True) if r["label"] == f"bad {n}")
        assert not command["ok"] and message in command["error"], (n, command)
        assert not py["ok"] and "kl_reference_config must be specified" in py["error"], n
