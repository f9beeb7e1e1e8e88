"""Runs exported recipes through the real tinker-cookbook, offline (a script the recipe tests
start in a subprocess: ``python tests/cookbook_probe.py < recipes.json``).

Each recipe (``{"module", "argv", "python"}``) is run twice, as its command line and as its
Python form, with the cookbook's own code: ``chz`` parses the arguments into the recipe's
``CLIConfig`` (an argument it lacks or a value its type refuses fails here), the recipe's
``cli_main`` builds the training ``Config``, and the trainer's ``main`` runs its checks up to its
training loop, which is replaced by a stop that records the ``Config`` it was given. Only what
would reach out is stubbed: the Tinker ``ServiceClient`` (calls recorded, nothing sent), the
tokenizer and data set downloads (``get_tokenizer``, each ``RLDatasetBuilder.__call__``). The
cookbook is installed without its heavy dependencies (Makefile ``setup``): those it imports but
never calls while configuring (torch, datasets...) are import-only stand-ins that fail the probe
if anything calls them. Prints one JSON result per recipe and form; a subprocess keeps the
stand-ins and patches out of the test process.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
import tempfile
import traceback
import types
from typing import Any

HEAVY = ("torch", "datasets", "blobfile", "sympy", "pylatexenc")
"""Dependencies of tinker-cookbook that configuring a run imports but never calls."""


class StandInUsed(RuntimeError):
    """Configuring a run called a dependency the probe only stands in for."""


class _StandIn:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _StandIn(f"{self._name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise StandInUsed(f"{self._name} called while configuring the run")

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (object,)

    def __getitem__(self, key: Any) -> Any:
        return self


class _StandInModule(types.ModuleType):
    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _StandIn(f"{self.__name__}.{attr}")


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of the ``HEAVY`` packages that are not installed give stand-in modules."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = set(roots)

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name.split(".")[0] not in self.roots:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec: Any) -> types.ModuleType:
        return _StandInModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []  # type: ignore[attr-defined]


class Ready(Exception):
    """The trainer reached its training loop: every check before the first step passed."""

    def __init__(self, config: Any) -> None:
        super().__init__("ready")
        self.config = config


class _Recorder:
    """A service object: records every call, answers with another recorder."""

    def __init__(self, calls: list[str], name: str) -> None:
        self._calls, self._name = calls, name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        name = f"{self._name}.{attr}"

        if attr.endswith("_async"):
            async def call_async(*args: Any, **kwargs: Any) -> Any:
                self._calls.append(name)
                return _Recorder(self._calls, name)
            return call_async

        def call(*args: Any, **kwargs: Any) -> Any:
            self._calls.append(name)
            return _Recorder(self._calls, name)
        return call


def _install_stand_ins() -> list[str]:
    missing = [n for n in HEAVY if importlib.util.find_spec(n) is None]
    if missing:
        sys.meta_path.insert(0, _StandInFinder(missing))
    return missing


def _patch(calls: list[str]) -> None:
    """Stub the service, the downloads and the training loop (nothing else)."""
    import tinker
    from tinker_cookbook import tokenizer_utils
    from tinker_cookbook.rl import types as rl_types

    tinker.ServiceClient = lambda *a, **k: _Recorder(calls, "ServiceClient")  # type: ignore
    real_tokenizer = tokenizer_utils.get_tokenizer
    for mod in list(sys.modules.values()):
        if (getattr(mod, "__name__", "").startswith("tinker_cookbook")
                and getattr(mod, "get_tokenizer", None) is real_tokenizer):
            mod.get_tokenizer = lambda name: _Recorder(calls, f"tokenizer({name})")  # type: ignore

    class FakeDataset(rl_types.RLDataset):
        def get_batch(self, index: int) -> Any:
            raise AssertionError("the probe stops before the first batch")

        def __len__(self) -> int:
            return 1000

    async def built(self: Any) -> Any:
        return FakeDataset(), None

    for cls in _subclasses(rl_types.RLDatasetBuilder):
        setattr(cls, "__call__", built)  # noqa: B010 - a class attribute, patched

    def stop(*args: Any, config: Any = None, **kwargs: Any) -> Any:
        raise Ready(config)

    for name in ("tinker_cookbook.rl.train", "tinker_cookbook.distillation.train_on_policy"):
        mod = importlib.import_module(name)
        for loop in ("do_sync_training", "do_async_training",
                     "do_sync_training_with_stream_minibatch"):
            if hasattr(mod, loop):
                setattr(mod, loop, stop)


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    sub: type
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def _summary(config: Any) -> dict[str, Any]:
    keys = ("model_name", "lora_rank", "learning_rate", "max_tokens", "kl_penalty_coef",
            "kl_reference_config", "loss_fn", "loss_fn_config", "max_steps", "num_substeps")
    found = {k: getattr(config, k) for k in keys if hasattr(config, k)}
    teachers = [d.teacher_config.base_model for d in getattr(config, "dataset_configs", [])]
    if teachers:
        found["teacher_models"] = teachers
    builder = getattr(config, "dataset_builder", None)
    for attr in ("group_size", "batch_size", "groups_per_batch"):
        if builder is not None and hasattr(builder, attr):
            found[f"dataset.{attr}"] = getattr(builder, attr)
    for d in getattr(config, "dataset_configs", []):
        found["dataset.groups_per_batch"] = d.groups_per_batch
        found["dataset.group_size"] = d.dataset_builder.group_size
    return {k: (v if isinstance(v, (int, float, str, list, dict, type(None))) else repr(v))
            for k, v in found.items()}


def _local(log: str) -> list[str]:
    """Arguments the probe adds: a log folder of its own (the recipe's default is under /tmp)."""
    return [f"log_path={log}", "behavior_if_log_dir_exists=delete"]


async def _run(main: Any, cfg: Any) -> dict[str, Any]:
    try:
        await main(cfg)
    except Ready as ready:
        return {"ok": True, "config": _summary(ready.config)}
    return {"ok": False, "error": "the trainer ended without reaching its training loop"}


def _command_form(recipe: dict[str, Any], log: str) -> dict[str, Any]:
    import chz

    module = importlib.import_module(recipe["module"])
    # chz.entrypoint, less its sys.exit on a bad argument (the error is the finding)
    cfg = chz.Blueprint(module.CLIConfig).make_from_argv([*recipe["argv"], *_local(log)])
    return asyncio.run(_run(module.cli_main, cfg))


def _python_form(recipe: dict[str, Any], log: str) -> dict[str, Any]:
    import chz

    module = importlib.import_module(recipe["module"])
    real = module.cli_main
    found: dict[str, Any] = {}

    async def local_main(cfg: Any) -> None:
        found.update(await _run(real, chz.replace(cfg, log_path=log,
                                                  behavior_if_log_dir_exists="delete")))

    setattr(module, "cli_main", local_main)  # noqa: B010
    try:
        exec(compile(recipe["python"], "<recipe python>", "exec"), {"__name__": "recipe"})
    finally:
        setattr(module, "cli_main", real)  # noqa: B010
    return found or {"ok": False, "error": "the Python form never called cli_main"}


def probe(recipe: dict[str, Any]) -> list[dict[str, Any]]:
    results = []
    for form, run in (("command", _command_form), ("python", _python_form)):
        calls: list[str] = []
        _patch(calls)
        with tempfile.TemporaryDirectory() as log:
            try:
                found = run(recipe, log)
            except BaseException as exc:
                found = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                         "trace": traceback.format_exc(limit=-4)}
        results.append({"label": recipe["label"], "form": form, "service_calls": calls, **found})
    return results


def main() -> None:
    recipes = json.load(sys.stdin)
    stand_ins = _install_stand_ins()
    import tinker_cookbook

    out = {"cookbook": tinker_cookbook.__file__, "stand_ins": stand_ins,
           "results": [r for recipe in recipes for r in probe(recipe)]}
    json.dump(out, sys.stdout, default=repr)


if __name__ == "__main__":
    main()
