"""The run as a tinker-cookbook recipe, as layout blocks (pipeline step 6: calculator feature).

``derived/recipe.py`` writes a run's recipe in Python (the command line, the API, the Ways to
run page); for the calculator the same command and Python config are templates over the
estimate, shipped in each algorithm's file (``pagedata.algorithm_data``, slot ``recipe``) and
filled by calculator.js's generic template filling: the run's arguments (model and teacher by
their cookbook names, LoRA rank, group size, prompts per step, max tokens, steps) are
placeholders, included where the estimate has them, in ``recipe.RUN_ARGS``' order; the loss,
its thresholds and the sourced settings are the pin's, written here; the warnings are
``recipe._warnings``' conditions. Catalog text enters as ``wayslayout.literal``.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import recipe
from tinkernomics.derived.calculator.tree import to_tree
from tinkernomics.site.calculator.wayslayout import literal, prose
from tinkernomics.site.pages.views import Links
from tinkernomics.site.pages.views.kinds import WAYS

SLOT = "recipe"
"""The layout slot the algorithm files fill (``{"type": "slot", "name": SLOT}``)."""


def parts(*pairs: tuple[str, str]) -> list[list[Any]]:
    return [[to_tree(when) if when else None, template] for when, template in pairs]


def model_texts(catalog: Catalog, model_id: str) -> dict[str, str]:
    """A model's cookbook name as the recipe writes it (command and Python), if the pin has
    one (names the page adds as ``model.<key>`` and ``teacher.<key>``)."""
    found = recipe.pin(catalog)
    names = {n.model: n.name for n in found.model_names} if found else {}
    if model_id not in names:
        return {}
    name = names[model_id]
    return {"cookbook_cli": shlex.quote(f"model_name={name}"),
            "cookbook_teacher_cli": shlex.quote(f"teacher_model={name}"),
            "cookbook_py": repr(name)}


def _arg(name: str, value: recipe.Value) -> str:
    return shlex.quote(f"{name}={recipe._text(value)}")


def command(rec: recipe.Recipe) -> list[list[Any]]:
    """``RecipeExport.command``: ``python -m <module> key=value ...`` (and the loss config)."""
    static: list[tuple[str, recipe.Value]] = [
        ("loss_fn", rec.loss), *((s.name, s.value.value) for s in rec.settings)]
    found = parts(
        ("", f"python -m {literal(rec.module)}"),
        ("model.cookbook", " {model.cookbook_cli:text}"),
        ("1 - missing(lora.rank)", " lora_rank={lora.rank:int}"),
        ("role.teacher * teacher.cookbook", " {teacher.cookbook_teacher_cli:text}"),
        *((f"1 - missing({key})", f" {arg}={{{key}:int}}") for arg, key in recipe.RUN_ARGS),
        ("", "".join(" " + literal(_arg(n, v)) for n, v in static)))
    config = {s.name: s.value.value for s in rec.loss_config}
    if config:
        found += parts(("", literal("\n# loss_fn_config=" + json.dumps(config)
                                    + " (a dict: set it in the Python form)")))
    return found


def python(rec: recipe.Recipe) -> list[list[Any]]:
    """``RecipeExport.python``: the same settings as a config object."""
    static: list[tuple[str, Any]] = [
        ("loss_fn", rec.loss), *((s.name, s.value.value) for s in rec.settings)]
    config = {s.name: s.value.value for s in rec.loss_config}
    if config:
        static.append(("loss_fn_config", config))
    cls, module = literal(rec.config_class), literal(rec.module)
    return parts(
        ("", f"import asyncio\n\nfrom {module} import {cls}, cli_main\n\nconfig = {cls}(\n"),
        ("model.cookbook", "    model_name={model.cookbook_py:text},\n"),
        ("1 - missing(lora.rank)", "    lora_rank={lora.rank:int},\n"),
        ("role.teacher * teacher.cookbook", "    teacher_model={teacher.cookbook_py:text},\n"),
        *((f"1 - missing({key})", f"    {arg}={{{key}:int}},\n")
          for arg, key in recipe.RUN_ARGS),
        ("", "".join(literal(f"    {n}={v!r},\n") for n, v in static)
         + ")\nasyncio.run(cli_main(config))"))


def warnings(rec: recipe.Recipe) -> list[list[Any]]:
    """What the recipe cannot express, where it applies (``recipe._warnings``)."""
    return parts(
        ("1 - model.cookbook", "<li>no Tinker name for {model:text} in the cookbook pin: set "
         "model_name</li>"),
        ("role.teacher * (1 - teacher.cookbook)", "<li>no Tinker name for the teacher "
         "{teacher:text}: set teacher_model</li>"),
        ("1 - run.lora", "<li>Tinker trains LoRA adapters: the recipe has no full "
         "fine-tuning</li>"),
        ("run.K > 1", "<li>K &gt; 1 passes per batch has no recipe argument (num_substeps "
         "splits a batch into optimizer steps; it does not repeat it)</li>"),
        ("run.T > 1", "<li>multi-turn episodes need an environment of your own</li>"),
        *((("", f"<li>{prose(rec.notes)}</li>"),) if rec.notes else ()))


def departures(rec: recipe.Recipe) -> list[list[Any]]:
    """Where the cookbook's loop is not the paper's algorithm (``recipe.departures``)."""
    return parts(*(("", f"<li>{literal(text)}</li>") for text in recipe.departures(rec)))


def recipe_blocks(catalog: Catalog, algorithm: str, links: Links) -> list[dict[str, Any]]:
    """The algorithm's recipe block (a generic ``code`` block), or none without a recipe."""
    pin, rec = recipe.pin(catalog), recipe.recipe_for(catalog, algorithm)
    if pin is None or rec is None:
        return []
    href = f"https://github.com/{pin.repository}/tree/{pin.commit}"
    intro = (f'<p>The run above as <code>{literal(rec.module)}</code> '
             f'(<code>{literal(rec.path)}</code>) of <code>{literal(pin.repository)}</code> at '
             f'the pinned commit <a href="{literal(href)}"><code>{literal(pin.commit)}</code>'
             "</a>: its arguments follow the settings above; the loss, its thresholds, the KL "
             "coefficient and the learning rate are the pin's sourced values (see "
             f'<a href="{links.to(WAYS, "pinned-recipes")}">the pin</a>).</p>')
    sources = "".join(f"<li><code>{literal(name)}</code>: {literal(src)}</li>"
                      for name, src in sorted(_static_sources(rec).items()))
    return [{"type": "code", "when": None,
             "before": parts(("", intro)),
             "codes": [{"label": "Command", "copy": "Copy command", "parts": command(rec)},
                       {"label": "Python", "copy": "Copy Python", "parts": python(rec)}],
             "after": [[None, '<details class="tn-calc__recipe-sources"><summary>Where each '
                              f"fixed setting comes from</summary><ul>{sources}</ul></details>"
                              '<ul class="tn-calc__recipe-notes">'],
                       *departures(rec), *warnings(rec), [None, "</ul>"]]}]


def _static_sources(rec: recipe.Recipe) -> dict[str, str]:
    found = {"loss_fn": f"cookbook pin ({rec.algorithm})"}
    found.update({s.name: s.value.source for s in rec.settings})
    found.update({f"loss_fn_config.{s.name}": s.value.source for s in rec.loss_config})
    return found
