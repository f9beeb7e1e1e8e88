"""The priced run as a tinker-cookbook recipe (pipeline step 5): command and config.

For a run the calculator priced on Tinker, ``export`` writes the matching cookbook command
(``python -m <module> key=value ...``) and the same settings as a Python config, from the same
estimate: model, LoRA rank, group size, prompts per step, max tokens and steps from the link;
loss, its thresholds, the KL coefficient and a learning rate from the catalog's cookbook pin
(``catalog/cookbook/tinker_cookbook.yaml``), each sourced, with the pinned commit; the notes
start with where the cookbook's loop departs from the paper's algorithm (``departures``). Every
exported recipe runs through the real cookbook's configuration and pre-flight checks
(``tests/test_recipe_runs.py``).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.cookbook import CookbookPin, Recipe
from tinkernomics.derived.calculator import ids
from tinkernomics.derived.calculator.estimate import Estimate

PIN = ids.COOKBOOK_PIN
"""Id of the cookbook pin entry (``catalog/cookbook/``)."""
RUN_ARGS = (("group_size", "run.G"), ("groups_per_batch", "run.prompts"),
            ("max_tokens", "run.out"), ("max_steps", "run.steps"))
"""Recipe argument -> the estimate's value it takes (whole numbers)."""

Value = str | int | float


@dataclass(frozen=True)
class RecipeExport:
    """A run as a cookbook recipe: its arguments, in two copyable forms, and what is left out."""

    algorithm: str
    repository: str
    commit: str
    module: str
    path: str
    config_class: str
    args: dict[str, Value]
    loss_fn_config: dict[str, float]
    sources: dict[str, str]
    """Argument -> where its value comes from (a link input or a reference id)."""
    warnings: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        """Every config-class argument the export names."""
        return [*self.args, *(["loss_fn_config"] if self.loss_fn_config else [])]

    def command(self) -> str:
        parts = ["python", "-m", self.module,
                 *(shlex.quote(f"{k}={_text(v)}") for k, v in self.args.items())]
        line = " ".join(parts)
        if self.loss_fn_config:
            line += "\n# loss_fn_config=" + json.dumps(self.loss_fn_config) + \
                    " (a dict: set it in the Python form)"
        return line

    def python(self) -> str:
        module = self.module
        lines = ["import asyncio", "",
                 f"from {module} import {self.config_class}, cli_main", "",
                 f"config = {self.config_class}("]
        lines += [f"    {k}={v!r}," for k, v in self.args.items()]
        if self.loss_fn_config:
            lines.append(f"    loss_fn_config={self.loss_fn_config!r},")
        lines += [")", "asyncio.run(cli_main(config))"]
        return "\n".join(lines)


def _text(value: Value) -> str:
    return format(value, "g") if isinstance(value, float) else str(value)


def pin(catalog: Catalog) -> CookbookPin | None:
    return catalog.of("cookbook").get(PIN)


def recipe_for(catalog: Catalog, algorithm: str) -> Recipe | None:
    found = pin(catalog)
    return next((r for r in found.recipes if r.algorithm == algorithm), None) if found else None


def _whole(value: float | None) -> int | None:
    return None if value is None else round(value)


def _run_args(est: Estimate, names: dict[str, str]) -> tuple[dict[str, Value], dict[str, str]]:
    """Arguments the link's inputs give, with where each comes from."""
    c = est.choice
    args: dict[str, Value] = {}
    sources: dict[str, str] = {}
    if c.model in names:
        args["model_name"], sources["model_name"] = names[c.model], "link key m"
    rank = _whole(est.values.get("lora.rank"))
    if rank is not None:
        args["lora_rank"], sources["lora_rank"] = rank, "link key r (or the calculator default)"
    teacher = est.resolved.names.get("teacher", "")
    if teacher and teacher in names:
        args["teacher_model"], sources["teacher_model"] = names[teacher], "link key tm"
    for arg, key in RUN_ARGS:
        value = _whole(est.env.get(key))
        if value is not None:
            args[arg], sources[arg] = value, f"calculator input {key}"
    return args, sources


def _warnings(est: Estimate, names: dict[str, str], recipe: Recipe) -> list[str]:
    c = est.choice
    found = []
    if c.model not in names:
        found.append(f"no Tinker name for {c.model} in the cookbook pin: set model_name")
    teacher = est.resolved.names.get("teacher", "")
    if teacher and teacher not in names:
        found.append(f"no Tinker name for the teacher {teacher}: set teacher_model")
    if not c.lora:
        found.append("Tinker trains LoRA adapters: the recipe has no full fine-tuning")
    if (est.env.get("run.K") or 1) > 1:
        found.append("K > 1 passes per batch has no recipe argument (num_substeps splits a "
                     "batch into optimizer steps; it does not repeat it)")
    if (est.env.get("run.T") or 1) > 1:
        found.append("multi-turn episodes need an environment of your own")
    if recipe.notes:
        found.append(recipe.notes)
    return [*departures(recipe), *found]


def departures(recipe: Recipe) -> list[str]:
    """Where the cookbook's loop is not the paper's algorithm, said first beside the command."""
    return [f"Differs from the paper: {d.text}" for d in recipe.departures]


def export(catalog: Catalog, est: Estimate) -> RecipeExport | None:
    """The recipe of an estimate's run; None when the pin has no recipe for its algorithm."""
    found, recipe = pin(catalog), recipe_for(catalog, est.choice.algorithm)
    if found is None or recipe is None:
        return None
    names = {n.model: n.name for n in found.model_names}
    args, sources = _run_args(est, names)
    args["loss_fn"], sources["loss_fn"] = recipe.loss, f"cookbook pin ({recipe.algorithm})"
    for s in recipe.settings:
        args[s.name], sources[s.name] = s.value.value, s.value.source
    loss_config = {s.name: s.value.value for s in recipe.loss_config}
    sources.update({f"loss_fn_config.{s.name}": s.value.source for s in recipe.loss_config})
    return RecipeExport(
        algorithm=recipe.algorithm, repository=found.repository, commit=found.commit,
        module=recipe.module, path=recipe.path, config_class=recipe.config_class,
        args=args, loss_fn_config=loss_config, sources=sources,
        warnings=tuple(_warnings(est, names, recipe)))


def as_json(rec: RecipeExport | None) -> dict[str, object] | None:
    if rec is None:
        return None
    return {"algorithm": rec.algorithm, "repository": rec.repository, "commit": rec.commit,
            "module": rec.module, "path": rec.path, "config_class": rec.config_class,
            "args": rec.args, "loss_fn_config": rec.loss_fn_config, "sources": rec.sources,
            "command": rec.command(), "python": rec.python(), "warnings": list(rec.warnings)}
