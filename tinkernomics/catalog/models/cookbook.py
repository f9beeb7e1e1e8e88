"""The tinker-cookbook pin (pipeline step 2): the commit a run's recipe export was checked against.

One entry, ``catalog/cookbook/tinker_cookbook.yaml``: the commit of
thinking-machines-lab/tinker-cookbook, the Tinker name of each catalog model, and per algorithm
the recipe script, its config class and the values the export writes that the calculator's
inputs do not give (the loss, its thresholds, the KL coefficient, a learning rate), each sourced,
and where the cookbook's loop departs from the paper's algorithm (``departures``, shown beside the
command). ``derived/recipe.py`` writes the command; ``tests/test_recipe_runs.py`` runs every
exported recipe through the real cookbook at that commit, up to its training loop.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field, StringConstraints

from tinkernomics.catalog import numbers as n
from tinkernomics.catalog.fields import Id, ModelId, Prose, ShortText
from tinkernomics.catalog.models.base import Identifier, StrictModel
from tinkernomics.catalog.models.provenance import Claim, Figure

Commit = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
ModulePath = Annotated[str, StringConstraints(pattern=r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$",
                                              max_length=200)]
RepoPath = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./-]*\.py$",
                                            max_length=200)]
HF_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$"
HfName = Annotated[str, StringConstraints(pattern=HF_PATTERN, max_length=120)]
RecipeValue = Annotated[Figure, n.HYPERPARAMETER]


class ModelName(StrictModel):
    """The name a catalog model goes by in Tinker and the cookbook (``model_name=``)."""

    model: ModelId = Field(description="Model id (catalog/models/).", examples=["qwen3-8b"])
    name: HfName = Field(description="Tinker / Hugging Face name.", examples=["Qwen/Qwen3-8B"])


class Setting(StrictModel):
    """One argument the export writes with a sourced value."""

    name: Identifier = Field(description="Argument name in the config class.",
                             examples=["kl_penalty_coef"])
    value: RecipeValue = Field(description="Its value, with unit and source.")


class LossSetting(StrictModel):
    """One key of ``loss_fn_config``."""

    name: Identifier = Field(description="Key of the loss's config (a Tinker loss "
                                         "hyperparameter).", examples=["clip_high_threshold"])
    value: RecipeValue = Field(description="Its value, with unit and source.")


class Recipe(StrictModel):
    """How one algorithm runs with the cookbook at the pinned commit."""

    algorithm: Id = Field(description="Algorithm id (catalog/algorithms/).", examples=["dapo"])
    module: ModulePath = Field(description="Module run with `python -m`.",
                               examples=["tinker_cookbook.recipes.math_rl.train"])
    path: RepoPath = Field(description="File in the repository that declares the config class.",
                           examples=["tinker_cookbook/recipes/math_rl/train.py"])
    config_class: Identifier = Field(description="The chz config class of the command line.",
                                     examples=["CLIConfig"])
    loss: Id = Field(description="Tinker loss id (catalog/tinker/losses/), `loss_fn=`.",
                     examples=["ppo"])
    loss_config: list[LossSetting] = Field(default_factory=list,
                                           description="`loss_fn_config` keys and values.")
    settings: list[Setting] = Field(default_factory=list,
                                    description="Other arguments with sourced values (KL "
                                                "coefficient, learning rate...).")
    departures: list[Claim] = Field(
        default_factory=list,
        description="Where the cookbook's loop differs from the paper's algorithm (advantages, KL, "
                    "loss), each a sourced claim about the code at the commit; shown beside the "
                    "command.")
    notes: Prose | None = Field(default=None, description="What the export cannot express.")


class CookbookPin(StrictModel):
    """The tinker-cookbook commit the recipe export is checked against."""

    id: Id = Field(description="Always 'tinker_cookbook' (the file name).",
                   examples=["tinker_cookbook"])
    repository: ShortText = Field(description="owner/name on GitHub.",
                                  examples=["thinking-machines-lab/tinker-cookbook"])
    commit: Commit = Field(description="The pinned commit (40 hex digits).")
    date: dt.date = Field(description="The commit's date, YYYY-MM-DD.")
    source: Id = Field(description="Reference id of the cookbook.", examples=["tinker_cookbook"])
    model_names: list[ModelName] = Field(min_length=1,
                                         description="Tinker names of the catalog's models.")
    model_names_locator: Prose = Field(description="Where the names are listed at the commit.")
    recipes: list[Recipe] = Field(min_length=1, description="One per algorithm exported.")
